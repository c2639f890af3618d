/** Micrometer metrics of idempotent requests and store operations. */
@NullMarked
package dev.onceonly.spring.boot.metrics;

import org.jspecify.annotations.NullMarked;
