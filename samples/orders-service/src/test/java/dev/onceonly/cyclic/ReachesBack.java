package dev.onceonly.cyclic;

import dev.onceonly.violations.RuleViolations;

/** The other half of {@link RuleViolations.ReachesCyclic}'s cycle. */
public final class ReachesBack {
    RuleViolations.ReachesCyclic forth;
}
