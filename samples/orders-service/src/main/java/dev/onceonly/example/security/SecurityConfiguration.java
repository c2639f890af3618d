package dev.onceonly.example.security;

import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.core.userdetails.UsernameNotFoundException;
import org.springframework.security.web.SecurityFilterChain;

/**
 * HTTP Basic for the API, stateless (no session, no CSRF token: clients send credentials with every request).
 * The API docs and health are open, and so is the payment provider's webhook: no user sends it, and its
 * signature, checked by the webhook itself, is what authenticates it.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

    @Bean
    SecurityFilterChain api(HttpSecurity http) throws Exception {
        return http
                .authorizeHttpRequests(requests -> requests
                        .requestMatchers("/v3/api-docs/**", "/swagger-ui/**", "/swagger-ui.html",
                                "/actuator/health", "/error", "/checkout.html", "/checkout.js", "/checkout.css").permitAll()
                        .requestMatchers(HttpMethod.POST, "/api/webhooks/payments").permitAll()
                        .anyRequest().authenticated())
                .httpBasic(basic -> { })
                .csrf(csrf -> csrf.disable())
                .sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .build();
    }

    @Bean
    UserDetailsService demoUsers(DemoUsersProperties properties) {
        Map<String, TenantUser> users = properties.users().entrySet().stream().collect(Collectors.toUnmodifiableMap(
                Map.Entry::getKey,
                entry -> new TenantUser(entry.getKey(), entry.getValue().password(), entry.getValue().tenant(),
                        entry.getValue().roles())));
        return username -> {
            TenantUser user = users.get(username);
            if (user == null) {
                throw new UsernameNotFoundException("unknown user");
            }
            // A copy: Spring Security erases the credentials of the instance it authenticated.
            return new TenantUser(user.getUsername(), Objects.requireNonNull(user.getPassword(), "password"),
                    user.tenant(), user.roles());
        };
    }

    /**
     * Keys belong to tenant and user, so the same key of two users, or of two tenants, never meets; requests that
     * are not authenticated as a tenant user have no owner.
     */
    @Bean
    IdempotencyOwnerResolver idempotencyOwnerResolver() {
        return request -> SecurityContextHolder.getContext().getAuthentication() instanceof Authentication user
                && user.getPrincipal() instanceof TenantUser tenantUser ? tenantUser.owner() : null;
    }

    /** The owner of the authenticated request. */
    public static String owner(Authentication authentication) {
        return tenantUser(authentication).owner();
    }

    /** The tenant of the authenticated request, which owns accounts. */
    public static String tenant(Authentication authentication) {
        return tenantUser(authentication).tenant();
    }

    private static TenantUser tenantUser(Authentication authentication) {
        if (authentication != null && authentication.getPrincipal() instanceof TenantUser user) {
            return user;
        }
        throw new IllegalStateException("the API is only served to authenticated tenant users");
    }
}
