package dev.onceonly.example.payments;

/** What the payment provider answered a charge: made, declined, or not known (try again under the same key). */
sealed interface ChargeResult {

    /** The charge was made (or made before under this key, and replayed). */
    record Charged(String chargeId) implements ChargeResult {
    }

    /**
     * The card was declined; the provider stored that for the key, so asking again changes nothing.
     *
     * @param problem the provider's problem body (its type and the declined charge's id), for the log; never
     *     answered to the customer
     */
    record Declined(String problem) implements ChargeResult {
    }

    /**
     * No answer that says what happened: the provider was down (5xx), still busy with the key (409), too slow, or
     * unreachable, or it answered what this client does not expect (another status, a success naming no charge).
     * The charge may or may not have been made; a retry under the same key finds out.
     *
     * @param reason for the log: a status or the kind of failure, never a body
     */
    record Unavailable(String reason) implements ChargeResult {
    }
}
