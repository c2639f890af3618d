/** The orders API and the order state machine that payments move on. */
@NullMarked
package dev.onceonly.example.orders;

import org.jspecify.annotations.NullMarked;
