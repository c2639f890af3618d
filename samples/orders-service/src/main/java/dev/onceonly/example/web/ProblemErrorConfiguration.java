package dev.onceonly.example.web;

import org.apache.catalina.Pipeline;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every 4xx this service answers is a problem, also where no handler runs: the error page is
 * {@link ProblemErrorController}, and Tomcat's own error report is {@link ProblemErrorReportValve}.
 */
@Configuration(proxyBeanMethods = false)
class ProblemErrorConfiguration {

    @Bean
    ProblemErrorReports problemErrorReports(JsonMapper json) {
        return new ProblemErrorReports(json.rebuild().addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class)
                .build());
    }

    /** Replaces the HTML error report valve that Boot's own customizer installs, so it runs after that one. */
    static final class ProblemErrorReports implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>,
            Ordered {

        private final JsonMapper json;

        ProblemErrorReports(JsonMapper json) {
            this.json = json;
        }

        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            factory.addContextCustomizers(context -> {
                StandardHost host = (StandardHost) context.getParent();
                Pipeline pipeline = host.getPipeline();
                for (Valve valve : pipeline.getValves()) {
                    if (valve instanceof ErrorReportValve) {
                        pipeline.removeValve(valve);
                    }
                }
                pipeline.addValve(new ProblemErrorReportValve(json));
                // Else the host adds its default HTML valve when it starts.
                host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
            });
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
