/** The orders API. */
@NullMarked
package dev.onceonly.example.orders;

import org.jspecify.annotations.NullMarked;
