package dev.onceonly.example.payments;

import dev.onceonly.client.IdempotencyKeyInterceptor;
import dev.onceonly.client.ClientRetryPolicy;
import java.net.http.HttpClient;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link PaymentProvider} client, with its HTTP client built once from {@code example.payments.*}, retrying
 * through onceonly-client.
 */
@Configuration(proxyBeanMethods = false)
class PaymentProviderConfiguration {

    @Bean
    PaymentProvider paymentProvider(PaymentsProperties properties, JsonMapper json) {
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(properties.providerConnectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(http);
        requests.setReadTimeout(properties.providerReadTimeout());
        // Retries inside one payment attempt keep its key, so the provider answers a retry of a charge it made
        // (a dropped connection, a timeout) with that charge. The deadline leaves room for every attempt to time out.
        ClientRetryPolicy retries = ClientRetryPolicy.builder().maxAttempts(properties.providerAttempts())
                .deadline(properties.providerReadTimeout().plus(properties.providerConnectTimeout())
                        .multipliedBy(properties.providerAttempts()))
                .build();
        RestClient client = RestClient.builder()
                .baseUrl(properties.providerUrl().toString())
                .requestFactory(requests)
                .requestInterceptor(new IdempotencyKeyInterceptor(retries))
                .build();
        return new PaymentProvider(client, json);
    }
}
