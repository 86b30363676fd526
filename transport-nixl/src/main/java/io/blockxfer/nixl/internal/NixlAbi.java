package io.blockxfer.nixl.internal;

import java.lang.foreign.SymbolLookup;
import java.util.List;
import java.util.Optional;

/**
 * The C ABIs of {@code libnixl_capi.so} this binding knows, and the NIXL releases certified with
 * them. Read from each release's {@code wrapper.h} and {@code wrapper.cpp} (upstream, not shipped
 * in the wheels, not copied here):
 *
 * <ul>
 *   <li>{@link #V1_0}, NIXL 1.0.0 to 1.4.x: 96 functions. Every function this binding calls has the
 *       same signature as in 1.5. The wrapper folds every NIXL error into {@code -2}
 *       ({@code NOT_FOUND} included), {@code release_xfer_dlist_handle} frees NIXL's prepared list
 *       but not its own 16-byte wrapper, and a failed {@code prep_xfer_dlist} leaves its out-handle
 *       allocated (the caller must release it).</li>
 *   <li>{@link #V1_5}, NIXL 1.5.x: 104 functions (custom-parameter opt-args, remote descriptor
 *       lists and memory views added); {@code NOT_FOUND} ({@code -6}) is reported as such, and
 *       both wrapper leaks are fixed.</li>
 * </ul>
 * A library that exports {@code nixl_capi_get_version} is newer than both (its agent configuration
 * struct moved a field) and is refused.
 *
 * <p>Which ABI a library has is told by its symbols; which release it is comes from the wheel's
 * {@code dist-info} beside it. Both must agree, and the release must be {@link #CERTIFIED}
 * (or the system property {@value #ALLOW_UNCERTIFIED} be {@code true}).
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum NixlAbi {

    /** NIXL 1.0.0 - 1.4.x. */
    V1_0(new NixlVersion(1, 0, 0), new NixlVersion(1, 4, Integer.MAX_VALUE), false, true),
    /** NIXL 1.5.x. */
    V1_5(new NixlVersion(1, 5, 0), new NixlVersion(1, 5, Integer.MAX_VALUE), true, false);

    /**
     * System property: {@code true} accepts a release outside {@link #CERTIFIED} whose symbols
     * match a known ABI (for people who know what they are doing; nothing certifies it).
     */
    public static final String ALLOW_UNCERTIFIED = "blockxfer.nixl.allowUncertified";

    /**
     * The releases this backend is certified with: the NIXL conformance suite and the interop test
     * with NIXL's own Python API of the same release pass on the newest patch of each minor
     * (the CI matrix), and the wrapper sources of every patch listed are identical to it.
     */
    public static final List<NixlVersion> CERTIFIED = List.of(
            NixlVersion.parse("1.0.0"), NixlVersion.parse("1.0.1"), NixlVersion.parse("1.1.0"),
            NixlVersion.parse("1.2.0"), NixlVersion.parse("1.3.0"), NixlVersion.parse("1.3.1"),
            NixlVersion.parse("1.3.2"), NixlVersion.parse("1.4.0"), NixlVersion.parse("1.4.1"),
            NixlVersion.parse("1.5.0"), NixlVersion.parse("1.5.1"));

    /** The release scripts/install-natives installs by default. */
    public static final NixlVersion DEFAULT = NixlVersion.parse("1.5.1");

    /** A symbol only the 1.5 ABI has. */
    static final String V1_5_MARKER = "nixl_capi_opt_args_set_custom_param";
    /** A symbol only ABIs newer than 1.5 have. */
    static final String NEWER_MARKER = "nixl_capi_get_version";

    @SuppressWarnings("ImmutableEnumChecker") // NixlVersion is a record of three ints, immutable
    private final NixlVersion first;
    @SuppressWarnings("ImmutableEnumChecker") // as above
    private final NixlVersion last;
    private final boolean reportsNotFound;
    private final boolean leaksDlistHandle;

    NixlAbi(NixlVersion first, NixlVersion last, boolean reportsNotFound, boolean leaksDlistHandle) {
        this.first = first;
        this.last = last;
        this.reportsNotFound = reportsNotFound;
        this.leaksDlistHandle = leaksDlistHandle;
    }

    /** Whether the wrapper reports {@code NOT_FOUND} ({@code -6}) rather than folding it into {@code -2}. */
    public boolean reportsNotFound() {
        return reportsNotFound;
    }

    /** Whether {@code release_xfer_dlist_handle} leaks its 16-byte wrapper (one per prepared list released). */
    public boolean leaksDlistHandle() {
        return leaksDlistHandle;
    }

    /** Whether {@code version} belongs to this ABI. */
    public boolean covers(NixlVersion version) {
        return version.compareTo(first) >= 0 && version.compareTo(last) <= 0;
    }

    /** The ABI of {@code version}, if it is one this binding knows. */
    public static Optional<NixlAbi> of(NixlVersion version) {
        for (NixlAbi abi : values()) {
            if (abi.covers(version)) {
                return Optional.of(abi);
            }
        }
        return Optional.empty();
    }

    /** Whether {@code version} is certified. */
    public static boolean isCertified(NixlVersion version) {
        return CERTIFIED.contains(version);
    }

    /** The certified range in words, e.g. {@code "1.0.0 to 1.5.1"}. */
    public static String certifiedRange() {
        return CERTIFIED.getFirst() + " to " + CERTIFIED.getLast();
    }

    /** The ABI of a loaded library, from its symbols. */
    static NixlAbi fromSymbols(SymbolLookup lookup, String library) {
        if (lookup.find("nixl_capi_create_configured_agent").isEmpty()) {
            throw new NixlLoadException(library + " is not NIXL's C library: it exports no"
                    + " nixl_capi_create_configured_agent");
        }
        if (lookup.find(NEWER_MARKER).isPresent()) {
            throw new NixlLoadException(library + " exports " + NEWER_MARKER + ": a C ABI newer than NIXL "
                    + CERTIFIED.getLast() + " (its agent config layout differs); certified: " + certifiedRange()
                    + "; refusing to call it");
        }
        return lookup.find(V1_5_MARKER).isPresent() ? V1_5 : V1_0;
    }

    /**
     * Checks a release against the ABI its library's symbols show, and against the certified list.
     *
     * @param wheel the wheel name and release, e.g. {@code "nixl-cu12 1.4.1"}, if known
     * @param allowUncertified whether an uncertified release of a known ABI is accepted
     * @throws NixlLoadException if it is refused, with the cause
     */
    static void check(NixlAbi symbols, Optional<String> wheel, String library, boolean allowUncertified) {
        if (wheel.isEmpty()) {
            return; // no release number to check: the symbols decided
        }
        String text = wheel.get();
        Optional<NixlVersion> release = NixlVersion.tryParse(text.substring(text.lastIndexOf(' ') + 1));
        if (release.isEmpty()) {
            throw new NixlLoadException(library + " comes from " + text + ", which is not a release number this"
                    + " binding can check; certified: " + certifiedRange());
        }
        Optional<NixlAbi> expected = of(release.get());
        if (expected.isEmpty()) {
            throw new NixlLoadException(library + " comes from " + text + ", outside the certified range "
                    + certifiedRange() + " (its C ABI is not one this binding knows; install nixl-cu12=="
                    + DEFAULT + ", or another certified release with scripts/install-natives --nixl VERSION)");
        }
        if (expected.get() != symbols) {
            throw new NixlLoadException(library + " comes from " + text + " but exports the symbols of the "
                    + symbols.describe() + " C ABI: the library and its wheel metadata disagree");
        }
        if (!isCertified(release.get()) && !allowUncertified) {
            throw new NixlLoadException(library + " comes from " + text + ", which is not certified (certified: "
                    + certifiedRange() + ": " + CERTIFIED + "); set -D" + ALLOW_UNCERTIFIED + "=true to use it"
                    + " anyway");
        }
    }

    /** {@code "NIXL 1.0.0-1.4.x"}. */
    public String describe() {
        return "NIXL " + first.major() + "." + first.minor() + ".0-" + last.major() + "." + last.minor() + ".x";
    }
}
