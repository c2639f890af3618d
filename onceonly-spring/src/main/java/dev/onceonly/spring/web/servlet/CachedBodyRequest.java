package dev.onceonly.spring.web.servlet;

import dev.onceonly.http.RequestBodyTooLargeException;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * A request whose body was read once, up to a limit, so that it can be fingerprinted and then read again by
 * the handler.
 */
final class CachedBodyRequest extends HttpServletRequestWrapper {

    private final byte[] body;

    private CachedBodyRequest(HttpServletRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    /**
     * Reads the whole body of {@code request}.
     *
     * @throws RequestBodyTooLargeException if it has more than {@code limit} bytes
     */
    static CachedBodyRequest read(HttpServletRequest request, long limit) throws IOException {
        long declared = request.getContentLengthLong();
        if (declared > limit) {
            throw RequestBodyTooLargeException.of(limit);
        }
        try (InputStream in = request.getInputStream()) {
            // A declared length sizes the read exactly (the container never passes more than it); only a chunked
            // body is read in buffer-sized steps, up to one byte past the limit to tell it is too large.
            byte[] body = in.readNBytes((int) (declared >= 0 ? declared
                    : Math.min(Integer.MAX_VALUE - 8, limit + 1)));
            if (body.length > limit) {
                throw RequestBodyTooLargeException.of(limit);
            }
            return new CachedBodyRequest(request, body);
        }
    }

    byte[] body() {
        return body;
    }

    @Override
    public ServletInputStream getInputStream() {
        ByteArrayInputStream in = new ByteArrayInputStream(body);
        return new ServletInputStream() {
            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] buffer, int offset, int length) {
                return in.read(buffer, offset, length);
            }

            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                throw new UnsupportedOperationException("the body was already read");
            }
        };
    }

    @Override
    public BufferedReader getReader() {
        String encoding = getCharacterEncoding();
        Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
        return new BufferedReader(new InputStreamReader(getInputStream(), charset));
    }
}
