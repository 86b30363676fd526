package io.blockxfer.cli.internal;

import java.math.BigDecimal;
import java.math.MathContext;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.json.JsonMapper;

/**
 * The tool's JSON, through Jackson: one mapper for reports (indented, map keys in insertion order)
 * and for the bench control channel (compact). Measured numbers are rounded to six significant
 * digits first, and non-finite ones become {@code null}, so reports stay readable and valid JSON.
 *
 * <p><b>Thread safety:</b> thread-safe; Jackson's mappers are immutable once built.
 */
public final class JsonOutput {

    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final MathContext SIGNIFICANT = new MathContext(6);
    /** Indented, with {@code "name": value} rather than Jackson's default {@code "name" : value}. */
    private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter(Separators.createDefaultInstance()
            .withObjectNameValueSpacing(Separators.Spacing.AFTER));

    private JsonOutput() {
    }

    /** The shared mapper (compact output). */
    public static JsonMapper mapper() {
        return MAPPER;
    }

    /** {@code value} as indented JSON. */
    public static String pretty(Object value) {
        return MAPPER.writer().with(PRETTY).writeValueAsString(value);
    }

    /** {@code value} as compact JSON. */
    public static String compact(Object value) {
        return MAPPER.writeValueAsString(value);
    }

    /** {@code d} rounded to six significant digits, or {@code null} when it is not finite. */
    public static @Nullable Double measured(double d) {
        if (!Double.isFinite(d)) {
            return null;
        }
        if (d == 0) {
            return 0.0;
        }
        return new BigDecimal(d).round(SIGNIFICANT).doubleValue();
    }
}
