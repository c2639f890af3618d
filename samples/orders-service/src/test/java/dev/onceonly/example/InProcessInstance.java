package dev.onceonly.example;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import net.ttddyy.dsproxy.support.ProxyDataSourceBuilder;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One instance of the reference service in this JVM, on a random port, whose data source counts the statements
 * that touch the idempotency records or the orders: for tests of several instances sharing a database and a
 * Redis, that look inside each (statements, metrics).
 */
final class InProcessInstance implements AutoCloseable {

    private static final Pattern RECORDS_OR_ORDERS = Pattern.compile("(?i)\\b(onceonly_record|orders)\\b");

    private final ConfigurableApplicationContext context;
    private final AtomicLong statements;

    private InProcessInstance(ConfigurableApplicationContext context, AtomicLong statements) {
        this.context = context;
        this.statements = statements;
    }

    static InProcessInstance start(String name, Map<String, Object> properties) {
        AtomicLong statements = new AtomicLong();
        Map<String, Object> all = new HashMap<>(properties);
        all.put("server.port", 0);
        all.put("spring.application.name", name);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(OnceOnlyExampleApplication.class)
                .properties(all)
                .initializers(started -> started.getBeanFactory().addBeanPostProcessor(countingStatements(statements)))
                .run();
        return new InProcessInstance(context, statements);
    }

    int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /** Statements this instance has sent that name the record table or the orders table. */
    long statements() {
        return statements.get();
    }

    @Override
    public void close() {
        context.close();
    }

    private static BeanPostProcessor countingStatements(AtomicLong statements) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (!(bean instanceof DataSource dataSource)) {
                    return bean;
                }
                return ProxyDataSourceBuilder.create(dataSource).name(beanName)
                        .afterQuery((execution, queries) -> queries.stream()
                                .filter(query -> RECORDS_OR_ORDERS.matcher(query.getQuery()).find())
                                .forEach(query -> statements.incrementAndGet()))
                        .build();
            }
        };
    }
}
