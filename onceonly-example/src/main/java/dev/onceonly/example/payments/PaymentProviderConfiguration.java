package dev.onceonly.example.payments;

import java.net.http.HttpClient;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

/** The {@link PaymentProvider} client, with its HTTP client built once from {@code example.payments.*}. */
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
        RestClient client = RestClient.builder()
                .baseUrl(properties.providerUrl().toString())
                .requestFactory(requests)
                .build();
        return new PaymentProvider(client, json);
    }
}
