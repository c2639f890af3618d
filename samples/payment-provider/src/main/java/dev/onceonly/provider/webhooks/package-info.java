/** Signed webhooks, delivered at least once (on purpose more than once), with the log of what was sent. */
@NullMarked
package dev.onceonly.provider.webhooks;

import org.jspecify.annotations.NullMarked;
