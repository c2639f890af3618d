/** The Spring Boot auto-configuration of OnceOnly: properties, engine, cleanup. */
@NullMarked
package dev.onceonly.spring.boot;

import org.jspecify.annotations.NullMarked;
