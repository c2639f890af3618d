package dev.onceonly.example;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Rules for every module outside {@code onceonly-core}, main and test code. This module's test class path holds
 * all of them (the TCK and the benchmarks as test dependencies of their own classes only), so one test covers all.
 */
@AnalyzeClasses(packages = "dev.onceonly", importOptions = ArchitectureTest.OutsideCore.class)
class ArchitectureTest {

    /** A jar (also one inside another), its artifact id without the version in group 1 */
    private static final Pattern JAR = Pattern.compile("/([^/]+?)-[0-9][^/]*\\.jar!");
    /** A module's build output folder, the module in group 1 */
    private static final Pattern CLASSES = Pattern.compile("/([^/]+)/target/(?:test-)?classes/");

    private static final String[] SAMPLES_AND_BENCHMARKS = {"dev.onceonly.example..", "dev.onceonly.webfluxtwin..",
        "dev.onceonly.provider..", "dev.onceonly.benchmarks.."};

    @ArchTest
    static final ArchRule nothingOutsideCoreUsesCoresInternalPackage = noClasses().should().dependOnClassesThat()
            .resideInAPackage("dev.onceonly.internal..")
            .because("dev.onceonly.internal is core's implementation, free to change in any release");

    /**
     * A package named {@code internal} is its module's implementation, free to change in any release: no other module
     * uses it, whatever its package. The module of a class is where it was compiled (its build output or jar), so
     * onceonly-spring's Boot auto-configuration, although in {@code dev.onceonly.spring.boot}, may not use
     * {@code dev.onceonly.spring.web.internal} either. (A compile-time constant is copied into the class that reads
     * it, so its use is not seen; internal constants are for their own module anyway.)
     */
    @ArchTest
    static final ArchRule noModuleUsesAnotherModulesInternals = noClasses()
            .should(new ArchCondition<>("use another module's internal packages") {
                @Override
                public void check(JavaClass origin, ConditionEvents events) {
                    origin.getDirectDependenciesFromSelf().stream()
                            .filter(dependency -> isInternal(dependency.getTargetClass()))
                            .filter(dependency -> !compiledIn(dependency.getTargetClass())
                                    .equals(compiledIn(origin)))
                            .forEach(dependency -> events.add(SimpleConditionEvent.satisfied(dependency,
                                    dependency.getDescription())));
                }
            });

    /** The samples and benchmarks use the library; the library never uses them. */
    @ArchTest
    static final ArchRule theLibraryUsesNoSampleOrBenchmark = noClasses()
            .that().resideOutsideOfPackages(SAMPLES_AND_BENCHMARKS)
            .should().dependOnClassesThat().resideInAnyPackage(SAMPLES_AND_BENCHMARKS)
            .because("the library modules stand alone; samples and benchmarks are built on them, not into them");

    /** The conformance suite tests any implementation over HTTP: it knows none of OnceOnly's classes. */
    @ArchTest
    static final ArchRule theConformanceSuiteKnowsOnlyHttp = classes()
            .that().resideInAPackage("dev.onceonly.conformance..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("dev.onceonly.conformance..", "java..",
                    "org.junit..", "org.assertj..", "org.opentest4j..", "tools.jackson..", "org.jspecify..")
            .because("a black-box suite that used an implementation's classes would test nothing but itself");

    /**
     * onceonly-spring serves Spring applications without Spring Boot; onceonly-spring-boot-autoconfigure configures
     * it for Boot, so the dependency runs one way only. (The slices below see both as "spring".)
     */
    @ArchTest
    static final ArchRule theSpringIntegrationNeedsNoBoot = noClasses()
            .that().resideInAPackage("dev.onceonly.spring..")
            .and().resideOutsideOfPackage("dev.onceonly.spring.boot..")
            .should().dependOnClassesThat()
            .resideInAnyPackage("org.springframework.boot..", "dev.onceonly.spring.boot..")
            .because("a plain Spring application has neither Spring Boot nor OnceOnly's auto-configuration");

    /**
     * Modules depend on each other one way only (core, excluded here, depends on none of them). The orders service's
     * WebFlux twin is its own test code, which the service's tests start.
     */
    @ArchTest
    static final ArchRule modulesFormNoCycle = slices().matching("dev.onceonly.(*)..").should().beFreeOfCycles()
            .ignoreDependency(resideInAPackage("dev.onceonly.example.."),
                    resideInAPackage("dev.onceonly.webfluxtwin.."));

    @ArchTest
    static void everyModuleOutsideCoreIsChecked(JavaClasses classes) {
        assertThat(classes.stream().map(JavaClass::getPackageName).map(ArchitectureTest::module).distinct())
                .contains("tck", "jdbc", "kafka", "redis", "client", "spring", "conformance", "example", "provider",
                        "webfluxtwin", "benchmarks");
    }

    /** Each rule fails the build on code that breaks it, not only passes on code that keeps it. */
    @Test
    void theRulesFireOnCodeThatBreaksThem() {
        // By name: a reference to core's internals from this class would break the rule it checks.
        JavaClasses violations = new ClassFileImporter().importPackages("dev.onceonly.violations",
                "dev.onceonly.cyclic", "dev.onceonly.conformance.violations", "dev.onceonly.spring.violations");

        assertThat(nothingOutsideCoreUsesCoresInternalPackage.evaluate(violations).hasViolation()).isTrue();
        assertThat(theLibraryUsesNoSampleOrBenchmark.evaluate(violations).hasViolation()).isTrue();
        assertThat(modulesFormNoCycle.evaluate(violations).hasViolation()).isTrue();
        assertThat(theConformanceSuiteKnowsOnlyHttp.evaluate(violations).hasViolation()).isTrue();
        assertThat(theSpringIntegrationNeedsNoBoot.evaluate(violations).hasViolation()).isTrue();
        // Alone: the classes above also use core's internals, which would fire the rule on their own.
        assertThat(noModuleUsesAnotherModulesInternals.evaluate(new ClassFileImporter()
                .importPackages("dev.onceonly.spring.violations")).getFailureReport().getDetails())
                .singleElement().asString().contains("UsesAnotherModulesInternals", "QueryString");
    }

    @Test
    void aClassBelongsToTheModuleItWasCompiledIn() {
        assertThat(compiledIn("jar:file:/home/ci/.m2/repository/dev/onceonly/onceonly-spring/0.1.0-SNAPSHOT/"
                + "onceonly-spring-0.1.0-20261207.123456-1.jar!/dev/onceonly/spring/web/internal/QueryString.class"))
                .isEqualTo("onceonly-spring");
        assertThat(compiledIn("jar:nested:/srv/target/orders.jar/!BOOT-INF/lib/onceonly-spring-0.1.0.jar!/X.class"))
                .isEqualTo("onceonly-spring");
        assertThat(compiledIn("file:/work/target/main/onceonly-spring-boot-autoconfigure/target/classes/dev/X.class"))
                .isEqualTo("onceonly-spring-boot-autoconfigure");
        assertThat(compiledIn("file:/work/main/samples/orders-service/target/test-classes/dev/X.class"))
                .isEqualTo("orders-service");
    }

    /** Within onceonly-spring its internal package is used, and that is no violation. */
    @Test
    void aModuleUsesItsOwnInternals() {
        JavaClasses spring = new ClassFileImporter().importPackages("dev.onceonly.spring.web");

        assertThat(spring.stream().filter(type -> type.getPackageName().endsWith(".servlet"))
                .flatMap(type -> type.getDirectDependenciesFromSelf().stream())
                .anyMatch(dependency -> isInternal(dependency.getTargetClass()))).isTrue();
        assertThat(noModuleUsesAnotherModulesInternals.evaluate(spring).hasViolation()).isFalse();
    }

    private static boolean isInternal(JavaClass type) {
        return type.getPackageName().startsWith("dev.onceonly.")
                && Arrays.asList(type.getPackageName().split("\\.")).contains("internal");
    }

    /**
     * Where {@code type} was compiled: the innermost jar it was read from, named without its version, or the module
     * whose build output folder holds it. Anything else is a module of its own, so it never passes for another.
     */
    static String compiledIn(JavaClass type) {
        return compiledIn(type.getSource().map(source -> source.getUri().toString()).orElse(type.getName()));
    }

    static String compiledIn(String location) {
        Matcher jar = JAR.matcher(location);
        String module = null;
        while (jar.find()) {
            module = jar.group(1);
        }
        if (module != null) {
            return module;
        }
        Matcher classes = CLASSES.matcher(location);
        return classes.find() ? classes.group(1) : location;
    }

    private static String module(String packageName) {
        String[] parts = packageName.split("\\.");
        return parts.length > 2 ? parts[2] : "";
    }

    /**
     * Leaves out core's own classes (only core may use its internal package) and the violations that show the rules
     * fire.
     */
    static final class OutsideCore implements ImportOption {

        @Override
        public boolean includes(Location location) {
            return !location.contains("/onceonly-core/") && !location.contains("/onceonly-core-")
                    && !location.contains("/dev/onceonly/violations/") && !location.contains("/dev/onceonly/cyclic/")
                    && !location.contains("/dev/onceonly/conformance/violations/")
                    && !location.contains("/dev/onceonly/spring/violations/");
        }
    }
}
