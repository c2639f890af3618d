package dev.onceonly.spring.boot.method;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Stores a method's result as JSON without a status, which always counts as a success, and a final exception as
 * JSON with status {@value #FINAL_EXCEPTION}, which the method's policy stores as final. Any other status is the
 * engine's own outcome for a key whose attempts ran out.
 */
final class MethodOutcomeCodec implements OutcomeCodec<MethodOutcome> {

    /** The status a final exception is stored with. */
    static final int FINAL_EXCEPTION = 422;

    /** Neither the stack trace nor the causes are stored: they say where the first call failed, not what. */
    @JsonIgnoreProperties({"stackTrace", "cause", "suppressed", "localizedMessage"})
    private interface StoredException {
    }

    private final JsonMapper json;
    private final JavaType resultType;
    private final List<Class<? extends Throwable>> finalExceptions;
    private final ClassLoader classLoader;

    MethodOutcomeCodec(JsonMapper json, JavaType resultType, List<Class<? extends Throwable>> finalExceptions,
            ClassLoader classLoader) {
        this.json = finalExceptions.isEmpty() ? json : json.rebuild().addMixIn(Throwable.class,
                StoredException.class).build();
        this.resultType = resultType;
        this.finalExceptions = List.copyOf(finalExceptions);
        this.classLoader = classLoader;
    }

    /** Whether {@code exception} is one of the final exceptions, stored rather than freeing the key. */
    boolean isFinal(Throwable exception) {
        return finalExceptions.stream().anyMatch(type -> type.isInstance(exception));
    }

    @Override
    public StoredResponse encode(MethodOutcome outcome) {
        return switch (outcome) {
            case MethodOutcome.Returned returned -> StoredResponse.result(json.writeValueAsBytes(returned.value()));
            case MethodOutcome.Threw threw -> {
                ObjectNode stored = json.createObjectNode();
                stored.put("type", threw.exception().getClass().getName());
                stored.set("exception", json.valueToTree(threw.exception()));
                yield StoredResponse.of(FINAL_EXCEPTION, json.writeValueAsBytes(stored));
            }
        };
    }

    @Override
    public MethodOutcome decode(StoredResponse stored) {
        if (!stored.hasStatus()) {
            try {
                return new MethodOutcome.Returned(json.readValue(stored.body(), resultType));
            } catch (JacksonException e) {
                throw unreadable("as " + resultType, e);
            }
        }
        if (stored.status() != FINAL_EXCEPTION) {
            return new MethodOutcome.Threw(new AttemptsExhaustedException());
        }
        JsonNode node;
        Class<?> type;
        try {
            node = json.readTree(stored.body());
            type = Class.forName(node.path("type").asString(), false, classLoader);
        } catch (JacksonException | ClassNotFoundException | LinkageError e) {
            throw unreadable("as an exception", e);
        }
        // Only a declared type is ever built from what the store holds.
        if (finalExceptions.stream().noneMatch(declared -> declared.isAssignableFrom(type))) {
            throw new IllegalStateException("The stored final exception " + type.getName() + " is not among the "
                    + "method's finalExceptions any more");
        }
        try {
            return new MethodOutcome.Threw((Throwable) json.treeToValue(node.path("exception"), type));
        } catch (JacksonException e) {
            throw unreadable("as " + type.getName(), e);
        }
    }

    /** Without the parser's message: it quotes the stored JSON, which is the application's data. */
    private static IllegalStateException unreadable(String what, Throwable e) {
        return new IllegalStateException("The stored outcome of this call cannot be read " + what + " ("
                + e.getClass().getSimpleName() + "); was the type changed since it was stored?");
    }
}
