package dev.onceonly.example.checkout;

import dev.onceonly.example.web.Problems;
import dev.onceonly.redis.FormTokens;
import dev.onceonly.spring.boot.redis.OnceOnlyRedis;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The checkout form's one-time tokens. A token is consumed inside the idempotent request, so a retry under the same
 * Idempotency-Key replays the first answer instead of finding its token used; a second submission of the same form
 * under another key (a page that made a new key per click, an old tab) is refused. A submission that rolls back
 * gives its token back.
 *
 * <p>Without Redis (off, or not answering) no token can be issued or checked: the form is then submitted without
 * one, and its Idempotency-Key alone guards it. Exactly one order per key holds either way; the token only adds
 * "one order per rendered form".
 */
@Component
class CheckoutTokens {

    private static final Logger log = LoggerFactory.getLogger(CheckoutTokens.class);

    private final @Nullable OnceOnlyRedis redis;
    private final @Nullable FormTokens tokens;
    private final Problems problems;

    CheckoutTokens(ObjectProvider<OnceOnlyRedis> redis, Problems problems,
            @Value("${example.checkout.form-token-ttl:30m}") Duration ttl) {
        this.redis = redis.getIfAvailable();
        this.tokens = this.redis == null ? null : new FormTokens(this.redis.template(), this.redis.prefix(), "checkout",
                ttl);
        this.problems = problems;
    }

    /** A token for a newly rendered form, or none while Redis is unavailable. */
    CheckoutToken issue(String owner) {
        if (tokens == null) {
            return new CheckoutToken(null, 0);
        }
        try {
            return new CheckoutToken(tokens.issue(owner), tokens.ttl().toSeconds());
        } catch (DataAccessException e) {
            log.warn("No checkout form token: Redis unavailable ({})", e.getClass().getSimpleName());
            return new CheckoutToken(null, 0);
        }
    }

    /**
     * Consumes the submitted token inside the current transaction, which gives it back if it rolls back.
     *
     * @throws org.springframework.web.ErrorResponseException 409 {@code form-token-used} or 400
     *     {@code form-token-invalid}, stored as the submission's answer
     */
    void consume(String owner, @Nullable String token) {
        if (tokens == null || redis == null) {
            return;
        }
        if (token == null && !redis.answers()) {
            // Rendered while Redis was unavailable, and it still is.
            return;
        }
        FormTokens.Consumption consumption;
        try {
            consumption = tokens.consume(owner, token);
        } catch (DataAccessException e) {
            log.warn("Checkout form token not checked: Redis unavailable ({}); the Idempotency-Key alone guards "
                    + "this submission", e.getClass().getSimpleName());
            return;
        }
        switch (consumption.outcome()) {
            case CONSUMED -> giveBackOnRollback(consumption);
            case ALREADY_USED -> throw problems.of(HttpStatus.CONFLICT, "form-token-used", "Form already submitted",
                    "This form was submitted before; reload the page to place another order");
            case UNKNOWN -> throw problems.of(HttpStatus.BAD_REQUEST, "form-token-invalid", "Form token invalid",
                    "The form's token expired or was never issued to you; reload the page and submit again");
        }
    }

    private static void giveBackOnRollback(FormTokens.Consumption consumption) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int status) {
                if (status != STATUS_COMMITTED) {
                    try {
                        consumption.restore();
                    } catch (DataAccessException e) {
                        log.warn("Could not give a checkout form token back ({})", e.getClass().getSimpleName());
                    }
                }
            }
        });
    }
}
