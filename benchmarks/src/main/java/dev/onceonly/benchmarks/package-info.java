/** The benchmark suite and its report. */
package dev.onceonly.benchmarks;
