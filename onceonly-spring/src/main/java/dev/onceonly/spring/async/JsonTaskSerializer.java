package dev.onceonly.spring.async;

import com.github.kagkarlsson.scheduler.serializer.Serializer;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Task data as JSON through the application's mapper: db-scheduler's own JSON serializer is for Jackson 2, and
 * its default, Java serialization, would tie queued tasks to the classes' binary form.
 */
public final class JsonTaskSerializer implements Serializer {

    private final JsonMapper json;

    public JsonTaskSerializer(JsonMapper json) {
        this.json = json;
    }

    @Override
    public byte @Nullable [] serialize(@Nullable Object data) {
        return data == null ? null : json.writeValueAsBytes(data);
    }

    @Override
    public <T> @Nullable T deserialize(Class<T> type, byte @Nullable [] serialized) {
        return serialized == null ? null : json.readValue(serialized, type);
    }
}
