package dev.onceonly.example.security;

import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The demo users ({@code example.users.<name>.password}, {@code .tenant}). For a demo only: a real service takes
 * its users from an identity provider.
 *
 * @param users user name to password and tenant
 */
@ConfigurationProperties("example")
public record DemoUsersProperties(Map<String, DemoUser> users) {

    public DemoUsersProperties {
        if (users == null || users.isEmpty()) {
            throw new IllegalArgumentException("example.users must define at least one user");
        }
        users = Map.copyOf(users);
    }

    /**
     * @param password the password, with a Spring Security encoding prefix such as {@code {noop}} or
     *     {@code {bcrypt}}
     * @param tenant the tenant the user belongs to
     * @param roles roles beyond USER, such as ONCEONLY_ADMIN (the administrators' Actuator endpoint)
     */
    public record DemoUser(String password, String tenant, List<String> roles) {

        public DemoUser {
            if (password == null || password.isBlank() || tenant == null || tenant.isBlank()) {
                throw new IllegalArgumentException("every example.users entry needs a password and a tenant");
            }
            roles = roles == null ? List.of() : List.copyOf(roles);
        }
    }
}
