package dev.onceonly.provider.web;

import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Installs {@link ConnectionDropValve} in the embedded Tomcat. */
@Configuration(proxyBeanMethods = false)
class TomcatConfiguration {

    @Bean
    WebServerFactoryCustomizer<TomcatServletWebServerFactory> connectionDropValve() {
        return factory -> factory.addContextValves(new ConnectionDropValve());
    }
}
