/** HTTP Basic authentication of demo users, each in a tenant. */
@NullMarked
package dev.onceonly.example.security;

import org.jspecify.annotations.NullMarked;
