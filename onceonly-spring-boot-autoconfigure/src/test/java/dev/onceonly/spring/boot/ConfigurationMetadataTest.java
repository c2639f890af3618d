package dev.onceonly.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The metadata IDEs show for {@code onceonly.*}, as the build generates it. */
class ConfigurationMetadataTest {

    private static String metadata() throws IOException {
        try (InputStream in = ConfigurationMetadataTest.class
                .getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void descriptionsArePlainTextWithoutJavadocTags() throws IOException {
        JsonNode root = JsonMapper.shared().readTree(metadata());

        List<String> descriptions = root.get("properties").valueStream()
                .map(property -> property.path("description").asString("")).toList();

        assertThat(descriptions).isNotEmpty().allSatisfy(description -> assertThat(description)
                .isNotBlank().doesNotContain("{@"));
    }

    @Test
    void fixedValueSetsHaveHints() throws IOException {
        JsonNode root = JsonMapper.shared().readTree(metadata());

        assertThat(hintValues(root, "onceonly.mode")).containsExactly("auto", "transactional", "leased");
        assertThat(hintValues(root, "onceonly.http.key-reused-status")).containsExactly("422", "409");
        assertThat(hintValues(root, "onceonly.key.storage")).containsExactly("raw", "digest");
    }

    private static List<String> hintValues(JsonNode root, String property) {
        return root.path("hints").valueStream().filter(hint -> hint.path("name").asString().equals(property))
                .flatMap(hint -> hint.path("values").valueStream()).map(value -> value.path("value").asString())
                .toList();
    }
}
