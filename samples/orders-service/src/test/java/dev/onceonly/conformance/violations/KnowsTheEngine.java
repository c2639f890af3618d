package dev.onceonly.conformance.violations;

import dev.onceonly.IdempotencyEngine;

/**
 * A conformance case that reaches into an implementation, which the suite's rule forbids: shows the rule of
 * {@link dev.onceonly.example.ArchitectureTest} firing, from a package its own import leaves out.
 */
public final class KnowsTheEngine {
    IdempotencyEngine engine;
}
