/**
 * The reference service's WebFlux twin, for tests: outside {@code dev.onceonly.example}, so that the servlet
 * service's component scan never picks it up.
 */
@NullMarked
package dev.onceonly.webfluxtwin;

import org.jspecify.annotations.NullMarked;
