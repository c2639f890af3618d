/** The storage SPI: what a store author implements and the records it holds. */
@NullMarked
package dev.onceonly.spi;

import org.jspecify.annotations.NullMarked;
