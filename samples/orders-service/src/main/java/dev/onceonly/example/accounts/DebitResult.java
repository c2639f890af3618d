package dev.onceonly.example.accounts;

/** What a debit came to. Every refusal left the account as it was. */
public sealed interface DebitResult {

    /** Taken; the account as it is now. */
    record Debited(Account account) implements DebitResult {
    }

    /** Refused: the account has moved on since the client read it. */
    record StaleVersion(long currentVersion) implements DebitResult {
    }

    /** Refused: the balance does not cover the amount. */
    record InsufficientFunds(long balance) implements DebitResult {
    }

    /** No such account in the caller's tenant (whether it exists elsewhere is not told). */
    record UnknownAccount() implements DebitResult {
    }
}
