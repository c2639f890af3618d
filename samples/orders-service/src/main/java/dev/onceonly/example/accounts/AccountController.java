package dev.onceonly.example.accounts;

import dev.onceonly.example.accounts.DebitResult.Debited;
import dev.onceonly.example.accounts.DebitResult.InsufficientFunds;
import dev.onceonly.example.accounts.DebitResult.StaleVersion;
import dev.onceonly.example.accounts.DebitResult.UnknownAccount;
import dev.onceonly.example.security.SecurityConfiguration;
import dev.onceonly.example.web.Problems;
import dev.onceonly.spring.web.Idempotent;
import jakarta.validation.Valid;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.Authentication;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The accounts API: read an account, debit it. A debit requires an {@code Idempotency-Key} and names the version
 * it expects; its refusals (stale version, insufficient funds, unknown account) are final answers, stored and
 * replayed for that key like a success, so a client that reads the account again sends a new request, with a
 * new key.
 */
@RestController
@RequestMapping("/api/accounts")
class AccountController {

    private final AccountService accounts;
    private final Problems problems;

    AccountController(AccountService accounts, Problems problems) {
        this.accounts = accounts;
        this.problems = problems;
    }

    @GetMapping("/{accountId}")
    Account get(@PathVariable long accountId, Authentication user) {
        return accounts.find(SecurityConfiguration.tenant(user), accountId)
                .orElseThrow(() -> unknown(accountId));
    }

    @PostMapping("/{accountId}/debit")
    @Idempotent("debit-account")
    Account debit(@PathVariable long accountId, @Valid @RequestBody DebitRequest request, Authentication user) {
        DebitResult result = accounts.debit(SecurityConfiguration.tenant(user), accountId, request.amount(),
                request.expectedVersion());
        return switch (result) {
            case Debited debited -> debited.account();
            case StaleVersion stale -> {
                ErrorResponseException problem = problems.of(HttpStatus.CONFLICT, "stale-version",
                        "Stale version", "The account is at version " + stale.currentVersion() + ", not "
                                + request.expectedVersion() + "; read it again and send a new request with a "
                                + "new Idempotency-Key");
                problem.getBody().setProperty("currentVersion", stale.currentVersion());
                throw problem;
            }
            case InsufficientFunds ignored -> throw problems.of(HttpStatus.UNPROCESSABLE_CONTENT,
                    "insufficient-funds", "Insufficient funds", "The balance does not cover "
                            + request.amount());
            case UnknownAccount ignored -> throw unknown(accountId);
        };
    }

    private ErrorResponseException unknown(long accountId) {
        return problems.of(HttpStatus.NOT_FOUND, "account-not-found", "Account not found",
                "No account " + accountId + " in your tenant");
    }
}
