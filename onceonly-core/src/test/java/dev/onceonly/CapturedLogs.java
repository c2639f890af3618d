package dev.onceonly;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Every line OnceOnly logs during a test, at every level, for tests that show what never reaches a log; register
 * it with {@code @RegisterExtension}.
 */
public final class CapturedLogs implements BeforeEachCallback, AfterEachCallback {

    private final Logger logger = (Logger) LoggerFactory.getLogger("dev.onceonly");
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private Level previousLevel;

    @Override
    public void beforeEach(ExtensionContext context) {
        previousLevel = logger.getLevel();
        logger.setLevel(Level.TRACE);
        events.list.clear();
        events.start();
        logger.addAppender(events);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.detachAppender(events);
        logger.setLevel(previousLevel);
    }

    /** The events logged so far in this test. */
    public List<ILoggingEvent> events() {
        return events.list;
    }
}
