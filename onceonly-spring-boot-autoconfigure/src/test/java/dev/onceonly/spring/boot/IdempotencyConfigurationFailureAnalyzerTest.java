package dev.onceonly.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@ExtendWith(OutputCaptureExtension.class)
class IdempotencyConfigurationFailureAnalyzerTest {

    @Test
    void describesTheSettingAndSaysWhatToDo() {
        IdempotencyConfigurationException cause = IdempotencyConfigurationException.of("onceonly.mode",
                "transactional mode needs a TransactionRunner bean", "Set onceonly.mode=leased");

        FailureAnalysis analysis = new IdempotencyConfigurationFailureAnalyzer()
                .analyze(new BeanCreationException("idempotencyEngine", cause));

        assertThat(analysis.getDescription()).contains("'onceonly.mode'").contains("needs a TransactionRunner");
        assertThat(analysis.getAction()).isEqualTo("Set onceonly.mode=leased");
    }

    /** One property the engine builder refuses, one refused while the properties are bound. */
    @ParameterizedTest
    @CsvSource({"onceonly.wait-timeout=-1s, onceonly.wait-timeout",
        "onceonly.http.key-reused-status=418, onceonly.http.key-reused-status"})
    void aRefusedPropertyIsReportedWithDescriptionAndAction(String property, String name, CapturedOutput output) {
        SpringApplicationBuilder application = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties(property, "onceonly.mode=leased");

        assertThatThrownBy(application::run).isNotNull();

        assertThat(output).contains("Description:").contains("OnceOnly refused the setting '" + name + "'")
                .contains("Action:");
    }

    /**
     * Issue 41: without a transaction manager, auto fell back to leased mode and said nothing, and a handler that
     * failed after its insert left a row per retry. Now it refuses to start, and says which mode to choose and why.
     */
    @Test
    void autoWithoutATransactionRefusesToStartAndSaysWhichModeToChoose(CapturedOutput output) {
        SpringApplicationBuilder application = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE);

        assertThatThrownBy(application::run).isNotNull();

        assertThat(output).contains("OnceOnly refused the setting 'onceonly.mode'")
                .contains("will not fall back to leased mode silently").contains("Action:")
                .contains("define a TransactionRunner bean").contains("set onceonly.mode=leased");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(OnceOnlyAutoConfiguration.class)
    static class App {

        @Bean
        IdempotencyStore store() {
            return new InMemoryIdempotencyStore();
        }
    }
}
