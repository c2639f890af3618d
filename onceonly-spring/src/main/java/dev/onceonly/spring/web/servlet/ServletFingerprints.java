package dev.onceonly.spring.web.servlet;

import dev.onceonly.Fingerprint;
import dev.onceonly.MalformedRequestBodyException;
import dev.onceonly.http.RequestBodyTooLargeException;
import dev.onceonly.http.UnsupportedRequestEncodingException;
import dev.onceonly.spring.web.internal.ConcretePath;
import dev.onceonly.spring.web.internal.IdempotentEndpoint;
import dev.onceonly.spring.web.internal.QueryString;
import dev.onceonly.spring.web.internal.RequestEncoding;
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
import org.springframework.http.HttpHeaders;

/**
 * The fingerprint of a servlet request, whose form fields and multipart parts the container parses. Kept apart
 * from {@link IdempotentEndpoint} so that a WebFlux application without the servlet API never loads a servlet type.
 */
final class ServletFingerprints {

    private ServletFingerprints() {
    }

    /**
     * What makes two requests the same: method, route template, concrete path, the query parameters that take
     * part, the selected headers, the content type with its charset, and the body: canonical if JSON, form fields,
     * multipart parts, or else the bytes.
     *
     * @param encoding the body's encoding, {@link #encoding} of the request
     * @throws dev.onceonly.MalformedRequestBodyException if a JSON body is malformed
     */
    static Fingerprint of(IdempotentEndpoint endpoint, HttpServletRequest request, String route,
            RequestEncoding encoding, byte[] body, long maxPartBytes) throws IOException {
        Fingerprint.Builder fingerprint = endpoint.selectedParts(request.getMethod(), route,
                ConcretePath.of(request.getRequestURI().substring(request.getContextPath().length())),
                request.getQueryString(), header -> Collections.list(request.getHeaders(header)), encoding);
        if (encoding.isMultipart()) {
            parts(request, fingerprint, maxPartBytes);
            return fingerprint.build();
        }
        if (encoding.isForm()) {
            formFields(request, QueryString.parse(request.getQueryString()), fingerprint);
            return fingerprint.build();
        }
        return endpoint.withBody(fingerprint, encoding, body);
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
     * How the request's body is encoded; the container parses a form's or a multipart body itself.
     *
     * @throws UnsupportedRequestEncodingException if the body has a content coding or an unknown charset
     */
    static RequestEncoding encoding(HttpServletRequest request) {
        return RequestEncoding.of(Collections.list(request.getHeaders(HttpHeaders.CONTENT_ENCODING)),
                request.getContentType());
    }
}
