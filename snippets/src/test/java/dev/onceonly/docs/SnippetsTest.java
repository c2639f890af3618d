package dev.onceonly.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet of the README and the documentation site is a file of this module, so it compiles with the
 * build: the site includes the file ({@code --8<-- "path"}), and the README, which GitHub shows as it is, holds a
 * copy of a whole file that must equal it. The dependencies the pages name are this module's.
 */
class SnippetsTest {

    private static final Path ROOT = Path.of("..");
    private static final Path SNIPPETS = Path.of("src", "main", "java", "dev", "onceonly", "docs");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern XML_BLOCK = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern COORDINATES = Pattern.compile(
            "<groupId>\\s*([^<\\s]+)\\s*</groupId>\\s*<artifactId>\\s*([^<\\s]+)\\s*</artifactId>");
    private static final Pattern INCLUDE = Pattern.compile("--8<-- \"(snippets/src/main/java/[^\"]+\\.java)\"\\n");

    @Test
    void everyJavaSnippetOfTheSiteIsAFileThatCompiles() throws IOException {
        List<String> problems = new ArrayList<>();
        int snippets = 0;
        try (Stream<Path> pages = Files.walk(ROOT.resolve("docs"))) {
            for (Path page : pages.filter(path -> path.toString().endsWith(".md")).toList()) {
                Matcher block = JAVA_BLOCK.matcher(Files.readString(page));
                while (block.find()) {
                    snippets++;
                    Matcher include = INCLUDE.matcher(block.group(1));
                    if (!include.matches()) {
                        problems.add(page + ": a Java snippet that is not included from a file of snippets");
                    } else if (!Files.isRegularFile(ROOT.resolve(include.group(1)))) {
                        problems.add(page + ": includes " + include.group(1) + ", which does not exist");
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
        assertThat(snippets).isGreaterThanOrEqualTo(9);
    }

    @Test
    void everyJavaSnippetOfTheReadmeIsAWholeFileThatCompiles() throws IOException {
        List<String> files = new ArrayList<>();
        try (Stream<Path> sources = Files.list(SNIPPETS)) {
            for (Path source : sources.toList()) {
                files.add(Files.readString(source));
            }
        }
        Matcher block = JAVA_BLOCK.matcher(Files.readString(ROOT.resolve("README.md")));
        int snippets = 0;
        while (block.find()) {
            snippets++;
            assertThat(files).as("the README's Java snippet %d, as a file of %s", snippets, SNIPPETS)
                    .contains(block.group(1));
        }
        assertThat(snippets).isPositive();
    }

    /**
     * The dependencies the pages tell users to add exist as written: OnceOnly's are artifacts of this build (the
     * BOM names them), and every other one is a dependency of this module, which the build resolves, at the version
     * Spring Boot manages.
     */
    @Test
    void everyDependencyThePagesNameResolves() throws IOException {
        String bom = Files.readString(ROOT.resolve("onceonly-bom/pom.xml"));
        String own = Files.readString(Path.of("pom.xml"));
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).forEach(pages::add);
        }
        int named = 0;
        for (Path page : pages) {
            Matcher block = XML_BLOCK.matcher(Files.readString(page));
            while (block.find()) {
                Matcher dependency = COORDINATES.matcher(block.group(1));
                while (dependency.find()) {
                    named++;
                    String group = dependency.group(1);
                    String artifact = dependency.group(2);
                    if (group.equals("dev.onceonly")) {
                        assertThat(artifact.equals("onceonly-bom") || bom.contains("<artifactId>" + artifact + "<"))
                                .as(page + " names " + artifact + ", which this build does not publish").isTrue();
                    } else {
                        assertThat(COORDINATES.matcher(own).results().anyMatch(declared ->
                                declared.group(1).equals(group) && declared.group(2).equals(artifact)))
                                .as(page + " names " + group + ":" + artifact + ", which snippets/pom.xml lacks")
                                .isTrue();
                    }
                }
            }
        }
        assertThat(named).isGreaterThanOrEqualTo(10);
    }
}
