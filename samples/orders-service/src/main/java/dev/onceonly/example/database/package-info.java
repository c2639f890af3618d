/** The embedded PostgreSQL the service runs on by default. */
@NullMarked
package dev.onceonly.example.database;

import org.jspecify.annotations.NullMarked;
