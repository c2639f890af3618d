package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A WebFlux application has neither the servlet API nor Spring MVC: every class its idempotency path loads must load
 * and link without them. {@code FilteredClassLoader} cannot show this (it hides classes from conditions, not from the
 * JVM), so the classes are loaded here by a class loader whose class path has neither jar.
 */
class WebFluxWithoutServletApiTest {

    /** Beans, whose methods Spring reflects on: every type in their signatures must load too. */
    private static final String AUTOCONFIGURE = "dev.onceonly.spring.boot.web.";
    private static final String SPRING = "dev.onceonly.spring.web.";

    /** Beans, whose methods Spring reflects on: every type in their signatures must load too. */
    private static final List<String> BEANS = List.of(AUTOCONFIGURE + "OnceOnlyWebFluxAutoConfiguration",
            AUTOCONFIGURE + "WebProblemsConfiguration", SPRING + "ReactiveIdempotencyKeyFilter",
            SPRING + "ReactiveIdempotentEndpoints", SPRING + "ReactiveIdempotencyOwnerResolver",
            SPRING + "ReactiveAttemptArgumentResolver", SPRING + "ReactiveCallerProblemHandler",
            SPRING + "ProblemResponses");
    private static final List<String> REACTIVE_PATH = Stream.of("HeldBackResponse", "ReplayedBodyRequest",
            "ConfiguredEndpoints", "AnnotatedEndpoints", "EndpointMatch", "IdempotentEndpoint", "ProblemResponses",
            "ResponseSnapshots", "RequestEncoding", "ConcretePath", "QueryString", "RequestOwners",
            "SecurityOwnerResolver", "JsonRedaction", "IdempotencyProtocol", "IdempotencyListener",
            "IdempotencyOwnerResolver", "Idempotent", "PathEndpoint").map(name -> SPRING + name).toList();

    @Test
    void theReactivePathLinksWithoutTheServletApiOrSpringMvc() throws Exception {
        try (URLClassLoader reactiveOnly = new URLClassLoader(classPathWithout("jakarta.servlet", "spring-webmvc",
                "tomcat"), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> Class.forName("jakarta.servlet.ServletException", false, reactiveOnly))
                    .isInstanceOf(ClassNotFoundException.class);
            for (String name : BEANS) {
                assertThat(load(name, reactiveOnly).getDeclaredMethods()).as(name).isNotEmpty();
            }
            for (String name : REACTIVE_PATH) {
                load(name, reactiveOnly);
            }
        }
    }

    /** Initialising links the class, and linking verifies it: a servlet type its code needs fails here. */
    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, true, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new AssertionError(name + " does not load without the servlet API: " + e, e);
        }
    }

    private static URL[] classPathWithout(String... excluded) {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> Arrays.stream(excluded).noneMatch(entry::contains))
                .map(entry -> {
                    try {
                        return new File(entry).toURI().toURL();
                    } catch (java.net.MalformedURLException e) {
                        throw new IllegalStateException(e);
                    }
                }).toArray(URL[]::new);
    }
}
