package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyEngine;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Deletes expired records every {@code interval}: batches of {@code batchSize} with a pause between them, until
 * a batch comes back short. Unthrottled deletes slow concurrent first executions, hence the pause. A failed run is
 * logged and the next one tries again. Runs on one daemon thread of its own. What has expired is decided by the
 * engine's clock, and the engine's store deletes, so that its decorators (metrics) see the purge.
 */
public final class ExpiredRecordCleaner implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ExpiredRecordCleaner.class);

    private final IdempotencyEngine engine;
    private final OnceOnlyProperties.Cleanup settings;
    private @Nullable ScheduledExecutorService scheduler;

    public ExpiredRecordCleaner(IdempotencyEngine engine, OnceOnlyProperties.Cleanup settings) {
        this.engine = engine;
        this.settings = settings;
    }

    /** Purges everything that has expired now; returns the number of records deleted. */
    public int purgeOnce() {
        int total = 0;
        int deleted;
        do {
            deleted = engine.purgeExpired(settings.batchSize());
            total += deleted;
            if (deleted == settings.batchSize() && !settings.batchPause().isZero()) {
                try {
                    Thread.sleep(settings.batchPause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        } while (deleted == settings.batchSize());
        return total;
    }

    private void run() {
        try {
            int deleted = purgeOnce();
            if (deleted > 0) {
                log.debug("Purged {} expired idempotency records", deleted);
            }
        } catch (RuntimeException e) {
            log.warn("Purging expired idempotency records failed; trying again in {}", settings.interval(), e);
        }
    }

    @Override
    public synchronized void start() {
        if (scheduler == null) {
            scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("onceonly-cleanup")
                    .factory());
            long interval = settings.interval().toMillis();
            scheduler.scheduleWithFixedDelay(this::run, interval, interval, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scheduler != null;
    }
}
