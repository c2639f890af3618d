package dev.onceonly.inbox;

/**
 * What {@link Inbox#receive} did with a message.
 *
 * @param duplicate {@code true} if an earlier delivery was handled and this one ran nothing
 * @param result the result the handling delivery stored, possibly empty
 */
public record Delivery(boolean duplicate, byte[] result) {

    public Delivery {
        result = result.clone();
    }

    @Override
    public byte[] result() {
        return result.clone();
    }
}
