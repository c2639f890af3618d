package dev.onceonly.spring.violations;

import dev.onceonly.spring.boot.OnceOnlyProperties;
import org.springframework.boot.SpringApplication;

/** A class of onceonly-spring's packages that reaches into Spring Boot and OnceOnly's auto-configuration. */
public final class UsesBoot {
    SpringApplication application;
    OnceOnlyProperties properties;
}
