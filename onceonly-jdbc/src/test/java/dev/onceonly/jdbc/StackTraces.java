package dev.onceonly.jdbc;

import java.io.PrintWriter;
import java.io.StringWriter;

final class StackTraces {

    private StackTraces() {
    }

    /** Everything a logged stack trace of {@code e} prints: its messages, causes and suppressed exceptions. */
    static String printed(Throwable e) {
        StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        return text.toString();
    }
}
