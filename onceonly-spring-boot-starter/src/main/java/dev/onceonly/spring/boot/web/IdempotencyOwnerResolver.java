package dev.onceonly.spring.boot.web;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Who sent a request: the owner part of every key's scope. Keys of different owners never meet, so the owner
 * must come from authentication (principal, tenant), never from anything the client chooses freely.
 */
@FunctionalInterface
public interface IdempotencyOwnerResolver {

    /** The owner used when a request is not authenticated; all anonymous clients share it. */
    String ANONYMOUS = "anonymous";

    /** Returns the owner of {@code request}, at most 255 characters. */
    String resolveOwner(HttpServletRequest request);

    /** The authenticated principal's name as the servlet container knows it, else {@link #ANONYMOUS}. */
    static IdempotencyOwnerResolver principal() {
        return request -> request.getUserPrincipal() == null ? ANONYMOUS : request.getUserPrincipal().getName();
    }
}
