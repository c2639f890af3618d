package dev.onceonly.benchmarks.http;

/**
 * Tells when a service's JIT compiler has settled under a load: two windows in a row that each added fewer than
 * {@value #SETTLED_SHARE} of the methods compiled so far. Until then the figures measure the compiler as much as the
 * code: on two cores the reference service's first executions took 60–80 s of load to reach their steady
 * throughput (from a sixth of it), while its compilations went from thousands a window to tens; a fixed 15 s warm-up
 * measured the slower path, the one with more code to compile, at two thirds of its speed.
 */
final class JitSettling {

    static final double SETTLED_SHARE = 0.0025;
    private static final int QUIET_WINDOWS = 2;

    private long last = -1;
    private int quiet;

    /** Takes the service's count of compilations at the end of a window; whether the JIT has now settled. */
    boolean settledAt(long compilations) {
        boolean quietWindow = last >= 0 && compilations - last < SETTLED_SHARE * compilations;
        quiet = quietWindow ? quiet + 1 : 0;
        last = compilations;
        return quiet >= QUIET_WINDOWS;
    }
}
