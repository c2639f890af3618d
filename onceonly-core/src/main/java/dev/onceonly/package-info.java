/** What users touch: the engine, keys, scopes, fingerprints, outcome policy and exceptions. */
@NullMarked
package dev.onceonly;

import org.jspecify.annotations.NullMarked;
