package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** The protocol's problems, one set for every transport, written with the application's JSON mapper. */
@Configuration(proxyBeanMethods = false)
class WebProblemsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ProblemResponses onceOnlyProblemResponses(OnceOnlyProperties properties, IdempotencyEngine engine,
            ObjectProvider<JsonMapper> json) {
        return ProblemResponses.of(properties, engine, json);
    }
}
