package dev.onceonly.provider.webhooks;

import dev.onceonly.provider.ProviderProperties;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** The webhook sender and what it runs on: a virtual thread per event, closed (interrupted) on shutdown. */
@Configuration(proxyBeanMethods = false)
class WebhookConfiguration {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    @Bean(destroyMethod = "shutdownNow")
    ExecutorService webhookExecutor() {
        return Executors.newVirtualThreadPerTaskExecutor();
    }

    @Bean
    Webhooks webhooks(ProviderProperties properties, ExecutorService webhookExecutor, Clock clock, JsonMapper json) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).executor(webhookExecutor).build();
        return new Webhooks(properties, http, webhookExecutor, clock, json);
    }
}
