package dev.onceonly.spring.boot.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * A servlet application with OnceOnly that cannot reach its database, started as its own JVM, as a user starts it:
 * the failure is reported by what to change, and OnceOnly's filter is not blamed for a failure that is not its own
 * (issue 41: the first ERROR named OnceOnly's filter registration, the cause was 170 lines down).
 */
class DatabaseStartupFailureIT {

    private static final String URL = System.getProperty("onceonly.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    /** The application whose startup fails. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    public static class FailingApplication {

        public static void main(String[] args) {
            SpringApplication.run(FailingApplication.class, args);
        }
    }

    @Test
    void withoutFlywaysDatabaseModuleTheApplicationsOwnFlywayFailsWithOnceOnlysMessage() throws Exception {
        String output = start("flyway-database-postgresql", URL,
                "--spring.flyway.locations=classpath:dev/onceonly/no-migrations");

        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Flyway has no support for PostgreSQL")
                .contains("Add org.flywaydb:flyway-database-postgresql for PostgreSQL");
        assertNotBlamedOnTheFilter(output);
    }

    @Test
    void aDatabaseThatDoesNotExistIsSaidSoWithWhatToCheck() throws Exception {
        String output = start(null, URL.replaceFirst("/[^/?]+(\\?|$)", "/onceonly_no_such_database$1"),
                "--spring.flyway.enabled=false");

        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("The application's database refused OnceOnly's first connection: the database does not "
                        + "exist (SQLState 3D000")
                .contains("Check spring.datasource.url");
        assertNotBlamedOnTheFilter(output);
    }

    private static void assertNotBlamedOnTheFilter(String output) {
        String firstError = output.lines().filter(line -> line.contains(" ERROR ")).findFirst().orElse("");
        assertThat(firstError).as("the first ERROR").isNotEmpty().doesNotContain("idempotencyKeyFilter");
        assertThat(output).doesNotContain("Error creating bean with name 'idempotencyKeyFilterRegistration'");
    }

    /** Starts the application on the test class path, less the jar named {@code withoutJar}, and waits for its end. */
    private static String start(String withoutJar, String url, String... arguments) throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> withoutJar == null || !entry.contains(withoutJar))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-cp", classPath, FailingApplication.class.getName(), "--server.port=0",
                "--spring.datasource.url=" + url, "--onceonly.redis.enabled=false"));
        command.addAll(List.of(arguments));
        Path log = Files.createTempFile("startup-failure", ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            // An application that starts after all (a regression) must fail the test, not hang it
            assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("the application stopped").isTrue();
        } finally {
            process.destroyForcibly();
        }
        String text = Files.readString(log, StandardCharsets.UTF_8);
        Files.delete(log);
        assertThat(process.exitValue()).as(text).isNotZero();
        return text;
    }
}
