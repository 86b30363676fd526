package io.blockxfer.nixl.internal;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A NIXL release number, {@code major.minor.patch}, ordered numerically.
 *
 * <p><b>Thread safety:</b> immutable.
 *
 * @param major the major number
 * @param minor the minor number
 * @param patch the patch number
 */
public record NixlVersion(int major, int minor, int patch) implements Comparable<NixlVersion> {

    private static final Pattern FORM = Pattern.compile("(\\d{1,4})\\.(\\d{1,4})\\.(\\d{1,4})");

    /** Checks the numbers. */
    public NixlVersion {
        if (major < 0 || minor < 0 || patch < 0) {
            throw new IllegalArgumentException("negative version number " + major + "." + minor + "." + patch);
        }
    }

    /**
     * Parses {@code X.Y.Z} (nothing else, no suffix).
     *
     * @throws IllegalArgumentException if {@code text} is not of that form
     */
    public static NixlVersion parse(String text) {
        return tryParse(text).orElseThrow(() -> new IllegalArgumentException("'" + text
                + "' is not a NIXL version (X.Y.Z)"));
    }

    /** {@link #parse}, or empty for anything that is not {@code X.Y.Z}. */
    public static Optional<NixlVersion> tryParse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher m = FORM.matcher(text.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new NixlVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                Integer.parseInt(m.group(3))));
    }

    @Override
    public int compareTo(NixlVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        return c != 0 ? c : Integer.compare(patch, o.patch);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
