package io.blockxfer.cli.internal;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.ProviderInfo;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Prints what discovery found, as a table or as a JSON array with one object per provider:
 * {@code name}, {@code priority}, {@code available}, {@code cause}, {@code error},
 * {@code capabilities}, {@code nativeVersion} and {@code selectedByAuto}.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class ProviderReport {

    private ProviderReport() {
    }

    /** The providers as a table, each unavailable one followed by its cause. */
    public static void printTable(List<ProviderInfo> providers, PrintWriter out) {
        if (providers.isEmpty()) {
            out.println("no blockxfer backends found (is a backend jar on the class path or in --classpath?)");
            return;
        }
        Table table = new Table("BACKEND", "PRIORITY", "AVAILABLE", "NATIVE VERSION", "CAPABILITIES");
        table.alignRight(1);
        for (ProviderInfo p : providers) {
            table.row(p.name(), Integer.toString(p.priority()), p.isAvailable() ? "yes" : "no",
                    p.nativeVersion().isEmpty() ? "-" : p.nativeVersion(), capabilities(p, ", "));
            if (!p.isAvailable()) {
                table.note("    cause: " + ErrorHandlers.oneLine(p.availability().cause()));
            }
        }
        table.print(out);
        String auto = providers.stream().filter(ProviderInfo::isAvailable).map(ProviderInfo::name).findFirst()
                .orElse("nothing (no backend is available)");
        out.println("--backend auto selects: " + auto);
    }

    /** The providers as a JSON array. */
    public static String json(List<ProviderInfo> providers) {
        List<Object> rows = new ArrayList<>();
        boolean autoTaken = false;
        for (ProviderInfo p : providers) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", p.name());
            row.put("priority", p.priority());
            row.put("available", p.isAvailable());
            row.put("cause", p.isAvailable() ? null : p.availability().cause());
            row.put("error", p.availability().error().map(Throwable::toString).orElse(null));
            row.put("capabilities", p.capabilities().stream().sorted().map(Capability::name).toList());
            row.put("nativeVersion", p.nativeVersion());
            boolean selected = !autoTaken && p.isAvailable();
            autoTaken |= selected;
            row.put("selectedByAuto", selected);
            rows.add(row);
        }
        return JsonOutput.pretty(rows);
    }

    private static String capabilities(ProviderInfo p, String separator) {
        if (p.capabilities().isEmpty()) {
            return "-";
        }
        return p.capabilities().stream().sorted().map(Capability::name).collect(Collectors.joining(separator));
    }
}
