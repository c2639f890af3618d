/** Problem details for the errors the container and the error page answer, outside any handler. */
@NullMarked
package dev.onceonly.example.web;

import org.jspecify.annotations.NullMarked;
