package dev.onceonly;

/**
 * A setting is invalid. The message names the setting and the accepted values; invalid configuration fails at
 * startup and is never silently corrected.
 */
public final class IdempotencyConfigurationException extends IdempotencyException {

    private IdempotencyConfigurationException(String message) {
        super(message);
    }

    /**
     * @param setting the name of the setting, such as {@code leaseDuration} or {@code onceonly.lease.duration}
     * @param problem what is wrong with its value
     */
    public static IdempotencyConfigurationException of(String setting, String problem) {
        return new IdempotencyConfigurationException("Invalid setting '" + setting + "': " + problem);
    }

    @Override
    public String problemType() {
        return "invalid-configuration";
    }
}
