/** The HTTP load benchmark of the reference service. */
package dev.onceonly.benchmarks.http;
