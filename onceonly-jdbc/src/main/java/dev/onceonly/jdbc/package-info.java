/** The JDBC store, its SQL dialects and schema. */
@NullMarked
package dev.onceonly.jdbc;

import org.jspecify.annotations.NullMarked;
