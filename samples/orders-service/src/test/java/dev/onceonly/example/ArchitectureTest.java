package dev.onceonly.example;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Rules for every module outside {@code onceonly-core}, main and test code. This module's test class path holds
 * all of them (the TCK and the benchmarks as test dependencies of their own classes only), so one test covers all.
 */
@AnalyzeClasses(packages = "dev.onceonly", importOptions = ArchitectureTest.OutsideCore.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule nothingOutsideCoreUsesCoresInternalPackage = noClasses().should().dependOnClassesThat()
            .resideInAPackage("dev.onceonly.internal..")
            .because("dev.onceonly.internal is core's implementation, free to change in any release");

    @ArchTest
    static void everyModuleOutsideCoreIsChecked(JavaClasses classes) {
        assertThat(classes.stream().map(JavaClass::getPackageName).map(ArchitectureTest::module).distinct())
                .contains("tck", "jdbc", "kafka", "spring", "example", "benchmarks");
    }

    private static String module(String packageName) {
        String[] parts = packageName.split("\\.");
        return parts.length > 2 ? parts[2] : "";
    }

    /** Leaves out core's own classes: only core may use its internal package. */
    static final class OutsideCore implements ImportOption {

        @Override
        public boolean includes(Location location) {
            return !location.contains("/onceonly-core/") && !location.contains("/onceonly-core-");
        }
    }
}
