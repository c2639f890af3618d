/** Fault injection: latency and a queue of failures the next new charge requests meet, switchable at runtime. */
@NullMarked
package dev.onceonly.provider.faults;

import org.jspecify.annotations.NullMarked;
