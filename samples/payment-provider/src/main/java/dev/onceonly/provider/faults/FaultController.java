package dev.onceonly.provider.faults;

import dev.onceonly.provider.web.JsonBodies;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
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

    private static final Set<String> FIELDS = Set.of("latency", "failures");

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
        JsonNode faults = JsonBodies.readObject(body, json, FIELDS);
        plan.replace(latency(faults.get("latency")), failures(faults.get("failures")));
        return plan.current();
    }

    @DeleteMapping
    FaultPlan.Faults clear() {
        plan.clear();
        holds.releaseAll();
        return plan.current();
    }

    private static Duration latency(@Nullable JsonNode node) {
        if (node == null || node.isNull()) {
            return Duration.ZERO;
        }
        if (!node.isString()) {
            throw JsonBodies.invalid("latency must be an ISO-8601 duration such as \"PT2S\"");
        }
        try {
            Duration latency = Duration.parse(node.stringValue());
            if (latency.isNegative()) {
                throw JsonBodies.invalid("latency must not be negative");
            }
            return latency;
        } catch (DateTimeParseException notADuration) {
            throw JsonBodies.invalid("latency must be an ISO-8601 duration such as \"PT2S\"");
        }
    }

    private static List<Failure> failures(@Nullable JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw JsonBodies.invalid("failures must be an array");
        }
        List<Failure> failures = new ArrayList<>();
        for (JsonNode element : node) {
            failures.add(Failure.ofWireName(element.isString() ? element.stringValue() : "")
                    .orElseThrow(() -> JsonBodies.invalid(
                            "failures may hold only \"timeout\", \"retryable\", \"decline\", \"drop-after-commit\"")));
        }
        return failures;
    }
}
