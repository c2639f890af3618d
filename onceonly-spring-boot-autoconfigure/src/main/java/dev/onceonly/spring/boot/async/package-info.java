/** Auto-configuration of dev.onceonly.spring.async. */
@NullMarked
package dev.onceonly.spring.boot.async;

import org.jspecify.annotations.NullMarked;
