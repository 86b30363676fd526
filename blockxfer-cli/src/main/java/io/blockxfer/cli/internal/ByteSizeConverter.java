package io.blockxfer.cli.internal;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Converts option values such as {@code 64K} or {@code 2MiB} to a number of bytes for picocli.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class ByteSizeConverter implements ITypeConverter<Long> {

    /** For picocli. */
    public ByteSizeConverter() {
    }

    @Override
    public Long convert(String value) {
        try {
            return ByteSizes.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
