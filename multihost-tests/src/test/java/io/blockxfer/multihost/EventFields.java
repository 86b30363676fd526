package io.blockxfer.multihost;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code key=value} fields of a control line such as {@code E STATS peer=t1 done=5 ...}.
 *
 * <p><b>Thread safety:</b> immutable.
 */
final class EventFields {

    private final String line;
    private final Map<String, String> fields;

    private EventFields(String line, Map<String, String> fields) {
        this.line = line;
        this.fields = fields;
    }

    static EventFields parse(String line) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String token : line.split(" ", -1)) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                fields.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        return new EventFields(line, fields);
    }

    String get(String key) {
        String v = fields.get(key);
        if (v == null) {
            throw new AssertionError("no " + key + "= in: " + line);
        }
        return v;
    }

    long num(String key) {
        return Long.parseLong(get(key));
    }

    String line() {
        return line;
    }

    @Override
    public String toString() {
        return line;
    }
}
