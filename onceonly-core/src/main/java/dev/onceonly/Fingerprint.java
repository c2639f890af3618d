package dev.onceonly;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The SHA-256 digest of everything that makes two requests "the same request": method, route template, the
 * components the caller adds (the HTTP layer adds the concrete request path, so two paths under one wildcard
 * route are two requests, and the query parameters and headers the operation selects) and the body.
 *
 * <p>Only the digest is ever stored, never the request it was computed from. JSON bodies are hashed in their
 * {@link CanonicalJson canonical form}, so member order and formatting do not matter; other bodies hash as raw
 * bytes. Every field is hashed with a tag and its length, so no two different requests can be made to produce
 * the same byte stream by shifting text from one field into another.
 *
 * <p><b>Scheme version.</b> The hashed input starts with the {@linkplain #SCHEME_VERSION version} of the rules
 * that turn a request into bytes (fields, tags, canonicalisation). Any change to those rules takes a new version,
 * so that digests of two schemes never coincide by accident. Stores keep the bare 32-byte digest; a record is
 * matched to a request only through {@link #matches}. A later scheme accepts the records made under the one
 * before it for a retention window, without touching stores or their schema: its fingerprint also carries the
 * request's digest under the previous scheme, and {@link #matches} accepts either, while new records store the
 * newest. So retries across an upgrade replay instead of being refused as a reused key. This is scheme 1:
 *
 * <pre>
 * field(tag, bytes) = tag (1 byte, ASCII) | length of bytes (4 bytes, big-endian) | bytes
 * input = field('S', "1")                                  scheme version, decimal, UTF-8
 *       | field('M', method) | field('R', route)            UTF-8, empty when not set
 *       | for each component name, sorted: field('C', name), then field('V', value) for each value in order
 *       | field('J', canonical JSON) or field('B', raw body) if there is a body
 * </pre>
 */
public final class Fingerprint {

    /** Length of a SHA-256 digest in bytes. */
    public static final int LENGTH = 32;

    /** The version of the rules this class hashes a request by; the first field of every hashed input. */
    public static final int SCHEME_VERSION = 1;

    private static final MessageDigest SHA256 = newSha256();

    private final byte[] digest;

    private Fingerprint(byte[] digest) {
        this.digest = digest;
    }

    /**
     * Restores a fingerprint a store read back.
     *
     * @throws IllegalArgumentException unless {@code digest} has {@value #LENGTH} bytes
     */
    public static Fingerprint ofDigest(byte[] digest) {
        if (digest.length != LENGTH) {
            throw new IllegalArgumentException("a fingerprint has " + LENGTH + " bytes, not " + digest.length);
        }
        return new Fingerprint(digest.clone());
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Whether a record made for {@code recorded} answers the request of this fingerprint; every comparison of a
     * stored fingerprint with a request's goes through here. Under scheme 1 that is equality; a later scheme
     * also accepts the digest its request had under the scheme before.
     *
     * @param recorded the fingerprint a store or cache holds for a record
     * @return {@code true} if the record answers this request; {@code false} if the key was used for another
     */
    public boolean matches(Fingerprint recorded) {
        return equals(recorded);
    }

    /** A copy of the 32 digest bytes. */
    public byte[] digest() {
        return digest.clone();
    }

    /** The digest as 64 lowercase hex digits. */
    public String hex() {
        return HexFormat.of().formatHex(digest);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Fingerprint that && MessageDigest.isEqual(digest, that.digest);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(digest);
    }

    @Override
    public String toString() {
        return "Fingerprint[" + hex() + "]";
    }

    /** Collects the parts of a request; not thread-safe, use one per request. */
    public static final class Builder {

        private @Nullable String method;
        private @Nullable String route;
        private final Map<String, List<String>> components = new TreeMap<>();
        private byte @Nullable [] body;
        /** A JSON body's canonical form, hashed where the pass wrote it: a copy would cost a tenth of the pass. */
        private @Nullable CanonicalJsonPass jsonBody;
        private int jsonBodyLength;

        private Builder() {
        }

        /** The request method, such as {@code POST}; for messages, a message type. */
        public Builder method(String method) {
            this.method = Objects.requireNonNull(method, "method");
            return this;
        }

        /**
         * The route template, such as {@code /api/orders/{id}}. A template can match many paths, so a caller that
         * must tell them apart adds the concrete path as a {@linkplain #component component} too, as the HTTP
         * layer does ({@code "path"}).
         */
        public Builder route(String route) {
            this.route = Objects.requireNonNull(route, "route");
            return this;
        }

        /**
         * Adds a selected part of the request, such as {@code ("path", "/api/orders/42")}, {@code ("query:currency",
         * "EUR")} or {@code ("header:x-api-version", "3")}. Names are sorted; several values of one name keep
         * their order.
         */
        public Builder component(String name, String value) {
            components.computeIfAbsent(Objects.requireNonNull(name, "name"), ignored -> new ArrayList<>())
                    .add(Objects.requireNonNull(value, "value"));
            return this;
        }

        /** A body hashed byte for byte. */
        public Builder rawBody(byte[] body) {
            this.body = body.clone();
            this.jsonBody = null;
            return this;
        }

        /**
         * A JSON body, hashed in canonical form.
         *
         * @throws MalformedRequestBodyException if {@code body} is not well-formed JSON
         */
        public Builder jsonBody(byte[] body, CanonicalJson canonicalJson) {
            CanonicalJsonPass pass = canonicalJson.pass(body);
            this.jsonBodyLength = pass.run();
            this.jsonBody = pass;
            this.body = null;
            return this;
        }

        /** A JSON body, canonicalised whole. */
        public Builder jsonBody(byte[] body) {
            return jsonBody(body, CanonicalJson.standard());
        }

        public Fingerprint build() {
            MessageDigest sha256 = sha256();
            field(sha256, 'S', Integer.toString(SCHEME_VERSION));
            field(sha256, 'M', method == null ? "" : method);
            field(sha256, 'R', route == null ? "" : route);
            for (Map.Entry<String, List<String>> component : components.entrySet()) {
                field(sha256, 'C', component.getKey());
                for (String value : component.getValue()) {
                    field(sha256, 'V', value);
                }
            }
            if (body != null) {
                field(sha256, 'B', body);
            } else if (jsonBody != null) {
                header(sha256, 'J', jsonBodyLength);
                jsonBody.writeTo(sha256::update);
            }
            return new Fingerprint(sha256.digest());
        }

        private static void field(MessageDigest sha256, char tag, String value) {
            field(sha256, tag, value.getBytes(StandardCharsets.UTF_8));
        }

        private static void field(MessageDigest sha256, char tag, byte[] value) {
            header(sha256, tag, value.length);
            sha256.update(value);
        }

        private static void header(MessageDigest sha256, char tag, int length) {
            sha256.update(new byte[] {(byte) tag, (byte) (length >>> 24), (byte) (length >>> 16),
                (byte) (length >>> 8), (byte) length});
        }

        /**
         * A copy of a prepared instance: looking SHA-256 up among the providers costs more than hashing 2 KB. A
         * provider whose digests cannot be cloned is asked for a new one each time instead.
         */
        private static MessageDigest sha256() {
            try {
                return (MessageDigest) SHA256.clone();
            } catch (CloneNotSupportedException notCloneable) {
                return newSha256();
            }
        }
    }
}
