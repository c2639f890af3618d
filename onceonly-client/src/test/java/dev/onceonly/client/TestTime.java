package dev.onceonly.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A clock that moves only when told and a sleeper that records each wait and moves the clock by it. */
final class TestTime extends Clock implements Sleeper {

    /** What a test does when the client waits, e.g. let the server finish a request. */
    @FunctionalInterface
    interface OnSleep {
        void slept(Duration duration) throws InterruptedException;
    }

    private volatile Instant now = Instant.parse("2026-12-01T10:00:00Z");
    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    private volatile OnSleep onSleep = duration -> {
    };

    void onSleep(OnSleep onSleep) {
        this.onSleep = onSleep;
    }

    synchronized void advance(Duration duration) {
        now = now.plus(duration);
    }

    List<Duration> sleeps() {
        return List.copyOf(sleeps);
    }

    Duration slept() {
        return sleeps.stream().reduce(Duration.ZERO, Duration::plus);
    }

    @Override
    public void sleep(Duration duration) throws InterruptedException {
        sleeps.add(duration);
        advance(duration);
        onSleep.slept(duration);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("one zone is enough for a test clock");
    }
}
