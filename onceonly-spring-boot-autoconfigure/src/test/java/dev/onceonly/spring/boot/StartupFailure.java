package dev.onceonly.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.core.NestedExceptionUtils;

/** Assertions on why a context runner's context failed to start. */
public final class StartupFailure {

    private StartupFailure() {
    }

    /** The most specific cause of the context's startup failure; fails if it started. */
    public static AbstractThrowableAssert<?, ? extends Throwable> assertStartupFailure(
            ApplicationContextAssertProvider<?> context) {
        return assertThat(context).hasFailed().getFailure().extracting(NestedExceptionUtils::getMostSpecificCause)
                .asInstanceOf(InstanceOfAssertFactories.THROWABLE);
    }
}
