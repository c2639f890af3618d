package dev.onceonly.provider.web;

import jakarta.servlet.ServletException;
import java.io.IOException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.coyote.ActionCode;

/**
 * Gives each request a {@link ConnectionDrop} as a request attribute. The servlet API cannot close a connection
 * without a response, and an exception from a handler becomes a 500; Tomcat's {@code CLOSE_NOW} action, which
 * Tomcat itself uses on I/O errors, stops all further output and closes the socket once the request ends.
 */
final class ConnectionDropValve extends ValveBase {

    static final String ATTRIBUTE = ConnectionDrop.class.getName();

    ConnectionDropValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        request.setAttribute(ATTRIBUTE,
                (ConnectionDrop) () -> response.getCoyoteResponse().action(ActionCode.CLOSE_NOW, null));
        getNext().invoke(request, response);
    }
}
