/** Problem details: the service's own problem types, and the errors the container and the error page answer. */
@NullMarked
package dev.onceonly.example.web;

import org.jspecify.annotations.NullMarked;
