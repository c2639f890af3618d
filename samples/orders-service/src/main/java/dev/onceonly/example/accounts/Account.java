package dev.onceonly.example.accounts;

/**
 * An account as the API shows it, also the answer to a debit.
 *
 * @param accountId the account's id
 * @param currency the ISO 4217 code of the balance
 * @param balance what is left, in minor units
 * @param version grows by one with every debit; a debit names the version it expects
 */
public record Account(long accountId, String currency, long balance, long version) {
}
