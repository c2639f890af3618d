/** What the provider's HTTP layer shares: its problem types and the Tomcat hook that drops a connection. */
@NullMarked
package dev.onceonly.provider.web;

import org.jspecify.annotations.NullMarked;
