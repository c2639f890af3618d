/** The in-memory store, for tests and single-process use. */
@NullMarked
package dev.onceonly.memory;

import org.jspecify.annotations.NullMarked;
