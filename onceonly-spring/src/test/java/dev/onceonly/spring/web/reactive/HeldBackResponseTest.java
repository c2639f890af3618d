package dev.onceonly.spring.web.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.CharSequenceEncoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferWrapper;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.core.io.buffer.PooledDataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

class HeldBackResponseTest {

    /*
     * Netty's pools recycle a buffer's instance as soon as it is released, and another request may be lent it at
     * once. A second release of a buffer the response already consumed then frees that other request's buffer, which
     * fails when it is read (IllegalReferenceCountException, a 500 under a duplicate storm).
     */
    @Test
    void aBufferTheHandlerWroteIsReleasedOnceThoughItsPoolLendsItOutAgainAtOnce() {
        RelendingBuffers buffers = new RelendingBuffers();
        HeldBackResponse held = new HeldBackResponse(new MockServerHttpResponse(buffers), 1024);

        // As a handler's body is written: Spring's writer hands what a response ignores to a hook that releases it.
        new EncoderHttpMessageWriter<>(CharSequenceEncoder.textPlainOnly()).write(Mono.just("created"),
                ResolvableType.forClass(String.class), MediaType.TEXT_PLAIN, held, Map.of()).block();

        assertThat(new String(held.content(), StandardCharsets.UTF_8)).isEqualTo("created");
        assertThat(buffers.lent).isNotEmpty().allSatisfy(buffer -> assertThat(buffer.releases).isEqualTo(1));
    }

    @Test
    void aBodyBeyondTheBoundIsDroppedAndEachOfItsBuffersReleasedOnce() {
        RelendingBuffers buffers = new RelendingBuffers();
        HeldBackResponse held = new HeldBackResponse(new MockServerHttpResponse(buffers), 8);

        held.writeAndFlushWith(Flux.just(Flux.just(buffers.wrap("created".getBytes(StandardCharsets.UTF_8))),
                Flux.just(buffers.wrap(" and more".getBytes(StandardCharsets.UTF_8))))).block();

        assertThat(held.overflowed()).isTrue();
        assertThat(held.content()).isEmpty();
        assertThat(buffers.lent).hasSize(2).allSatisfy(buffer -> assertThat(buffer.releases).isEqualTo(1));
    }

    /** Buffers whose instance is lent out again the moment it is released, as a recycling pool may. */
    private static final class RelendingBuffers implements DataBufferFactory {

        final List<RelendingBuffer> lent = new ArrayList<>();
        private final DataBufferFactory heap = DefaultDataBufferFactory.sharedInstance;

        @Override
        @Deprecated
        public DataBuffer allocateBuffer() {
            return allocateBuffer(DefaultDataBufferFactory.DEFAULT_INITIAL_CAPACITY);
        }

        @Override
        public DataBuffer allocateBuffer(int initialCapacity) {
            return lend(heap.allocateBuffer(initialCapacity));
        }

        @Override
        public DataBuffer wrap(ByteBuffer bytes) {
            return lend(heap.wrap(bytes));
        }

        @Override
        public DataBuffer wrap(byte[] bytes) {
            return lend(heap.wrap(bytes));
        }

        @Override
        public DataBuffer join(List<? extends DataBuffer> buffers) {
            return lend(heap.join(buffers));
        }

        @Override
        public boolean isDirect() {
            return false;
        }

        private DataBuffer lend(DataBuffer buffer) {
            RelendingBuffer relending = new RelendingBuffer(buffer);
            lent.add(relending);
            return relending;
        }
    }

    private static final class RelendingBuffer extends DataBufferWrapper implements PooledDataBuffer {

        int releases;

        RelendingBuffer(DataBuffer delegate) {
            super(delegate);
        }

        /** Always: once released, the instance is lent to someone else, allocated again. */
        @Override
        public boolean isAllocated() {
            return true;
        }

        @Override
        public PooledDataBuffer retain() {
            return this;
        }

        @Override
        public PooledDataBuffer touch(Object hint) {
            return this;
        }

        @Override
        public boolean release() {
            releases++;
            return true;
        }
    }
}
