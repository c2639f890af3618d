/** Idempotent methods of any Spring bean: {@link dev.onceonly.spring.boot.method.IdempotentMethod}. */
@NullMarked
package dev.onceonly.spring.boot.method;

import org.jspecify.annotations.NullMarked;
