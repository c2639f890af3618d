package dev.onceonly.violations;

import dev.onceonly.cyclic.ReachesBack;
import dev.onceonly.example.orders.CreateOrderRequest;
import dev.onceonly.internal.ReplayCache;

/**
 * Code that breaks each of {@link dev.onceonly.example.ArchitectureTest}'s rules, to show that they fire: in a
 * package of no module, which the rules' own class import leaves out.
 */
public final class RuleViolations {

    private RuleViolations() {
    }

    /** A module that uses core's implementation. */
    public static final class UsesCoresInternals {
        ReplayCache cache;
    }

    /** A library class that calls into a sample. */
    public static final class CallsTheSample {
        CreateOrderRequest request;
    }

    /** One half of a cycle between two modules. */
    public static final class ReachesCyclic {
        ReachesBack back;
    }
}
