package dev.onceonly.provider.web;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Closes the connection of the current request without sending any response: the client sees the connection end
 * (a reset or a premature end of stream), never a status line. Whatever the handler writes afterwards is discarded.
 */
@FunctionalInterface
public interface ConnectionDrop {

    /** Ends the connection; nothing of the response is sent. */
    void now();

    /**
     * The drop for {@code request}, installed by {@link ConnectionDropValve}.
     *
     * @throws IllegalStateException if the request did not pass the valve (not served by the embedded Tomcat)
     */
    static ConnectionDrop of(HttpServletRequest request) {
        if (request.getAttribute(ConnectionDropValve.ATTRIBUTE) instanceof ConnectionDrop drop) {
            return drop;
        }
        throw new IllegalStateException("no connection drop: the request was not served by the embedded Tomcat");
    }
}
