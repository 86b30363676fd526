package io.blockxfer.examples.tables;

import io.blockxfer.tck.ConformanceRules;
import io.blockxfer.tck.directory.DirectoryRules;
import io.blockxfer.tck.holds.HoldRules;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A rule of one of the kit's catalogues, as a documentation table shows it: id, class (required,
 * capability or timing), the directory fault it needs if any, what it checks, and the broken variants
 * that prove it can fail.
 */
record CatalogueEntry(String id, String kind, @Nullable String fault, String checks, String provenBy) {

    /** The transport kit's rules ({@link ConformanceRules}), in catalogue order. */
    static List<CatalogueEntry> conformanceRules() {
        return Arrays.stream(ConformanceRules.values())
                .map(r -> new CatalogueEntry(r.name(), lower(r.kind()), null, r.checks(), r.provenBy()))
                .toList();
    }

    /** The directory kit's rules ({@link DirectoryRules}), in catalogue order. */
    static List<CatalogueEntry> directoryRules() {
        return Arrays.stream(DirectoryRules.values())
                .map(r -> new CatalogueEntry(r.name(), lower(r.kind()), r.fault() == null ? null : r.fault().name(),
                        r.checks(), r.provenBy()))
                .toList();
    }

    /** The holds kit's rules ({@link HoldRules}), in catalogue order. */
    static List<CatalogueEntry> holdRules() {
        return Arrays.stream(HoldRules.values())
                .map(r -> new CatalogueEntry(r.name(), lower(r.kind()), null, r.checks(), r.provenBy()))
                .toList();
    }

    private static String lower(Enum<?> kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }
}
