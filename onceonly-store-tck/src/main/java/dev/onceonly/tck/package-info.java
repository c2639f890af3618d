/** The store contract suites (every store, and stores that join transactions) and their test clock. */
@NullMarked
package dev.onceonly.tck;

import org.jspecify.annotations.NullMarked;
