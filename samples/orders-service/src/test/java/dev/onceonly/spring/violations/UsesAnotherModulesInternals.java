package dev.onceonly.spring.violations;

import dev.onceonly.spring.web.internal.QueryString;

/** A class of another module, in onceonly-spring's packages, that uses onceonly-spring's internal package. */
public final class UsesAnotherModulesInternals {
    QueryString query;
}
