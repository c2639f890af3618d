package dev.onceonly.conformance;

import java.net.URI;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The API that {@link IdempotencyKeyConformance} checks: where its idempotent endpoint is, what to send it, and who
 * may call it. Only HTTP: the suite needs nothing of the implementation behind the URL.
 *
 * <pre>{@code
 * ConformanceTarget.at(URI.create("http://127.0.0.1:8080"))
 *         .endpoint(() -> new ConformanceTarget.Endpoint("/api/orders", "{\"skuId\":42,\"quantity\":2}",
 *                 "{\"skuId\":43,\"quantity\":2}"))
 *         .authorization("Basic YWxpY2U6YWxpY2UtcGFzcw==")
 *         .build();
 * }</pre>
 */
public final class ConformanceTarget {

    private final URI baseUrl;
    private final Supplier<Endpoint> endpoints;
    private final String keyHeader;
    private final @Nullable String authorization;
    private final @Nullable String otherOwnerAuthorization;
    private final @Nullable String problemTypeBase;
    private final @Nullable String bypassPath;
    private final int maxKeyLength;
    private final int keyReusedStatus;
    private final boolean respondsAsync;

    private ConformanceTarget(Builder builder) {
        this.baseUrl = builder.baseUrl;
        this.endpoints = Objects.requireNonNull(builder.endpoints, "endpoint: the suite needs an endpoint to call");
        this.keyHeader = builder.keyHeader;
        this.authorization = builder.authorization;
        this.otherOwnerAuthorization = builder.otherOwnerAuthorization;
        this.problemTypeBase = builder.problemTypeBase;
        this.bypassPath = builder.bypassPath;
        this.maxKeyLength = builder.maxKeyLength;
        this.keyReusedStatus = builder.keyReusedStatus;
        this.respondsAsync = builder.respondsAsync;
    }

    /** A target at {@code baseUrl}, such as {@code http://127.0.0.1:8080}; paths are resolved against it. */
    public static Builder at(URI baseUrl) {
        return new Builder(baseUrl);
    }

    /**
     * A target described by system properties, for running the suite against a service with one command:
     * {@code onceonly.conformance.base-url}, {@code .path}, {@code .body}, {@code .other-body} (required), and
     * {@code .reordered-body}, {@code .authorization}, {@code .other-owner-authorization},
     * {@code .problem-type-base}, {@code .bypass-path}, {@code .key-header}, {@code .max-key-length},
     * {@code .key-reused-status}, {@code .responds-async} (optional).
     *
     * @throws IllegalStateException naming the first required property that is missing
     */
    public static ConformanceTarget fromSystemProperties() {
        Endpoint endpoint = new Endpoint(required("path"), required("body"), required("other-body"),
                optional("reordered-body"));
        Builder builder = at(URI.create(required("base-url"))).endpoint(() -> endpoint)
                .authorization(optional("authorization"))
                .otherOwnerAuthorization(optional("other-owner-authorization"))
                .problemTypeBase(optional("problem-type-base"))
                .bypassPath(optional("bypass-path"))
                .respondsAsync(Boolean.parseBoolean(optional("responds-async")));
        String keyHeader = optional("key-header");
        if (keyHeader != null) {
            builder.keyHeader(keyHeader);
        }
        String maxKeyLength = optional("max-key-length");
        if (maxKeyLength != null) {
            builder.maxKeyLength(Integer.parseInt(maxKeyLength));
        }
        String keyReusedStatus = optional("key-reused-status");
        if (keyReusedStatus != null) {
            builder.keyReusedStatus(Integer.parseInt(keyReusedStatus));
        }
        return builder.build();
    }

    private static String required(String name) {
        String value = optional(name);
        if (value == null) {
            throw new IllegalStateException("Set -Donceonly.conformance." + name + " to run the suite against a "
                    + "service (see docs/conformance.md)");
        }
        return value;
    }

    private static @Nullable String optional(String name) {
        String value = System.getProperty("onceonly.conformance." + name);
        return value == null || value.isBlank() ? null : value;
    }

    URI uri(String path) {
        return baseUrl.resolve(path);
    }

    /** A fresh endpoint call: each case takes its own, so an endpoint that acts once per resource can be tested. */
    Endpoint endpoint() {
        return endpoints.get();
    }

    String keyHeader() {
        return keyHeader;
    }

    @Nullable String authorization() {
        return authorization;
    }

    @Nullable String otherOwnerAuthorization() {
        return otherOwnerAuthorization;
    }

    @Nullable String problemTypeBase() {
        return problemTypeBase;
    }

    @Nullable String bypassPath() {
        return bypassPath;
    }

    int maxKeyLength() {
        return maxKeyLength;
    }

    int keyReusedStatus() {
        return keyReusedStatus;
    }

    boolean respondsAsync() {
        return respondsAsync;
    }

    /**
     * One idempotent endpoint call, sent as a JSON {@code POST}.
     *
     * @param path the endpoint's path, such as {@code /api/orders}
     * @param body a request the endpoint accepts
     * @param otherBody another request to the same endpoint, which must not count as the same one
     * @param reorderedBody {@code body} with its JSON members in another order and other white space, which an
     *     implementation that compares JSON by meaning treats as the same request; {@code null} skips that case
     */
    public record Endpoint(String path, String body, String otherBody, @Nullable String reorderedBody) {

        public Endpoint {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(body, "body");
            Objects.requireNonNull(otherBody, "otherBody");
            if (body.equals(otherBody)) {
                throw new IllegalArgumentException("otherBody must differ from body");
            }
        }

        public Endpoint(String path, String body, String otherBody) {
            this(path, body, otherBody, null);
        }
    }

    /** Builds a {@link ConformanceTarget}. */
    public static final class Builder {

        private final URI baseUrl;
        private @Nullable Supplier<Endpoint> endpoints;
        private String keyHeader = "Idempotency-Key";
        private @Nullable String authorization;
        private @Nullable String otherOwnerAuthorization;
        private @Nullable String problemTypeBase;
        private @Nullable String bypassPath;
        private int maxKeyLength = 255;
        private int keyReusedStatus = 422;
        private boolean respondsAsync;

        private Builder(URI baseUrl) {
            this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
        }

        /** Where each case sends its requests; called once per case. */
        public Builder endpoint(Supplier<Endpoint> endpoints) {
            this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
            return this;
        }

        /** The request header the key goes in; {@code Idempotency-Key} unless set. */
        public Builder keyHeader(String keyHeader) {
            this.keyHeader = Objects.requireNonNull(keyHeader, "keyHeader");
            return this;
        }

        /** The {@code Authorization} header value of the caller; none if {@code null}. */
        public Builder authorization(@Nullable String authorization) {
            this.authorization = authorization;
            return this;
        }

        /**
         * The {@code Authorization} header value of a second caller, whose keys must never meet the first one's
         * records; {@code null} skips that case.
         */
        public Builder otherOwnerAuthorization(@Nullable String otherOwnerAuthorization) {
            this.otherOwnerAuthorization = otherOwnerAuthorization;
            return this;
        }

        /**
         * What every problem {@code type} of the API begins with, such as {@code https://onceonly.dev/problems/}:
         * then each refusal's type is checked to be that base and a name. {@code null} leaves the type unchecked
         * (RFC 9457 lets it be absent, which means {@code about:blank}); status, title and media type are checked
         * either way.
         */
        public Builder problemTypeBase(@Nullable String problemTypeBase) {
            this.problemTypeBase = problemTypeBase;
            return this;
        }

        /**
         * A path that {@code GET} reaches without idempotency (a list or a read): a key sent there must change
         * nothing. {@code null} skips that case.
         */
        public Builder bypassPath(@Nullable String bypassPath) {
            this.bypassPath = bypassPath;
            return this;
        }

        /** The longest key the API accepts: 255 unless set, as Stripe's. */
        public Builder maxKeyLength(int maxKeyLength) {
            if (maxKeyLength < 36) {
                throw new IllegalArgumentException("maxKeyLength must allow a UUID (36 characters)");
            }
            this.maxKeyLength = maxKeyLength;
            return this;
        }

        /** The status of a key reused with another request: 422 (the IETF draft) unless set, such as to 409. */
        public Builder keyReusedStatus(int keyReusedStatus) {
            if (keyReusedStatus != 422 && keyReusedStatus != 409) {
                throw new IllegalArgumentException("A reused key is answered 422 or 409, not " + keyReusedStatus);
            }
            this.keyReusedStatus = keyReusedStatus;
            return this;
        }

        /**
         * Whether the endpoint also answers {@code Prefer: respond-async} (RFC 7240) with {@code 202 Accepted}: then
         * a key is checked to be one request whichever way it was asked for.
         */
        public Builder respondsAsync(boolean respondsAsync) {
            this.respondsAsync = respondsAsync;
            return this;
        }

        public ConformanceTarget build() {
            return new ConformanceTarget(this);
        }
    }
}
