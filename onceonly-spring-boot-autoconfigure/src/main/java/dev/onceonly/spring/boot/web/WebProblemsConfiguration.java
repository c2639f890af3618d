package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.http.ProblemCatalogue;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.ResponseSnapshots;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * What both transports answer and store by: the protocol's problems, written with the application's JSON mapper, and
 * what of a response is kept ({@code onceonly.http.*}).
 */
@Configuration(proxyBeanMethods = false)
class WebProblemsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ProblemResponses onceOnlyProblemResponses(OnceOnlyProperties properties, IdempotencyEngine engine,
            ObjectProvider<JsonMapper> json) {
        OnceOnlyProperties.Http http = properties.http();
        return new ProblemResponses(json.getIfAvailable(JsonMapper::new), new ProblemCatalogue(http.problemTypeBase(),
                http.keyReusedStatus(), engine.retryAfter(), http.authenticationChallenge()));
    }

    /** What of a response is stored and replayed, as {@code onceonly.http.*} says, for either transport. */
    @Bean
    ResponseSnapshots onceOnlyResponseSnapshots(OnceOnlyProperties properties) {
        OnceOnlyProperties.Http http = properties.http();
        return new ResponseSnapshots(http.replayHeaders(), http.redactedResponseFields(),
                http.maxResponseBody().toBytes());
    }
}
