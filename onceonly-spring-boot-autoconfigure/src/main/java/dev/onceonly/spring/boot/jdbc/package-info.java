/** Auto-configuration of the JDBC store, its schema and transactional mode. */
@NullMarked
package dev.onceonly.spring.boot.jdbc;

import org.jspecify.annotations.NullMarked;
