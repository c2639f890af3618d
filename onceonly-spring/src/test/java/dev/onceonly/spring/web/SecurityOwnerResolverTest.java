package dev.onceonly.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.client.authentication.OAuth2AuthenticationToken;
import org.springframework.security.oauth2.core.ClaimAccessor;
import org.springframework.security.oauth2.core.user.DefaultOAuth2User;

class SecurityOwnerResolverTest {

    private final SecurityOwnerResolver resolver = new SecurityOwnerResolver();
    private final MockHttpServletRequest request = new MockHttpServletRequest("POST", "/orders");

    @AfterEach
    void clearContext() {
        SecurityContextHolder.clearContext();
    }

    // Issue 8 (hardening)
    @Test
    void sameSubjectFromTwoIssuersIsTwoOwners() {
        String acme = ownerOf(new Token("https://idp.example.com/realms/acme", "alice"));
        String globex = ownerOf(new Token("https://idp.example.com/realms/globex", "alice"));

        assertThat(acme).isEqualTo("https://idp.example.com/realms/acme alice");
        assertThat(globex).isEqualTo("https://idp.example.com/realms/globex alice");
    }

    @Test
    void issuerWithSpacesCannotMakeTwoPairsReadAlike() {
        String spaced = ownerOf(new Token("tenant a", "b"));
        String other = ownerOf(new Token("tenant", "a b"));

        assertThat(spaced).isNotEqualTo(other);
    }

    // Issue 8 (hardening)
    @Test
    void nameThatSpellsAnIssuerAndSubjectIsNotThatIssuersUser() {
        String jwtUser = ownerOf(new Token("https://idp.example.com", "alice"));
        String basicUser = ownerOf("https://idp.example.com alice");

        assertThat(basicUser).isEqualTo("https://idp.example.com%20alice").isNotEqualTo(jwtUser);
    }

    // Issue 8 (hardening)
    @Test
    void sameNameFromTwoOAuth2LoginsWithoutIssuerIsTwoOwners() {
        String github = ownerOfLogin("github", "alice");
        String gitlab = ownerOfLogin("gitlab", "alice");

        assertThat(github).isEqualTo("%registration:github alice");
        assertThat(gitlab).isEqualTo("%registration:gitlab alice");
        assertThat(github).isNotEqualTo(ownerOf("alice")).isNotEqualTo(ownerOf(new Token("%registration:github",
                "alice")));
    }

    @Test
    void principalWithoutClaimsIsItsName() {
        assertThat(ownerOf("alice")).isEqualTo("alice");
    }

    @Test
    void anonymousRequestHasNoOwnerAndNamelessPrincipalIsBlank() {
        SecurityContextHolder.getContext().setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
                AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
        assertThat(resolver.resolveOwner(request)).isNull();

        assertThat(ownerOf(new Token("https://idp.example.com", " "))).isBlank();
    }

    private String ownerOf(Object principal) {
        SecurityContextHolder.getContext().setAuthentication(new TestingAuthenticationToken(principal, null,
                List.of()) {
            @Override
            public String getName() {
                return principal instanceof Token token ? token.subject() : principal.toString();
            }
        });
        return resolver.resolveOwner(request);
    }

    private String ownerOfLogin(String registrationId, String name) {
        DefaultOAuth2User user = new DefaultOAuth2User(List.of(), Map.of("login", name), "login");
        SecurityContextHolder.getContext().setAuthentication(new OAuth2AuthenticationToken(user, List.of(),
                registrationId));
        return resolver.resolveOwner(request);
    }

    /** A token's claims, as a JWT or an OpenID Connect user carries them. */
    record Token(String issuer, String subject) implements ClaimAccessor {
        @Override
        public Map<String, Object> getClaims() {
            return Map.of("iss", issuer, "sub", subject);
        }
    }
}
