/** The reference orders service. */
@NullMarked
package dev.onceonly.example;

import org.jspecify.annotations.NullMarked;
