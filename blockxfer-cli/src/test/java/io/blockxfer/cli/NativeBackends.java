package io.blockxfer.cli;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.ProviderInfo;
import io.blockxfer.transport.Transports;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * The cross-process backends available here, for the tests that need one. Where none is, a test
 * skips with every cause; but a backend named by {@code blockxfer.tck.require}
 * ({@code BLOCKXFER_TCK_REQUIRE}) must be available, or the test fails.
 */
final class NativeBackends {

    /**
     * A name {@code blockxfer.tck.require} may hold that is not a backend: it requires the newer UCX
     * that {@code scripts/install-natives ucx-uncertified} installs, for the UCX backend's refusal test.
     */
    private static final String NOT_A_BACKEND = "ucx-uncertified";

    private NativeBackends() {
    }

    /** The names of the available cross-process backends; skips or fails as described when there are none. */
    static List<String> crossProcess() {
        List<ProviderInfo> all = Transports.providers(NativeBackends.class.getClassLoader());
        List<String> required = required();
        for (String name : required) {
            ProviderInfo p = all.stream().filter(i -> i.name().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError(name + " is required (blockxfer.tck.require) but not found"));
            if (!p.isAvailable()) {
                throw new AssertionError(name + " is required (blockxfer.tck.require) but unavailable: "
                        + p.availability().cause());
            }
        }
        List<String> names = all.stream().filter(ProviderInfo::isAvailable)
                .filter(p -> p.capabilities().contains(Capability.CROSS_PROCESS)).map(ProviderInfo::name).toList();
        Assumptions.assumeFalse(names.isEmpty(), () -> "no cross-process backend is available here: "
                + all.stream().map(ProviderInfo::describe).toList());
        return names;
    }

    /**
     * The available cross-process backends that carry notifications; skips (or fails) as
     * {@link #crossProcess()} does, and skips when none of them carries notifications.
     */
    static List<String> crossProcessWithNotifications() {
        List<String> crossProcess = crossProcess();
        List<ProviderInfo> all = Transports.providers(NativeBackends.class.getClassLoader());
        List<String> names = all.stream().filter(p -> crossProcess.contains(p.name()))
                .filter(p -> p.capabilities().contains(Capability.NOTIFICATIONS)).map(ProviderInfo::name).toList();
        Assumptions.assumeFalse(names.isEmpty(), () -> "no cross-process backend here carries notifications: "
                + crossProcess);
        return names;
    }

    private static List<String> required() {
        String v = System.getProperty("blockxfer.tck.require");
        if (v == null || v.isBlank()) {
            v = System.getenv("BLOCKXFER_TCK_REQUIRE");
        }
        return v == null ? List.of() : Arrays.stream(v.split(",", -1)).map(String::trim).filter(s -> !s.isEmpty())
                .filter(s -> !s.equals(NOT_A_BACKEND)).toList();
    }
}
