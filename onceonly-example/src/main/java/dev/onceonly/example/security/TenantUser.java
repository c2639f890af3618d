package dev.onceonly.example.security;

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

    /** The owner of this user's idempotency keys and orders: tenant and user, never chosen by the client. */
    public String owner() {
        return tenant + "/" + getUsername();
    }
}
