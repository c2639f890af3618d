package dev.onceonly.spring.web.internal;

import dev.onceonly.CanonicalJson;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.http.UnsupportedRequestEncodingException;
import dev.onceonly.spring.OnceOnlySetup;
import dev.onceonly.spring.web.Idempotent;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One idempotent endpoint: which requests it applies to, and how they are named, fingerprinted and executed.
 *
 * @param operation the operation name, or {@code null} for "method and route template"
 * @param methods the HTTP methods it applies to
 * @param keyRequired whether a request without a key is refused
 * @param engine the engine with this endpoint's wait, retention, policy and mode
 * @param canonicalJson JSON canonicalisation with this endpoint's excluded fields
 * @param fingerprintHeaders request headers that are part of the fingerprint
 * @param fingerprintParameters query parameters that are part of the fingerprint; {@code *} for all of them
 * @param asynchronous whether the handler accepts requests for a worker ({@link Idempotent#asynchronous()}) rather
 *     than running them in the engine
 */
public record IdempotentEndpoint(@Nullable String operation, Set<String> methods, boolean keyRequired,
        IdempotencyEngine engine, CanonicalJson canonicalJson, List<String> fingerprintHeaders,
        Set<String> fingerprintParameters, boolean asynchronous) {

    /** Stands for every query parameter in {@link #fingerprintParameters}. */
    public static final String ALL_PARAMETERS = "*";

    /**
     * Tells {@code setup} how this endpoint runs, named by its operation or else by {@code name}, such as its
     * handler or path.
     */
    public void reportTo(OnceOnlySetup setup, String name) {
        setup.operation(OnceOnlySetup.Kind.HTTP, operation != null ? operation : name,
                asynchronous ? "asynchronous" : OnceOnlySetup.label(engine.mode()));
    }

    /** The operation of a request with {@code method} matched by {@code route}. */
    public String operationFor(String method, String route) {
        return operation != null ? operation : method + " " + route;
    }

    /**
     * What makes two requests the same: method, route template, concrete path, the query parameters that take
     * part, the selected headers, the content type with its charset, and the body: canonical if JSON, form fields,
     * or else the bytes. This is for a request whose body was read whole, as a reactive server reads it: form
     * fields are parsed from the body; a servlet request's are the container's (the servlet filter's
     * {@code ServletFingerprints}).
     *
     * @param path the raw path within the application
     * @param headers a request header's values by name
     * @throws dev.onceonly.MalformedRequestBodyException if a JSON body is malformed
     * @throws UnsupportedRequestEncodingException for a multipart body, whose parts a retry sends under a new
     *     boundary
     */
    public Fingerprint fingerprint(String method, String route, String path, @Nullable String query,
            Function<String, List<String>> headers, RequestEncoding encoding, byte[] body) {
        Fingerprint.Builder fingerprint = selectedParts(method, route, ConcretePath.of(path), query, headers,
                encoding);
        if (encoding.isMultipart()) {
            throw UnsupportedRequestEncodingException.ofMultipart();
        }
        if (encoding.isForm()) {
            Charset charset = encoding.charset() != null ? encoding.charset() : StandardCharsets.UTF_8;
            new TreeMap<>(QueryString.parse(new String(body, charset))).forEach((name, values) -> {
                for (String value : values) {
                    String decoded = QueryString.decode(value);
                    fingerprint.component("form:" + name, decoded != null ? decoded : value);
                }
            });
            return fingerprint.build();
        }
        return withBody(fingerprint, encoding, body);
    }

    /** Everything but the body. */
    public Fingerprint.Builder selectedParts(String method, String route, String concretePath,
            @Nullable String query, Function<String, List<String>> headers, RequestEncoding encoding) {
        Fingerprint.Builder fingerprint = Fingerprint.builder().method(method).route(route)
                .component("path", concretePath);
        new TreeMap<>(QueryString.parse(query)).forEach((name, values) -> {
            if (takesPart(name)) {
                for (String value : values) {
                    String decoded = QueryString.decode(value);
                    if (decoded != null) {
                        fingerprint.component("query:" + name, decoded);
                    } else {
                        fingerprint.component("query-undecodable:" + name, value);
                    }
                }
            }
        });
        for (String header : fingerprintHeaders) {
            for (String value : headers.apply(header)) {
                fingerprint.component("header:" + header, value);
            }
        }
        encoding.addTo(fingerprint);
        return fingerprint;
    }

    public Fingerprint withBody(Fingerprint.Builder fingerprint, RequestEncoding encoding, byte[] body) {
        if (body.length == 0) {
            return fingerprint.build();
        }
        if (encoding.isJson()) {
            fingerprint.jsonBody(encoding.jsonInUtf8(body), canonicalJson);
        } else {
            fingerprint.rawBody(body);
        }
        return fingerprint.build();
    }

    private boolean takesPart(String queryParameter) {
        return fingerprintParameters.contains(ALL_PARAMETERS) || fingerprintParameters.contains(queryParameter);
    }
}
