/** Auto-configuration of dev.onceonly.spring.method. */
@NullMarked
package dev.onceonly.spring.boot.method;

import org.jspecify.annotations.NullMarked;
