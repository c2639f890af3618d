package dev.onceonly.example.web;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tomcat's own error report as an RFC 9457 problem instead of an HTML page: the answer to requests Tomcat refuses
 * before any filter or servlet sees them (a malformed request line, a control character in a header value, a path
 * with characters a URI cannot hold), and to errors no error page handled. Never writes the error's message.
 */
final class ProblemErrorReportValve extends ErrorReportValve {

    private final JsonMapper json;

    ProblemErrorReportValve(JsonMapper json) {
        this.json = json;
    }

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        AtomicBoolean ioAllowed = new AtomicBoolean(true);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return;
        }
        ProblemDetail problem = ProblemDetail.forStatus(status <= 599 ? HttpStatusCode.valueOf(status)
                : HttpStatus.INTERNAL_SERVER_ERROR);
        try {
            response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
            response.setCharacterEncoding("UTF-8");
            PrintWriter writer = response.getReporter();
            if (writer != null) {
                writer.write(json.writeValueAsString(problem));
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException closed) {
            // The client is gone or the response was committed meanwhile: nothing more can be said.
        }
    }
}
