package dev.onceonly.spring;

import dev.onceonly.IdempotencyMode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * What OnceOnly decided at startup, so that no choice is silent: the store, the default mode, the mode of every
 * idempotent endpoint and method, whether Redis fronts the store and whether stored outcomes are encrypted. Said in
 * one line of the log once the application context is ready, and shown by the {@code onceonly} actuator endpoint.
 * The parts that decide report here as they are set up.
 */
public final class OnceOnlySetup implements ApplicationListener<ContextRefreshedEvent> {

    private static final Logger log = LoggerFactory.getLogger(OnceOnlySetup.class);

    /** What an operation is: an HTTP endpoint or a method. */
    public enum Kind {
        HTTP, METHOD
    }

    private final String store;
    private final IdempotencyMode defaultMode;
    private final boolean encrypted;
    private volatile @Nullable String redis;
    /** The operations of each kind, by their mode's label */
    private final Map<Kind, Map<String, Set<String>>> operations = new TreeMap<>();
    private final AtomicBoolean said = new AtomicBoolean();

    /**
     * @param store the store as it describes itself, such as {@code JdbcIdempotencyStore[PostgreSQL]}
     * @param defaultMode the mode {@code onceonly.mode} resolved to
     */
    public OnceOnlySetup(String store, IdempotencyMode defaultMode, boolean encrypted) {
        this.store = store;
        this.defaultMode = defaultMode;
        this.encrypted = encrypted;
    }

    /** Records that {@code operation} runs in {@code mode}, a label such as {@code transactional}. */
    public synchronized void operation(Kind kind, String operation, String mode) {
        operations.computeIfAbsent(kind, k -> new TreeMap<>()).computeIfAbsent(mode, m -> new TreeSet<>())
                .add(operation);
    }

    /** Records that Redis fronts the store, in the way {@code description} says (claim-first, write-once). */
    public void redis(String description) {
        this.redis = description;
    }

    /** A mode as the log and the actuator endpoint say it. */
    public static String label(IdempotencyMode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    /** The whole setup in one line. */
    public synchronized String summary() {
        String redisState = redis;
        return "OnceOnly: store " + store + ", default mode " + label(defaultMode) + "; HTTP endpoints: "
                + describe(Kind.HTTP) + "; methods: " + describe(Kind.METHOD) + "; Redis "
                + (redisState == null ? "off" : "on (" + redisState + ")") + "; encryption "
                + (encrypted ? "on" : "off");
    }

    /** The setup as the actuator endpoint shows it. */
    public synchronized Map<String, Object> view() {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("store", store);
        view.put("defaultMode", label(defaultMode));
        view.put("httpEndpoints", copy(Kind.HTTP));
        view.put("methods", copy(Kind.METHOD));
        String redisState = redis;
        view.put("redis", redisState == null ? "off" : redisState);
        view.put("encryption", encrypted ? "on" : "off");
        return view;
    }

    private String describe(Kind kind) {
        Map<String, Set<String>> byMode = operations.getOrDefault(kind, Map.of());
        if (byMode.isEmpty()) {
            return "none";
        }
        return byMode.entrySet().stream().map(entry -> entry.getKey() + " " + entry.getValue())
                .collect(Collectors.joining(", "));
    }

    private Map<String, List<String>> copy(Kind kind) {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        operations.getOrDefault(kind, Map.of()).forEach((mode, names) -> copy.put(mode, List.copyOf(names)));
        return copy;
    }

    /** Said once: the first refresh this bean sees is its own context's, before any child context's. */
    @Override
    public void onApplicationEvent(ContextRefreshedEvent event) {
        if (said.compareAndSet(false, true)) {
            log.info(summary());
        }
    }
}
