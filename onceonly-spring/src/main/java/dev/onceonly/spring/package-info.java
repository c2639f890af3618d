/** OnceOnly for Spring applications without Spring Boot's auto-configuration: what every integration shares. */
@NullMarked
package dev.onceonly.spring;

import org.jspecify.annotations.NullMarked;
