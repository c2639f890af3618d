package dev.onceonly.spring.web;

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

    /**
     * An owner made of a qualifier (a tenant, an issuer) and a name within it, in a form where no two pairs, and
     * no pair and plain name, read alike: {@code %} and spaces in both parts are percent-encoded and the parts
     * joined by one space. So {@code qualified("acme", "alice")} is {@code acme alice}, and a principal called
     * {@code acme alice} (a plain name, given through {@link #name(String)}) is {@code acme%20alice}.
     */
    static String qualified(String qualifier, String name) {
        return name(qualifier) + " " + name(name);
    }

    /**
     * A plain name as an owner beside {@link #qualified qualified} ones: {@code %} and spaces percent-encoded, so
     * it never contains the space that every qualified owner contains.
     */
    static String name(String name) {
        return name.replace("%", "%25").replace(" ", "%20");
    }

    /** The authenticated principal's name as the servlet container knows it, or {@code null} if there is none. */
    static IdempotencyOwnerResolver principal() {
        return request -> request.getUserPrincipal() == null ? null : request.getUserPrincipal().getName();
    }
}
