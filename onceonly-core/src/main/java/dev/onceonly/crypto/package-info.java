/**
 * Encryption at rest of stored responses: a store decorator that seals bodies and headers with AES-GCM under a
 * ring of keys, so keys can be rotated without losing replays. JDK cryptography only.
 */
@NullMarked
package dev.onceonly.crypto;

import org.jspecify.annotations.NullMarked;
