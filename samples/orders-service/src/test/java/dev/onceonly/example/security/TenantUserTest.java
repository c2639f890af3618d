package dev.onceonly.example.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TenantUserTest {

    // Issue 8 (hardening)
    @Test
    void tenantsAndUsersWithSlashesNeverShareAnOwner() {
        TenantUser userOfA = new TenantUser("b/c", "secret", "a");
        TenantUser userOfAB = new TenantUser("c", "secret", "a/b");

        assertThat(userOfA.owner()).isNotEqualTo(userOfAB.owner());
    }
}
