/**
 * The checkout page's API: a one-time form token per rendered form ({@code GET /api/checkout/token}), and the
 * order it submits ({@code POST /api/checkout}) under an Idempotency-Key, consuming the token inside the
 * idempotent request.
 */
@NullMarked
package dev.onceonly.example.checkout;

import org.jspecify.annotations.NullMarked;
