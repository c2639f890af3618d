package dev.onceonly.spring.boot.admin;

import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.RecordAdministration;
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

/**
 * {@code /actuator/onceonly}, for administrators only: every operation answers 401 to a request without a user and
 * 403 to a user without the administrators' role ({@code onceonly.admin.role}, checked as the servlet request's
 * {@code isUserInRole}: with Spring Security, the authority {@code ROLE_} + role), whatever else secures the path.
 * <ul>
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
 * administrator's name and reason.
 */
@WebEndpoint(id = "onceonly")
public class OnceOnlyEndpoint {

    static final int DEFAULT_LIMIT = 20;
    static final int MAX_REASON_LENGTH = 500;

    private final RecordAdministration records;
    private final String role;

    public OnceOnlyEndpoint(RecordAdministration records, String role) {
        this.records = records;
        this.role = role;
    }

    @ReadOperation
    public WebEndpointResponse<Object> records(SecurityContext security, String owner, String operation,
            @Nullable String key, @Nullable String storedKey, @Nullable Integer limit) {
        return asAdministrator(security, () -> {
            if (key == null && storedKey == null) {
                int count = limit == null ? DEFAULT_LIMIT : limit;
                if (count < 1 || count > RecordAdministration.MAX_LISTED) {
                    return error(WebEndpointResponse.STATUS_BAD_REQUEST, "limit must be between 1 and "
                            + RecordAdministration.MAX_LISTED);
                }
                List<RecordView> recent = records.recent(owner, operation, count).stream().map(RecordView::of)
                        .toList();
                return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("records", recent)));
            }
            Target target = target(owner, operation, key, storedKey);
            Optional<RecordView> found = target.records().find(target.scope()).map(RecordView::of);
            return found.<WebEndpointResponse<Object>>map(WebEndpointResponse::new)
                    .orElseGet(() -> error(WebEndpointResponse.STATUS_NOT_FOUND, "no record"));
        });
    }

    @DeleteOperation
    public WebEndpointResponse<Object> evict(SecurityContext security, String owner, String operation,
            @Nullable String key, @Nullable String storedKey, String reason) {
        return asAdministrator(security, () -> {
            Target target = target(owner, operation, key, storedKey);
            RecordAdministration.Eviction eviction = target.records().evict(target.scope(),
                    attributed(security, reason));
            return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("found", eviction.found(),
                    "cachesCleared", eviction.cachesCleared())),
                    eviction.found() ? WebEndpointResponse.STATUS_OK : WebEndpointResponse.STATUS_NOT_FOUND);
        });
    }

    @WriteOperation
    public WebEndpointResponse<Object> release(SecurityContext security, String owner, String operation,
            @Nullable String key, @Nullable String storedKey, String reason) {
        return asAdministrator(security, () -> {
            Target target = target(owner, operation, key, storedKey);
            RecordAdministration.Released released = target.records().release(target.scope(),
                    attributed(security, reason));
            int status = switch (released) {
                case RELEASED -> WebEndpointResponse.STATUS_OK;
                case NOT_FOUND -> WebEndpointResponse.STATUS_NOT_FOUND;
                case NOT_PROCESSING, CHANGED -> 409;
            };
            return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("result", released.name())), status);
        });
    }

    /** Runs {@code operation} for an administrator only; bad input is 400 and an unreachable store 503. */
    private WebEndpointResponse<Object> asAdministrator(SecurityContext security,
            Supplier<WebEndpointResponse<Object>> operation) {
        if (security.getPrincipal() == null) {
            return error(401, "authentication required");
        }
        if (!security.isUserInRole(role)) {
            return error(403, "the role " + role + " is required");
        }
        try {
            return operation.get();
        } catch (IdempotencyStoreException e) {
            return error(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE, "the idempotency store is unavailable");
        } catch (InvalidInput | IdempotencyException | IllegalArgumentException e) {
            return error(WebEndpointResponse.STATUS_BAD_REQUEST, e.getMessage());
        } catch (UnsupportedOperationException e) {
            return error(501, "the idempotency store does not support this");
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

    private static WebEndpointResponse<Object> error(int status, @Nullable String message) {
        return new WebEndpointResponse<>(OperationResponseBody.of(Map.of("status", status, "error",
                message == null ? "invalid request" : message)), status);
    }

    /** Input the endpoint refuses with 400. */
    private static final class InvalidInput extends RuntimeException {
        InvalidInput(String message) {
            super(message, null, false, false);
        }
    }
}
