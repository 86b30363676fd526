package io.blockxfer.tck;

import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransportConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Places initiators in this JVM and each target in a child JVM running {@link TargetProcess}, on
 * the same class path, with the same JDK. Killing a target SIGKILLs its process. Backends with the
 * {@link Capability#CROSS_PROCESS} capability run the suite with it:
 *
 * <pre>{@code
 * class UcxTwoProcessConformanceTest extends TransportConformanceSuite {
 *     protected TckHarness harness() { return TwoProcessHarness.of(InJvmHarness.of("ucx")); }
 * }
 * }</pre>
 *
 * <p>System properties starting with {@code blockxfer.} are passed on to the child, and so is the
 * environment. Config fields must be strings or integers.
 *
 * <p><b>Thread safety:</b> immutable; each target serialises its own commands.
 */
public final class TwoProcessHarness implements TckHarness {

    private final InJvmHarness local;
    private final List<String> jvmArgs;

    private TwoProcessHarness(InJvmHarness local, List<String> jvmArgs) {
        this.local = local;
        this.jvmArgs = List.copyOf(jvmArgs);
    }

    /** Initiators from {@code local}; targets in child processes of the same backend. */
    public static TwoProcessHarness of(InJvmHarness local) {
        return new TwoProcessHarness(Objects.requireNonNull(local, "local"), List.of());
    }

    /** This harness, starting children with extra JVM arguments. */
    public TwoProcessHarness withJvmArgs(List<String> args) {
        List<String> all = new ArrayList<>(jvmArgs);
        all.addAll(args);
        return new TwoProcessHarness(local, all);
    }

    @Override
    public String backend() {
        return local.backend();
    }

    @Override
    public io.blockxfer.transport.spi.Availability availability() {
        return local.availability();
    }

    @Override
    public Set<Capability> capabilities() {
        return local.capabilities();
    }

    @Override
    public String mode() {
        return "two-process";
    }

    @Override
    public DataTransport openInitiator(TransportConfig config) {
        return local.openInitiator(config);
    }

    @Override
    public TargetPeer openTarget(TransportConfig config) {
        if (config.region().callerMemory().isPresent()) {
            throw new IllegalArgumentException("two-process targets allocate their own region");
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Xmx512m");
        System.getProperties().forEach((k, v) -> {
            String key = String.valueOf(k);
            if (key.startsWith("blockxfer.") && !key.startsWith("blockxfer.tck.")) {
                cmd.add("-D" + key + "=" + v);
            }
        });
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(TargetProcess.class.getName());
        cmd.add(local.backend());
        cmd.add(Integer.toString(config.region().numBlocks()));
        cmd.add(Long.toString(config.region().blockLength()));
        cmd.add(config.agentName() + "-target");
        cmd.add(Long.toString(config.transferTimeout().toMillis()));
        config.options().forEach((k, v) -> cmd.add("opt:" + k + "=" + v));
        for (Map.Entry<String, Object> f : config.configFields().entrySet()) {
            Object v = f.getValue();
            if (v instanceof Number n && !(v instanceof Double) && !(v instanceof Float)) {
                cmd.add("field:" + f.getKey() + "=i:" + n.longValue());
            } else if (v instanceof String s) {
                cmd.add("field:" + f.getKey() + "=s:" + s);
            } else {
                throw new IllegalArgumentException("two-process config fields must be strings or integers: " + f);
            }
        }
        try {
            return new ProcessTarget(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start());
        } catch (IOException e) {
            throw new IllegalStateException("could not start a target process: " + cmd, e);
        }
    }

    private static final class ProcessTarget implements TargetPeer {
        private static final long REPLY_SECONDS = 30;
        private final Process process;
        private final PrintStream commands;
        private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
        private final PeerDescriptor descriptor;

        ProcessTarget(Process process) {
            this.process = process;
            this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            Thread reader = Thread.ofPlatform().daemon().name("tck-target-" + process.pid()).start(() -> {
                try (BufferedReader r = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        replies.add(line);
                    }
                } catch (IOException ignored) {
                    // the process is gone; pending requests time out with its exit status
                }
                replies.add("EOF");
            });
            Objects.requireNonNull(reader);
            String ready = reply();
            if (!ready.startsWith("READY ")) {
                process.destroyForcibly();
                throw new IllegalStateException("target process " + process.pid() + " failed to start: " + ready);
            }
            this.descriptor = PeerDescriptor.decode(Base64.getDecoder().decode(ready.substring(6)));
        }

        private String reply() {
            try {
                String line = replies.poll(REPLY_SECONDS, TimeUnit.SECONDS);
                if (line == null || line.equals("EOF")) {
                    throw new IllegalStateException("target process " + process.pid() + " gave no reply"
                            + (process.isAlive() ? "" : "; exit status " + process.exitValue()));
                }
                return line;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for target process " + process.pid(), e);
            }
        }

        private synchronized String request(String command) {
            commands.println(command);
            String r = reply();
            if (r.startsWith("ERR ")) {
                throw new IllegalStateException("target process " + process.pid() + ": " + r.substring(4));
            }
            return r;
        }

        @Override
        public PeerDescriptor descriptor() {
            return descriptor;
        }

        @Override
        public int numBlocks() {
            return descriptor.numBlocks();
        }

        @Override
        public void fill(int block, long seed) {
            request("FILL " + block + " " + seed);
        }

        @Override
        public long firstMismatch(int block, long seed) {
            return Long.parseLong(request("CHECK " + block + " " + seed).substring(3));
        }

        @Override
        public void kill() {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public boolean canStall() {
            return false;
        }

        @Override
        public void stall(boolean stalled) {
            throw new UnsupportedOperationException("two-process targets cannot be stalled");
        }

        @Override
        public synchronized void close() {
            if (process.isAlive()) {
                commands.println("CLOSE");
                commands.close();
                try {
                    if (!process.waitFor(15, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    process.destroyForcibly();
                }
            }
        }
    }
}
