package dev.onceonly.webfluxtwin;

import dev.onceonly.example.orders.OrderNumbers;
import dev.onceonly.example.orders.OrderService;
import dev.onceonly.example.security.DemoUsersProperties;
import dev.onceonly.example.security.TenantUser;
import dev.onceonly.spring.web.ReactiveIdempotencyOwnerResolver;
import java.time.Clock;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.FilterType;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.userdetails.ReactiveUserDetailsService;
import org.springframework.security.web.server.SecurityWebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The reference service's orders API on WebFlux (Reactor Netty): its own order service, users and tables, with a
 * reactive controller and reactive security in place of Spring MVC's. Tests only: it shows that the HTTP contract
 * holds on WebFlux too.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableConfigurationProperties(DemoUsersProperties.class)
@ComponentScan(basePackageClasses = OrderService.class, useDefaultFilters = false, includeFilters =
        @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = {OrderService.class, OrderNumbers.class}))
public class ReactiveOrdersApplication {

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    @Bean
    ReactiveOrderController reactiveOrderController(OrderService orders) {
        return new ReactiveOrderController(orders);
    }

    @Bean
    SecurityWebFilterChain api(ServerHttpSecurity http) {
        return http
                .authorizeExchange(exchanges -> exchanges
                        .pathMatchers("/actuator/health").permitAll()
                        .pathMatchers(HttpMethod.GET, "/probe/event-loop").permitAll()
                        .anyExchange().authenticated())
                .httpBasic(basic -> { })
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .build();
    }

    @Bean
    ReactiveUserDetailsService demoUsers(DemoUsersProperties properties) {
        Map<String, TenantUser> users = properties.users().entrySet().stream().collect(Collectors.toUnmodifiableMap(
                Map.Entry::getKey, entry -> new TenantUser(entry.getKey(), entry.getValue().password(),
                        entry.getValue().tenant(), entry.getValue().roles())));
        return username -> Mono.justOrEmpty(users.get(username)).map(user ->
                // A copy: Spring Security erases the credentials of the instance it authenticated.
                new TenantUser(user.getUsername(), user.getPassword(), user.tenant(), user.roles()));
    }

    /** Keys belong to tenant and user, as in the servlet service. */
    @Bean
    ReactiveIdempotencyOwnerResolver idempotencyOwnerResolver() {
        return exchange -> ReactiveSecurityContextHolder.getContext()
                .mapNotNull(context -> context.getAuthentication() != null
                        && context.getAuthentication().getPrincipal() instanceof TenantUser user ? user.owner() : null);
    }
}
