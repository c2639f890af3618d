package dev.onceonly.example.security;

import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.userdetails.User;

/** An authenticated user and the tenant it belongs to. */
public final class TenantUser extends User {

    private final String tenant;

    public TenantUser(String username, String password, String tenant) {
        this(username, password, tenant, List.of());
    }

    /** A user with {@code roles} beyond USER. */
    public TenantUser(String username, String password, String tenant, List<String> roles) {
        super(username, password, Stream.concat(Stream.of("USER"), roles.stream())
                .map(role -> new SimpleGrantedAuthority("ROLE_" + role)).toList());
        this.tenant = tenant;
    }

    public String tenant() {
        return tenant;
    }

    /** The roles beyond USER, without the ROLE_ prefix. */
    public List<String> roles() {
        List<String> roles = new ArrayList<>();
        for (GrantedAuthority authority : getAuthorities()) {
            String name = authority.getAuthority();
            if (name != null && name.startsWith("ROLE_") && !name.equals("ROLE_USER")) {
                roles.add(name.substring("ROLE_".length()));
            }
        }
        return List.copyOf(roles);
    }

    /**
     * The owner of this user's idempotency keys and orders: tenant and user, never chosen by the client, encoded
     * so that no other tenant and user read alike (as {@code tenant + "/" + user} would, with a {@code /} in a name).
     */
    public String owner() {
        return IdempotencyOwnerResolver.qualified(tenant, getUsername());
    }
}
