package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

/**
 * Every 4xx of the service is an RFC 9457 problem, also those answered before or around the idempotency filter:
 * by Tomcat's parser, Spring Security's firewall and entry point, and Spring MVC's argument resolution. Requests
 * go over a raw socket, since HTTP clients refuse to send most of these.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example"
})
@Timeout(60)
class ErrorResponsesIT {

    private static final String PROBLEMS = "https://onceonly.dev/problems/";
    private static final String ORDER = "{\"skuId\": 42, \"quantity\": 2}";
    private static final String ALICE = "Authorization: Basic YWxpY2U6YWxpY2UtcGFzcw==\r\n";

    @LocalServerPort
    int port;

    /** A raw HTTP/1.1 response: the status, the header block (lower case) and the body. */
    record RawResponse(int status, String headers, String body) {

        void assertProblem(int expectedStatus) {
            assertThat(status).as(headers + body).isEqualTo(expectedStatus);
            assertThat(headers).contains("content-type: application/problem+json");
            assertThat(body).contains("\"status\":" + expectedStatus).doesNotContain("<html")
                    .doesNotContain("Exception");
        }
    }

    // Issue 8 (hardening)
    @Test
    void nonAsciiIdempotencyKeyIsA400ProblemNeverAnErrorPage() throws Exception {
        RawResponse accented = send(order("clé-0123456789abcdef".getBytes(StandardCharsets.UTF_8)));
        // The UTF-8 bytes of '€' include 0x82, a control character once Tomcat decodes the header as ISO-8859-1.
        RawResponse euro = send(order("€uro-0123456789abcdef".getBytes(StandardCharsets.UTF_8)));

        accented.assertProblem(400);
        assertThat(accented.body()).contains(PROBLEMS + "invalid-idempotency-key");
        euro.assertProblem(400);
        assertThat(euro.body()).contains(PROBLEMS + "request-rejected").doesNotContain("uro-0123456789abcdef");
    }

    // Issue 8 (hardening)
    @Test
    void controlCharacterInAHeaderIsA400ProblemFromTheContainer() throws Exception {
        RawResponse response = send(order(new byte[] {'k', 0x01, 'y'}));

        response.assertProblem(400);
    }

    // Issue 8 (hardening)
    @Test
    void malformedRequestLineAndUnparsablePathAre400Problems() throws Exception {
        RawResponse extraToken = send(ascii("GET /api/orders HTTP/1.1 extra\r\nHost: x\r\nConnection: close\r\n\r\n"));
        RawResponse badPath = send(ascii("GET /api/or<ders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));

        extraToken.assertProblem(400);
        badPath.assertProblem(400);
    }

    // Issue 8 (hardening)
    @Test
    void pathRejectedByTheFirewallIsA400Problem() throws Exception {
        RawResponse response = send(ascii("GET /api/orders/%2e%2e/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + ALICE + "\r\n"));

        response.assertProblem(400);
        assertThat(response.body()).contains(PROBLEMS + "request-rejected");
    }

    // Issue 8 (hardening)
    @Test
    void unauthenticatedRequestIsA401ProblemWithTheChallengeOfTheServicesSecurity() throws Exception {
        RawResponse response = send(ascii("POST /api/orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nIdempotency-Key: " + UUID.randomUUID() + "\r\nContent-Length: "
                + ORDER.length() + "\r\n\r\n" + ORDER));

        response.assertProblem(401);
        assertThat(response.headers()).contains("www-authenticate: basic realm=");
    }

    // Issue 8 (hardening)
    @Test
    void unknownCharsetAndUnresolvableArgumentAre4xxProblems() throws Exception {
        RawResponse charset = send(ascii("POST /api/orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + ALICE
                + "Content-Type: application/json; charset=no-such-charset\r\nIdempotency-Key: " + UUID.randomUUID()
                + "\r\nContent-Length: " + ORDER.length() + "\r\n\r\n" + ORDER));
        RawResponse notANumber = send(ascii("GET /api/orders/forty-two HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + ALICE + "\r\n"));

        charset.assertProblem(415);
        notANumber.assertProblem(400);
    }

    // issue 39: 219 of 8,000 fuzzed requests were answered 500, in three shapes.
    @Test
    void multipartBodyWithoutABoundaryIsNeverAServerError() throws Exception {
        String body = "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--\r\n";
        RawResponse patch = send(ascii("PATCH /api/orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + ALICE
                + "Content-Type: multipart/form-data\r\nContent-Length: " + body.length() + "\r\n\r\n" + body));
        // Alice's own orders, whatever the database holds (order 1 may be another user's: 404, body or not).
        RawResponse get = send(ascii("GET /api/orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + ALICE
                + "Content-Type: multipart/form-data\r\nContent-Length: " + body.length() + "\r\n\r\n" + body));

        assertThat(patch.status()).as(patch.body()).isBetween(400, 499);
        patch.assertProblem(patch.status());
        assertThat(get.status()).as("a GET's body is not read: " + get.body()).isEqualTo(200);
    }

    @Test
    void undecodableFormBodyOnPutPatchAndDeleteIsA4xxProblem() throws Exception {
        for (String method : new String[] {"PUT", "PATCH", "DELETE"}) {
            RawResponse response = send(ascii(method + " /api/orders/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    + ALICE + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\n\r\na=%zz"));

            assertThat(response.status()).as(method + " " + response.body()).isBetween(400, 499);
            response.assertProblem(response.status());
        }
    }

    @Test
    void wildcardContentTypeOnTheAdministratorsEndpointIsA4xxProblem() throws Exception {
        String body = "{\"owner\":\"alice\",\"operation\":\"x\",\"key\":\"k\",\"reason\":\"r\"}";
        for (String method : new String[] {"GET", "POST", "DELETE"}) {
            RawResponse response = send(ascii(method + " /actuator/onceonly?owner=alice&operation=x&key=k"
                    + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Basic b3BzOm9wcy1wYXNz\r\n"
                    + "Content-Type: */*\r\nContent-Length: " + body.length() + "\r\n\r\n" + body));

            assertThat(response.status()).as(method + " " + response.body()).isBetween(400, 499);
            response.assertProblem(response.status());
        }
    }

    private static byte[] order(byte[] key) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.write(("POST /api/orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + ALICE
                + "Content-Type: application/json\r\nContent-Length: " + ORDER.length() + "\r\nIdempotency-Key: ")
                .getBytes(StandardCharsets.ISO_8859_1));
        request.write(key);
        request.write(("\r\n\r\n" + ORDER).getBytes(StandardCharsets.ISO_8859_1));
        return request.toByteArray();
    }

    private static byte[] ascii(String request) {
        return request.getBytes(StandardCharsets.US_ASCII);
    }

    private RawResponse send(byte[] request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(request);
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int headEnd = response.indexOf("\r\n\r\n");
            String head = response.substring(0, headEnd);
            return new RawResponse(Integer.parseInt(head.substring(9, 12)), head.toLowerCase(Locale.ROOT),
                    response.substring(headEnd + 4));
        }
    }
}
