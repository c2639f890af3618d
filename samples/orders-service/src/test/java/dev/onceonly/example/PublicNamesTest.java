package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * No two public types of the library share a simple name (issue 40: {@code IdempotencyKey} and {@code RetryPolicy}
 * each existed twice, so an application that used both imported one by its full name). The samples and the
 * benchmarks are not the library; this module's test class path holds every library module.
 */
class PublicNamesTest {

    private static final List<String> NOT_THE_LIBRARY = List.of("dev.onceonly.example", "dev.onceonly.provider",
            "dev.onceonly.benchmarks");

    @Test
    void noTwoPublicTypesOfTheLibraryShareASimpleName() {
        JavaClasses library = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.onceonly");

        Map<String, List<String>> byName = library.stream()
                .filter(type -> type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC))
                .filter(type -> NOT_THE_LIBRARY.stream().noneMatch(type.getPackageName()::startsWith))
                .collect(Collectors.groupingBy(JavaClass::getSimpleName,
                        Collectors.mapping(JavaClass::getName, Collectors.toList())));

        assertThat(byName).as("public types of the library by simple name").isNotEmpty()
                .allSatisfy((name, types) -> assertThat(types).as(name).hasSize(1));
        assertThat(byName).containsKeys("IdempotencyEngine", "JdbcIdempotencyStore", "Idempotent",
                "ClientRetryPolicy", "RedisOutcomeCache", "Inbox");
    }
}
