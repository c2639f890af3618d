package dev.onceonly.spring.boot.web;

import dev.onceonly.CanonicalJson;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.MalformedRequestBodyException;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.Part;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
 */
record IdempotentEndpoint(@Nullable String operation, Set<String> methods, boolean keyRequired,
        IdempotencyEngine engine, CanonicalJson canonicalJson, List<String> fingerprintHeaders,
        Set<String> fingerprintParameters) {

    /** Stands for every query parameter in {@link #fingerprintParameters}. */
    static final String ALL_PARAMETERS = "*";

    /** The operation of a request matched by {@code route}. */
    String operationFor(HttpServletRequest request, String route) {
        return operationFor(request.getMethod(), route);
    }

    /** The operation of a request with {@code method} matched by {@code route}. */
    String operationFor(String method, String route) {
        return operation != null ? operation : method + " " + route;
    }

    /**
     * What makes two requests the same: method, route template, concrete path, the query parameters that take
     * part, the selected headers, the content type with its charset, and the body: canonical if JSON, form fields,
     * multipart parts, or else the bytes.
     *
     * @throws dev.onceonly.MalformedRequestBodyException if a JSON body is malformed
     * @throws UnsupportedRequestEncodingException if the body has a content coding or an unknown charset
     */
    Fingerprint fingerprint(HttpServletRequest request, String route, byte[] body, long maxPartBytes)
            throws IOException {
        RequestEncoding encoding = RequestEncoding.of(request);
        Fingerprint.Builder fingerprint = selectedParts(request.getMethod(), route, ConcretePath.of(request),
                request.getQueryString(), header -> Collections.list(request.getHeaders(header)), encoding);
        if (encoding.isMultipart()) {
            parts(request, fingerprint, maxPartBytes);
            return fingerprint.build();
        }
        if (encoding.isForm()) {
            formFields(request, QueryString.parse(request.getQueryString()), fingerprint);
            return fingerprint.build();
        }
        return withBody(fingerprint, encoding, body);
    }

    /**
     * The same for a request whose body was read whole, as a reactive server reads it: form fields are parsed from
     * the body.
     *
     * @param path the raw path within the application
     * @param headers a request header's values by name
     * @throws dev.onceonly.MalformedRequestBodyException if a JSON body is malformed
     * @throws UnsupportedRequestEncodingException for a multipart body, whose parts a retry sends under a new
     *     boundary
     */
    Fingerprint fingerprint(String method, String route, String path, @Nullable String query,
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
    private Fingerprint.Builder selectedParts(String method, String route, String concretePath,
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

    private Fingerprint withBody(Fingerprint.Builder fingerprint, RequestEncoding encoding, byte[] body) {
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

    /**
     * The fields of a form post, which are its body. The servlet API mixes them with the query string's
     * parameters, presenting those first (Servlet 6.0, 3.1.1), so each name's first values from the query are
     * skipped.
     */
    private static void formFields(HttpServletRequest request, Map<String, List<String>> query,
            Fingerprint.Builder fingerprint) {
        new TreeMap<>(request.getParameterMap()).forEach((name, values) -> {
            for (int i = query.getOrDefault(name, List.of()).size(); i < values.length; i++) {
                fingerprint.component("form:" + name, values[i]);
            }
        });
    }

    /**
     * Each part by name, file name, content type and the SHA-256 of its bytes: a client's retry sends the same
     * parts under a new boundary, so the raw body would differ.
     */
    private static void parts(HttpServletRequest request, Fingerprint.Builder fingerprint, long maxPartBytes)
            throws IOException {
        Collection<Part> parts;
        try {
            parts = request.getParts();
        } catch (IllegalStateException tooLarge) {
            // The container's multipart size limits
            throw RequestBodyTooLargeException.of(maxPartBytes);
        } catch (ServletException | IOException malformed) {
            throw MalformedRequestBodyException.ofMultipart();
        }
        for (Part part : parts) {
            if (part.getSize() > maxPartBytes) {
                throw RequestBodyTooLargeException.of(maxPartBytes);
            }
            try (InputStream in = part.getInputStream()) {
                Fingerprint digest = Fingerprint.builder().rawBody(in.readAllBytes()).build();
                fingerprint.component("part:" + part.getName(), String.valueOf(part.getSubmittedFileName()) + "|"
                        + part.getContentType() + "|" + digest.hex());
            }
        }
    }

    /**
     * Whether the container parses this request's body (form fields, multipart parts) itself.
     *
     * @throws UnsupportedRequestEncodingException if the body has a content coding or an unknown charset
     */
    static boolean isParsedByContainer(HttpServletRequest request) {
        RequestEncoding encoding = RequestEncoding.of(request);
        return encoding.isForm() || encoding.isMultipart();
    }
}
