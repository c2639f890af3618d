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

    private static final String AUTOCONFIGURE = "dev.onceonly.spring.boot.web.";
    private static final String SPRING = "dev.onceonly.spring.web.";
    private static final String REACTIVE = SPRING + "reactive.";
    private static final String INTERNAL = SPRING + "internal.";

    /** Beans, whose methods Spring reflects on: every type in their signatures must load too. */
    private static final List<String> BEANS = List.of(AUTOCONFIGURE + "OnceOnlyWebFluxAutoConfiguration",
            AUTOCONFIGURE + "WebProblemsConfiguration", REACTIVE + "ReactiveIdempotencyKeyFilter",
            REACTIVE + "ReactiveIdempotentEndpoints", SPRING + "ReactiveIdempotencyOwnerResolver",
            REACTIVE + "ReactiveAttemptArgumentResolver", REACTIVE + "ReactiveCallerProblemHandler",
            SPRING + "ProblemResponses");
    private static final List<String> REACTIVE_PATH = Stream.of(
            Stream.of("HeldBackResponse", "ReplayedBodyRequest").map(name -> REACTIVE + name),
            Stream.of("ConfiguredEndpoints", "AnnotatedEndpoints", "EndpointCatalog", "EndpointMatch",
                    "IdempotentEndpoint", "RequestEncoding", "ConcretePath", "QueryString", "JsonRedaction",
                    "IdempotencyProtocol").map(name -> INTERNAL + name),
            Stream.of("ProblemResponses", "ResponseSnapshots", "SecurityOwnerResolver", "IdempotencyListener",
                    "IdempotencyOwnerResolver", "Idempotent", "PathEndpoint").map(name -> SPRING + name))
            .flatMap(names -> names).toList();

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
