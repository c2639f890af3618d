/** Accounts of a tenant, debited idempotently under an optimistic version check. */
@NullMarked
package dev.onceonly.example.accounts;

import org.jspecify.annotations.NullMarked;
