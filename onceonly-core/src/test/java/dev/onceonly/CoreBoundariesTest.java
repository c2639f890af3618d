package dev.onceonly;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.onceonly.crypto.EncryptingIdempotencyStore;
import org.junit.jupiter.api.Test;

/**
 * The engine knows its SPI and its internal helpers, never the stores and decorators built on them (issue 40: it
 * asked the encryption decorator whether an outcome was sealed), and core's packages form no cycle.
 */
class CoreBoundariesTest {

    private static final ArchRule ENGINE_KNOWS_NO_STORE_OR_DECORATOR = noClasses()
            .that().resideInAPackage("dev.onceonly")
            .should().dependOnClassesThat().resideInAnyPackage("dev.onceonly.crypto..", "dev.onceonly.memory..",
                    "dev.onceonly.inbox..")
            .because("stores and decorators build on the engine's SPI; the engine must not reach into them");

    private static final ArchRule NO_CYCLES = slices().matching("dev.onceonly.(*)..").should().beFreeOfCycles();

    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.onceonly");

    @Test
    void engineDependsOnNoStoreOrDecorator() {
        ENGINE_KNOWS_NO_STORE_OR_DECORATOR.check(CORE);
    }

    @Test
    void packagesFormNoCycle() {
        NO_CYCLES.check(CORE);
    }

    /** The rule fires: a class of the engine's package that asks the decorator, as Records did. */
    @Test
    void engineRuleFiresOnAnEngineClassThatAsksADecorator() {
        JavaClasses withViolation = new ClassFileImporter().importClasses(AsksTheDecorator.class,
                EncryptingIdempotencyStore.class);

        assertThat(ENGINE_KNOWS_NO_STORE_OR_DECORATOR.evaluate(withViolation).hasViolation()).isTrue();
    }

    /** What the engine must not do; in the test sources only. */
    static final class AsksTheDecorator {
        static String describe(EncryptingIdempotencyStore store) {
            return store.toString();
        }
    }
}
