/**
 * Asynchronous operations: accepted at once with {@code 202}, run by a worker on any instance under a renewed
 * lease, on db-scheduler's durable task queue.
 */
@NullMarked
package dev.onceonly.spring.async;

import org.jspecify.annotations.NullMarked;
