package dev.onceonly.conformance;

/**
 * The suite against a service that already runs, described by {@code -Donceonly.conformance.*} properties
 * ({@link ConformanceTarget#fromSystemProperties()}); run with {@code -Pconformance}, never in the build.
 */
class RunningServiceIT extends IdempotencyKeyConformance {

    @Override
    protected ConformanceTarget target() {
        return ConformanceTarget.fromSystemProperties();
    }
}
