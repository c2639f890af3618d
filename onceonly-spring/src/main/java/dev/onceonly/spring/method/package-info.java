/** Idempotent methods of any Spring bean: {@link dev.onceonly.spring.method.IdempotentMethod}. */
@NullMarked
package dev.onceonly.spring.method;

import org.jspecify.annotations.NullMarked;
