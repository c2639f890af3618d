package dev.onceonly.spring.method;

import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Stores a method's result as JSON without a status, which always counts as a success, and a final exception with
 * status {@value #FINAL_EXCEPTION} as its declared type and message only: nothing else of it (causes that quote a
 * database's text, fields, the stack) is stored, and a replay builds only a declared type. Any other status is a
 * problem the engine or the interceptor stored (attempts exhausted, a result that could not be stored).
 */
final class MethodOutcomeCodec implements OutcomeCodec<MethodOutcome> {

    /** The status a final exception is stored with. */
    static final int FINAL_EXCEPTION = 422;
    /** The status of a problem stored in place of a result. */
    private static final int PROBLEM = 500;
    private static final String PROBLEM_TYPES = "https://onceonly.dev/problems/";

    private final JsonMapper json;
    private final JavaType resultType;
    /** By name, in the order declared: a thrown subclass is stored as the first declared type it is. */
    private final Map<String, Constructor<? extends Throwable>> finalExceptions;

    /**
     * @throws IllegalArgumentException naming a final exception type that cannot be built again from its message
     */
    MethodOutcomeCodec(JsonMapper json, JavaType resultType, List<Class<? extends Throwable>> finalExceptions) {
        this.json = json;
        this.resultType = resultType;
        this.finalExceptions = new LinkedHashMap<>();
        for (Class<? extends Throwable> type : finalExceptions) {
            this.finalExceptions.put(type.getName(), constructor(type));
        }
    }

    private static Constructor<? extends Throwable> constructor(Class<? extends Throwable> type) {
        if (Modifier.isAbstract(type.getModifiers()) || !Modifier.isPublic(type.getModifiers())) {
            throw new IllegalArgumentException(type.getName() + " is abstract or not public, so a replay cannot "
                    + "build it");
        }
        try {
            return type.getConstructor(String.class);
        } catch (NoSuchMethodException noMessageConstructor) {
            try {
                return type.getConstructor();
            } catch (NoSuchMethodException none) {
                throw new IllegalArgumentException(type.getName() + " has neither a public (String message) nor a "
                        + "public no-argument constructor, so a replay cannot build it");
            }
        }
    }

    /** The declared final exception type {@code exception} is stored as, if it is one. */
    Optional<String> finalType(Throwable exception) {
        return finalExceptions.values().stream().map(Constructor::getDeclaringClass)
                .filter(type -> type.isInstance(exception)).map(Class::getName).findFirst();
    }

    /**
     * The outcome of a call that returned {@code value}.
     *
     * @throws JacksonException if the value cannot be written as JSON, or not read back as the declared type
     */
    MethodOutcome returned(@Nullable Object value) {
        byte[] body = json.writeValueAsBytes(value);
        // Read back once now: a result the replays could not read must fail while this call can still tell.
        json.readValue(body, resultType);
        return new MethodOutcome.Returned(value, StoredResponse.result(body));
    }

    /** The outcome of a call that threw one of the final exceptions, as {@link #finalType} names it. */
    MethodOutcome threw(Throwable exception, String declaredType) {
        ObjectNode stored = json.createObjectNode();
        stored.put("type", declaredType);
        stored.put("message", exception.getMessage());
        return new MethodOutcome.Threw(exception, StoredResponse.of(FINAL_EXCEPTION, json.writeValueAsBytes(stored)));
    }

    /** What is stored for a call that took effect but whose result could not be. */
    StoredResponse notStorable(String detail) {
        ObjectNode problem = json.createObjectNode();
        problem.put("type", PROBLEM_TYPES + "result-not-storable");
        problem.put("detail", detail);
        return StoredResponse.of(PROBLEM, json.writeValueAsBytes(problem));
    }

    @Override
    public StoredResponse encode(MethodOutcome outcome) {
        return outcome.stored();
    }

    @Override
    public MethodOutcome decode(StoredResponse stored) {
        if (!stored.hasStatus()) {
            try {
                return new MethodOutcome.Returned(json.readValue(stored.body(), resultType), stored);
            } catch (JacksonException e) {
                throw unreadable("as " + resultType, e);
            }
        }
        JsonNode node;
        try {
            node = json.readTree(stored.body());
        } catch (JacksonException e) {
            throw unreadable("as an exception", e);
        }
        if (stored.status() != FINAL_EXCEPTION) {
            String type = node.path("type").asString("");
            return new MethodOutcome.Threw(new OutcomeNotReplayableException(type.startsWith(PROBLEM_TYPES)
                    ? type.substring(PROBLEM_TYPES.length()) : "outcome-unknown", node.path("detail").asString(
                            "The first call with this key ended without a result to replay")), stored);
        }
        // Only a declared type is ever built from what the store holds: a name is looked up, never loaded.
        Constructor<? extends Throwable> constructor = finalExceptions.get(node.path("type").asString(""));
        if (constructor == null) {
            throw new IllegalStateException("The stored final exception is not among the method's finalExceptions "
                    + "any more");
        }
        String message = node.path("message").isNull() ? null : node.path("message").asString(null);
        try {
            Throwable exception = constructor.getParameterCount() == 1 ? constructor.newInstance(message)
                    : constructor.newInstance();
            return new MethodOutcome.Threw(exception, stored);
        } catch (InstantiationException | IllegalAccessException | InvocationTargetException e) {
            throw unreadable("as " + constructor.getDeclaringClass().getName(), e);
        }
    }

    /** Without the parser's message: it quotes the stored JSON, which is the application's data. */
    private static IllegalStateException unreadable(String what, Throwable e) {
        return new IllegalStateException("The stored outcome of this call cannot be read " + what + " ("
                + e.getClass().getSimpleName() + "); was the type changed since it was stored?");
    }
}
