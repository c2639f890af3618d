package dev.onceonly.docs;

import dev.onceonly.redis.FormTokens;
import dev.onceonly.spring.boot.redis.OnceOnlyRedis;
import java.time.Duration;
import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/** One order per checkout form, however often it is submitted. */
class CheckoutForms {

    private final FormTokens tokens;

    CheckoutForms(OnceOnlyRedis onceOnlyRedis) {
        this.tokens = new FormTokens(onceOnlyRedis.template(), onceOnlyRedis.prefix(), "checkout",
                Duration.ofMinutes(30));
    }

    /** When the form is rendered. */
    String issue(String owner) {
        return tokens.issue(owner);
    }

    /** Inside the idempotent operation that places the order. */
    FormTokens.Consumption consume(String owner, String token) {
        FormTokens.Consumption consumption = tokens.consume(owner, token);
        switch (consumption.outcome()) {
            case CONSUMED -> { } // go on; consumption.restore() if the transaction rolls back
            case ALREADY_USED -> throw new ErrorResponseException(HttpStatus.CONFLICT);
            case UNKNOWN -> throw new ErrorResponseException(HttpStatus.BAD_REQUEST); // expired, never issued, another owner's
        }
        return consumption;
    }
}
