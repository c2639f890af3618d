/** The store contract suite and its test clock. */
@NullMarked
package dev.onceonly.tck;

import org.jspecify.annotations.NullMarked;
