/** Auto-configuration of idempotent Kafka listeners (onceonly-kafka). */
@NullMarked
package dev.onceonly.spring.boot.kafka;

import org.jspecify.annotations.NullMarked;
