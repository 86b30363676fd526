package io.blockxfer.benchmarks.baseline;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A contender in another language: a driver program started afresh each round as
 * {@code command... SECONDS CASE...}, which prints one {@code RESULT <case> <rate>} line per case
 * on standard output, optionally followed by its status calls per transfer and the cores its
 * process used ({@link Contender.Cost}) (anything else it prints is kept for the error message when it fails).
 *
 * <p><b>Thread safety:</b> not thread-safe.
 */
final class DriverContender implements Contender {

    private final String name;
    private final String description;
    private final List<String> command;
    private final Map<String, String> env;
    private final @Nullable String unavailable;
    private Map<BaselineCase, Cost> costs = Map.of();

    DriverContender(String name, String description, List<String> command, Map<String, String> env,
            @Nullable String unavailable) {
        this.name = name;
        this.description = description;
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.unavailable = unavailable;
    }

    @Override
    public boolean inThisJvm() {
        return false;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public @Nullable String unavailable() {
        return unavailable;
    }

    @Override
    public Map<BaselineCase, Cost> lastCosts() {
        return costs;
    }

    @Override
    public Map<BaselineCase, Double> round(List<BaselineCase> cases, double seconds) throws Exception {
        List<String> cmd = new ArrayList<>(command);
        cmd.add(Double.toString(seconds));
        cases.forEach(c -> cmd.add(c.key()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        Map<BaselineCase, Double> rates = new EnumMap<>(BaselineCase.class);
        Map<BaselineCase, Cost> costs = new EnumMap<>(BaselineCase.class);
        this.costs = costs;
        Deque<String> tail = new ArrayDeque<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.startsWith("RESULT ")) {
                    String[] f = line.split(" ", -1);
                    rates.put(BaselineCase.of(f[1]), Double.parseDouble(f[2]));
                    if (f.length >= 5) {
                        costs.put(BaselineCase.of(f[1]), new Cost(Double.parseDouble(f[3]), Double.parseDouble(f[4]),
                                f.length >= 6 ? Double.parseDouble(f[5]) : Double.NaN));
                    }
                } else {
                    tail.addLast(line);
                    if (tail.size() > 8) {
                        tail.removeFirst();
                    }
                }
            }
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(name + ": the driver did not exit");
        }
        if (p.exitValue() != 0 || rates.size() != cases.size()) {
            throw new IOException(name + ": the driver failed (exit " + p.exitValue() + "): " + String.join(" / ", tail));
        }
        return rates;
    }
}
