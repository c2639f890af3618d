/** The administrators' Actuator endpoint over the engine's records. */
@NullMarked
package dev.onceonly.spring.boot.admin;

import org.jspecify.annotations.NullMarked;
