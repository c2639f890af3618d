package dev.onceonly.spring.boot.web;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Who sent a request: the owner part of every key's scope. Keys of different owners never meet, so the owner
 * must come from authentication (principal and tenant), never from anything the client chooses freely.
 *
 * <p>Anonymous requests all share one owner that no authenticated owner can equal, so a principal that happens
 * to be called {@code anonymous} never sees their keys. A resolver that throws, or answers a blank owner or one
 * longer than 255 characters, gets the request refused with 403 {@code owner-unresolvable}.
 */
@FunctionalInterface
public interface IdempotencyOwnerResolver {

    /**
     * Returns the owner of {@code request}: 1 to 255 characters, the same for every request of one principal
     * (within its tenant), or {@code null} if the request is not authenticated.
     */
    @Nullable String resolveOwner(HttpServletRequest request);

    /** The authenticated principal's name as the servlet container knows it, or {@code null} if there is none. */
    static IdempotencyOwnerResolver principal() {
        return request -> request.getUserPrincipal() == null ? null : request.getUserPrincipal().getName();
    }
}
