package dev.onceonly;

import org.jspecify.annotations.Nullable;

/**
 * A setting is invalid. The message names the setting and the accepted values; invalid configuration fails at
 * startup and is never silently corrected.
 */
public final class IdempotencyConfigurationException extends IdempotencyException {

    private final String setting;
    private final String problem;
    private final @Nullable String action;

    private IdempotencyConfigurationException(String setting, String problem, @Nullable String action) {
        super("Invalid setting '" + setting + "': " + problem + (action == null ? "" : ". " + action));
        this.setting = setting;
        this.problem = problem;
        this.action = action;
    }

    /**
     * @param setting the name of the setting, such as {@code leaseDuration} or {@code onceonly.lease.duration}
     * @param problem what is wrong with its value
     */
    public static IdempotencyConfigurationException of(String setting, String problem) {
        return new IdempotencyConfigurationException(setting, problem, null);
    }

    /**
     * @param setting the name of the setting, such as a property or a bean type
     * @param problem what is wrong
     * @param action what to do about it, as a sentence
     */
    public static IdempotencyConfigurationException of(String setting, String problem, String action) {
        return new IdempotencyConfigurationException(setting, problem, action);
    }

    /**
     * The same problem under the name the user knows the setting by, such as a property for a builder method.
     */
    public IdempotencyConfigurationException renamed(String setting) {
        return new IdempotencyConfigurationException(setting, problem, action);
    }

    /** The name of the invalid setting. */
    public String setting() {
        return setting;
    }

    /** What is wrong with it. */
    public String problem() {
        return problem;
    }

    /** What to do about it. */
    public String action() {
        return action != null ? action : "Change '" + setting + "' to an accepted value.";
    }

    @Override
    public String problemType() {
        return "invalid-configuration";
    }
}
