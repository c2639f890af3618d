/** Auto-configuration of dev.onceonly.spring.web. */
@NullMarked
package dev.onceonly.spring.boot.web;

import org.jspecify.annotations.NullMarked;
