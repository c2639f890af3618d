package dev.onceonly.example.security;

import dev.onceonly.spring.boot.web.IdempotencyOwnerResolver;
import java.util.List;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.userdetails.User;

/** An authenticated user and the tenant it belongs to. */
public final class TenantUser extends User {

    private final String tenant;

    public TenantUser(String username, String password, String tenant) {
        super(username, password, List.of(new SimpleGrantedAuthority("ROLE_USER")));
        this.tenant = tenant;
    }

    public String tenant() {
        return tenant;
    }

    /**
     * The owner of this user's idempotency keys and orders: tenant and user, never chosen by the client, encoded
     * so that no other tenant and user read alike (as {@code tenant + "/" + user} would, with a {@code /} in a name).
     */
    public String owner() {
        return IdempotencyOwnerResolver.qualified(tenant, getUsername());
    }
}
