package dev.onceonly.spring.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.DispatcherType;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.servlet.HandlerExecutionChain;

/** The handler the filter found reaches the dispatcher only for the dispatch it was found for, and only once. */
class FoundHandlerMappingTest {

    @Test
    void aFoundHandlerIsHandedOnceAndOnlyToTheRequestDispatchItWasFoundFor() {
        HandlerExecutionChain chain = new HandlerExecutionChain(new Object());
        FoundHandlerMapping mapping = new FoundHandlerMapping();

        assertThat(handed(mapping, chain, request("POST", "/refunds"))).isSameAs(chain);
        assertThat(handed(mapping, chain, request("PATCH", "/refunds"))).isNull();
        assertThat(handed(mapping, chain, request("POST", "/other"))).isNull();
        MockHttpServletRequest error = request("POST", "/refunds");
        error.setDispatcherType(DispatcherType.ERROR);
        assertThat(handed(mapping, chain, error)).isNull();
        MockHttpServletRequest twice = request("POST", "/refunds");
        FoundHandlerMapping.remember(twice, chain);
        mapping.getHandler(twice);
        assertThat(mapping.getHandler(twice)).isNull();
    }

    /** What {@code mapping} hands the dispatch {@code dispatched} after a lookup for POST /refunds. */
    private static @Nullable HandlerExecutionChain handed(FoundHandlerMapping mapping, HandlerExecutionChain chain,
            MockHttpServletRequest dispatched) {
        MockHttpServletRequest lookedUp = request("POST", "/refunds");
        FoundHandlerMapping.remember(lookedUp, chain);
        lookedUp.getAttributeNames().asIterator().forEachRemaining(
                name -> dispatched.setAttribute(name, lookedUp.getAttribute(name)));
        return mapping.getHandler(dispatched);
    }

    private static MockHttpServletRequest request(String method, String uri) {
        return new MockHttpServletRequest(method, uri);
    }
}
