package dev.onceonly.provider.faults;

import dev.onceonly.provider.web.ProblemType;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Switches faults at runtime: {@code PUT} replaces the plan with
 * {@code {"latency":"PT2S","failures":["timeout","retryable","decline","drop-after-commit"]}} (both optional),
 * {@code DELETE} clears it and releases every answer held.
 */
@RestController
@RequestMapping("/admin/faults")
class FaultController {

    private final FaultPlan plan;
    private final Holds holds;
    private final JsonMapper json;

    FaultController(FaultPlan plan, Holds holds, JsonMapper json) {
        this.plan = plan;
        this.holds = holds;
        this.json = json;
    }

    @GetMapping
    FaultPlan.Faults current() {
        return plan.current();
    }

    @PutMapping
    FaultPlan.Faults replace(@RequestBody(required = false) byte @Nullable [] body) {
        JsonNode faults = readObject(body);
        for (String name : faults.propertyNames()) {
            if (!name.equals("latency") && !name.equals("failures")) {
                throw invalid("unknown field '" + name + "'");
            }
        }
        plan.replace(latency(faults.get("latency")), failures(faults.get("failures")));
        return plan.current();
    }

    @DeleteMapping
    FaultPlan.Faults clear() {
        plan.clear();
        holds.releaseAll();
        return plan.current();
    }

    private JsonNode readObject(byte @Nullable [] body) {
        if (body == null || body.length == 0) {
            throw invalid("a JSON object is required");
        }
        try {
            JsonNode node = json.readTree(body);
            if (node == null || !node.isObject()) {
                throw invalid("a JSON object is required");
            }
            return node;
        } catch (JacksonException notJson) {
            throw invalid("the body is not JSON");
        }
    }

    private static Duration latency(@Nullable JsonNode node) {
        if (node == null || node.isNull()) {
            return Duration.ZERO;
        }
        if (!node.isString()) {
            throw invalid("latency must be an ISO-8601 duration such as \"PT2S\"");
        }
        try {
            Duration latency = Duration.parse(node.stringValue());
            if (latency.isNegative()) {
                throw invalid("latency must not be negative");
            }
            return latency;
        } catch (DateTimeParseException notADuration) {
            throw invalid("latency must be an ISO-8601 duration such as \"PT2S\"");
        }
    }

    private static List<Failure> failures(@Nullable JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw invalid("failures must be an array");
        }
        List<Failure> failures = new ArrayList<>();
        for (JsonNode element : node) {
            failures.add(Failure.ofWireName(element.isString() ? element.stringValue() : "")
                    .orElseThrow(() -> invalid(
                            "failures may hold only \"timeout\", \"retryable\", \"decline\", \"drop-after-commit\"")));
        }
        return failures;
    }

    private static RuntimeException invalid(String detail) {
        return ProblemType.INVALID_REQUEST.exception(detail);
    }
}
