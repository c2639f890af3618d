/** Implementation details; not an API, may change in any release. */
@NullMarked
package dev.onceonly.internal;

import org.jspecify.annotations.NullMarked;
