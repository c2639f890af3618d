package dev.onceonly.spring.boot.admin;

import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.RecordAdministration;
import dev.onceonly.spring.OnceOnlySetup;
import java.net.URI;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.http.HttpStatus;
import org.springframework.util.MimeType;

/**
 * {@code /actuator/onceonly}, for administrators only: every operation answers 401 to a request without a user and
 * 403 to a user without the administrators' role ({@code onceonly.admin.role}, checked as the servlet request's
 * {@code isUserInRole}: with Spring Security, the authority {@code ROLE_} + role), whatever else secures the path.
 * <ul>
 *   <li>{@code GET} without parameters: the setup as {@link OnceOnlySetup} says it at startup (store, default mode,
 *       the mode of every endpoint and method, Redis, encryption);</li>
 *   <li>{@code GET ?owner=&operation=&key=}: one record, looked up by the key the client sent (digested first
 *       where only digests are stored), or by {@code storedKey=} instead, the key as stored (a digest the listing
 *       shows); without either, the owner's most recent records of the operation ({@code limit}, default 20, at
 *       most {@value RecordAdministration#MAX_LISTED});</li>
 *   <li>{@code DELETE ?owner=&operation=&key=&reason=} (or {@code storedKey=}): evicts the record, from the store, this instance's memory and
 *       Redis, so that the key runs again as new;</li>
 *   <li>{@code POST {"owner","operation","key","reason"}} (or {@code "storedKey"}): releases a record stuck in PROCESSING, so that the next
 *       request with its key runs.</li>
 * </ul>
 * Records are shown without their stored body or headers ({@link RecordView}). Every change is logged with the
 * administrator's name and reason. Refusals are {@code application/problem+json} with stable types.
 */
@WebEndpoint(id = "onceonly")
public class OnceOnlyEndpoint {

    static final int DEFAULT_LIMIT = 20;
    static final int MAX_REASON_LENGTH = 500;
    private static final MimeType PROBLEM_JSON = MimeType.valueOf("application/problem+json");

    private final RecordAdministration records;
    private final OnceOnlySetup setup;
    private final String role;
    private final URI problemTypeBase;

    /**
     * @param problemTypeBase the base of the problem types, as the HTTP protocol's ({@code
     *     onceonly.http.problem-type-base})
     */
    public OnceOnlyEndpoint(RecordAdministration records, OnceOnlySetup setup, String role, URI problemTypeBase) {
        this.records = records;
        this.setup = setup;
        this.role = role;
        this.problemTypeBase = problemTypeBase;
    }

    @ReadOperation
    public WebEndpointResponse<Object> records(SecurityContext security, @Nullable String owner,
            @Nullable String operation, @Nullable String key, @Nullable String storedKey, @Nullable Integer limit) {
        return asAdministrator(security, () -> {
            if (owner == null && operation == null && key == null && storedKey == null && limit == null) {
                return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("setup", setup.view())));
            }
            if (owner == null || operation == null) {
                throw new InvalidInput("give owner and operation, or no parameter for the setup");
            }
            if (key == null && storedKey == null) {
                int count = limit == null ? DEFAULT_LIMIT : limit;
                if (count < 1 || count > RecordAdministration.MAX_LISTED) {
                    throw new InvalidInput("limit must be between 1 and " + RecordAdministration.MAX_LISTED);
                }
                List<RecordView> recent = records.recent(owner, operation, count).stream().map(RecordView::of)
                        .toList();
                return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("records", recent)));
            }
            Target target = target(owner, operation, key, storedKey);
            Optional<RecordView> found = target.records().find(target.scope()).map(RecordView::of);
            return found.<WebEndpointResponse<Object>>map(WebEndpointResponse::new)
                    .orElseGet(() -> problem(WebEndpointResponse.STATUS_NOT_FOUND, "record-not-found",
                            "no record of this owner, operation and key"));
        });
    }

    @DeleteOperation
    public WebEndpointResponse<Object> evict(SecurityContext security, String owner, String operation,
            @Nullable String key, @Nullable String storedKey, String reason) {
        return changing(security, owner, operation, key, storedKey, reason, (administration, scope, why) -> {
            RecordAdministration.Eviction eviction = administration.evict(scope, why);
            return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("found", eviction.found(),
                    "cachesCleared", eviction.cachesCleared())),
                    eviction.found() ? WebEndpointResponse.STATUS_OK : WebEndpointResponse.STATUS_NOT_FOUND);
        });
    }

    @WriteOperation
    public WebEndpointResponse<Object> release(SecurityContext security, String owner, String operation,
            @Nullable String key, @Nullable String storedKey, String reason) {
        return changing(security, owner, operation, key, storedKey, reason, (administration, scope, why) -> {
            RecordAdministration.Released released = administration.release(scope, why);
            int status = switch (released) {
                case RELEASED -> WebEndpointResponse.STATUS_OK;
                case NOT_FOUND -> WebEndpointResponse.STATUS_NOT_FOUND;
                case NOT_PROCESSING, CHANGED -> 409;
            };
            return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("result", released.name())), status);
        });
    }

    /** A change to one record, with the administrator's name and reason for the log. */
    @FunctionalInterface
    private interface Change {
        WebEndpointResponse<Object> apply(RecordAdministration administration, IdempotencyScope scope,
                String reason);
    }

    private WebEndpointResponse<Object> changing(SecurityContext security, String owner, String operation,
            @Nullable String key, @Nullable String storedKey, String reason, Change change) {
        return asAdministrator(security, () -> {
            Target target = target(owner, operation, key, storedKey);
            return change.apply(target.records(), target.scope(), attributed(security, reason));
        });
    }

    /**
     * Runs {@code operation} for an administrator only. Refusals are problem details with stable types: 401
     * {@code authentication-required}, 403 {@code administrator-role-required}, 400 {@code invalid-admin-request},
     * 503 {@code idempotency-store-unavailable}, 501 {@code not-supported-by-store}.
     */
    private WebEndpointResponse<Object> asAdministrator(SecurityContext security,
            Supplier<WebEndpointResponse<Object>> operation) {
        if (security.getPrincipal() == null) {
            return problem(401, "authentication-required", "an administrator's login is required");
        }
        if (!security.isUserInRole(role)) {
            return problem(403, "administrator-role-required", "the role " + role + " is required");
        }
        try {
            return operation.get();
        } catch (IdempotencyStoreException e) {
            return problem(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE, "idempotency-store-unavailable",
                    "the idempotency store is unavailable");
        } catch (InvalidInput | IdempotencyException | IllegalArgumentException e) {
            return problem(WebEndpointResponse.STATUS_BAD_REQUEST, "invalid-admin-request", e.getMessage());
        } catch (UnsupportedOperationException e) {
            return problem(501, "not-supported-by-store", "the idempotency store does not support this");
        }
    }

    /** The record named by the client's key, or by the key as stored; exactly one of them. */
    private Target target(String owner, String operation, @Nullable String key, @Nullable String storedKey) {
        if ((key == null) == (storedKey == null)) {
            throw new InvalidInput("give either key (as the client sent it) or storedKey (as the store holds it)");
        }
        return key != null ? new Target(records, new IdempotencyScope(owner, operation, new IdempotencyKey(key)))
                : new Target(records.forStoredKeys(), new IdempotencyScope(owner, operation,
                        new IdempotencyKey(Objects.requireNonNull(storedKey))));
    }

    private record Target(RecordAdministration records, IdempotencyScope scope) {
    }

    private static String attributed(SecurityContext security, String reason) {
        if (reason.isBlank() || reason.length() > MAX_REASON_LENGTH) {
            throw new InvalidInput("reason must be 1 to " + MAX_REASON_LENGTH + " characters");
        }
        Principal principal = security.getPrincipal();
        return "by " + (principal == null ? "?" : principal.getName()) + ": " + reason;
    }

    private WebEndpointResponse<Object> problem(int status, String type, @Nullable String detail) {
        return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("type", problemTypeBase.resolve(type)
                .toString(), "title", HttpStatus.valueOf(status).getReasonPhrase(), "status", status, "detail",
                detail == null ? "invalid request" : detail)), status, PROBLEM_JSON);
    }

    /** Input the endpoint refuses with 400. */
    private static final class InvalidInput extends RuntimeException {
        InvalidInput(String message) {
            super(message, null, false, false);
        }
    }
}
