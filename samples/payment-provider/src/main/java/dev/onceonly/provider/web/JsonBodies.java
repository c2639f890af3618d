package dev.onceonly.provider.web;

import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Reads request bodies as JSON objects by hand, so that every refusal is an {@code invalid-request} problem. */
public final class JsonBodies {

    private JsonBodies() {
    }

    /**
     * The body as a JSON object holding no fields beyond {@code allowedFields}.
     *
     * @throws ProviderProblemException {@code invalid-request} for no body, no JSON, no object or an unknown field
     */
    public static JsonNode readObject(byte @Nullable [] body, JsonMapper json, Set<String> allowedFields) {
        if (body == null || body.length == 0) {
            throw invalid("a JSON object is required");
        }
        JsonNode node;
        try {
            node = json.readTree(body);
        } catch (JacksonException notJson) {
            throw invalid("the body is not JSON");
        }
        if (node == null || !node.isObject()) {
            throw invalid("a JSON object is required");
        }
        for (String name : node.propertyNames()) {
            if (!allowedFields.contains(name)) {
                throw invalid("unknown field '" + name + "'");
            }
        }
        return node;
    }

    /** An {@code invalid-request} problem naming what is wrong (never echoing the body). */
    public static ProviderProblemException invalid(String detail) {
        return ProblemType.INVALID_REQUEST.exception(detail);
    }
}
