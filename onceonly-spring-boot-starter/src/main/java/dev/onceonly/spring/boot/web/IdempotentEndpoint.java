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
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;

/**
 * One idempotent endpoint: how its requests are named, fingerprinted and executed.
 *
 * @param operation the operation name, or {@code null} for "method and route template"
 * @param keyRequired whether a request without a key is refused
 * @param engine the engine with this endpoint's wait, retention, policy and mode
 * @param canonicalJson JSON canonicalisation with this endpoint's excluded fields
 * @param fingerprintHeaders request headers that are part of the fingerprint
 */
record IdempotentEndpoint(@Nullable String operation, boolean keyRequired, IdempotencyEngine engine,
        CanonicalJson canonicalJson, List<String> fingerprintHeaders) {

    /** The operation of a request matched by {@code route}. */
    String operationFor(HttpServletRequest request, String route) {
        return operation != null ? operation : request.getMethod() + " " + route;
    }

    /**
     * What makes two requests the same: method, route template, path variables, parameters (query string, and
     * form fields of form posts), the selected headers, the content type and the body (canonical if JSON).
     *
     * @throws dev.onceonly.MalformedRequestBodyException if a JSON body is malformed
     */
    Fingerprint fingerprint(HttpServletRequest request, String route, Map<String, String> pathVariables,
            byte[] body, long maxPartBytes) throws IOException {
        Fingerprint.Builder fingerprint = Fingerprint.builder().method(request.getMethod()).route(route);
        new TreeMap<>(pathVariables).forEach((name, value) -> fingerprint.component("path:" + name, value));
        new TreeMap<>(request.getParameterMap()).forEach((name, values) -> {
            for (String value : values) {
                fingerprint.component("param:" + name, value);
            }
        });
        for (String header : fingerprintHeaders) {
            for (String value : Collections.list(request.getHeaders(header))) {
                fingerprint.component("header:" + header, value);
            }
        }
        MediaType contentType = contentType(request);
        if (contentType != null) {
            fingerprint.component("content-type", contentType.getType() + "/" + contentType.getSubtype());
        }
        if (isMultipart(contentType)) {
            parts(request, fingerprint, maxPartBytes);
        } else if (body.length == 0) {
            return fingerprint.build();
        } else if (contentType != null && isJson(contentType)) {
            fingerprint.jsonBody(body, canonicalJson);
        } else {
            fingerprint.rawBody(body);
        }
        return fingerprint.build();
    }

    private static @Nullable MediaType contentType(HttpServletRequest request) {
        try {
            return request.getContentType() == null ? null : MediaType.parseMediaType(request.getContentType());
        } catch (RuntimeException invalid) {
            return null;
        }
    }

    private static boolean isJson(MediaType type) {
        return MediaType.APPLICATION_JSON.isCompatibleWith(type) || type.getSubtype().endsWith("+json");
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

    private static boolean isMultipart(@Nullable MediaType type) {
        return type != null && MediaType.MULTIPART_FORM_DATA.isCompatibleWith(type);
    }

    /** Whether the container parses this request's body (form fields, multipart parts) itself. */
    static boolean isParsedByContainer(HttpServletRequest request) {
        MediaType type = contentType(request);
        return type != null && (MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type) || isMultipart(type));
    }
}
