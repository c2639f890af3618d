/** JMH benchmarks of the in-process work: key parsing and fingerprinting. */
package dev.onceonly.benchmarks.jmh;
