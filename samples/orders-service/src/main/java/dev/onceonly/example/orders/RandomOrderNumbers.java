package dev.onceonly.example.orders;

import java.security.SecureRandom;
import org.springframework.stereotype.Component;

/**
 * {@code ORD-} and 12 random Crockford base-32 characters (60 bits): unguessable, readable on the phone, and
 * unique in practice; the unique constraint catches the rest.
 */
@Component
class RandomOrderNumbers implements OrderNumbers {

    private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
    private final SecureRandom random = new SecureRandom();

    @Override
    public String next() {
        char[] number = new char[12];
        for (int i = 0; i < number.length; i++) {
            number[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return "ORD-" + new String(number);
    }
}
