package io.blockxfer.benchmarks.baseline;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Targets of the baseline contenders in a child JVM (same JDK and class path, the
 * {@code blockxfer.*} system properties passed on): a blockxfer transport, or a raw JUCX region
 * ({@link RawJucx#serveTarget}). The child prints {@code READY ...} on standard output and lives
 * until its standard input closes, so it never outlives the benchmark. Its {@link #main} is the
 * child's entry point.
 *
 * <p><b>Thread safety:</b> a {@link Handle} is for one thread.
 */
final class TargetChild {

    private TargetChild() {
    }

    /** A target: its descriptor, and {@link #close()} to end it. */
    interface Handle extends AutoCloseable {
        /** What the initiator registers. */
        PeerDescriptor descriptor();

        /** The target's region, where it lies in this process; null in a child. */
        default @Nullable MemorySegment region() {
            return null;
        }

        /** The target transport, where it lies in this process; null in a child. */
        default @Nullable DataTransport transport() {
            return null;
        }

        @Override
        void close();
    }

    /** A target transport opened in this JVM. */
    static Handle inThisJvm(DataTransport target) {
        target.region().segment().fill((byte) 2);
        return new Handle() {
            @Override
            public PeerDescriptor descriptor() {
                return target.localDescriptor();
            }

            @Override
            public MemorySegment region() {
                return target.region().segment();
            }

            @Override
            public DataTransport transport() {
                return target;
            }

            @Override
            public void close() {
                target.close();
            }
        };
    }

    /** A target transport of {@code backend} for case {@code c} in a child JVM. */
    static Handle blockxfer(String backend, BaselineCase c, Map<String, String> options) throws IOException {
        List<String> args = new ArrayList<>(List.of("blockxfer", backend, c.key()));
        options.forEach((k, v) -> args.add(k + "=" + v));
        Child child = Child.start(args);
        PeerDescriptor d = PeerDescriptor.decode(Base64.getDecoder().decode(child.ready()[0]));
        return new Handle() {
            @Override
            public PeerDescriptor descriptor() {
                return d;
            }

            @Override
            public void close() {
                child.close();
            }
        };
    }

    /**
     * A started child: its {@code READY} fields and its process.
     *
     * <p><b>Thread safety:</b> not thread-safe.
     */
    static final class Child implements AutoCloseable {
        private final Process process;
        private final String[] ready;

        private Child(Process process, String[] ready) {
            this.process = process;
            this.ready = ready;
        }

        /** Starts {@code TargetChild args...} and reads its {@code READY} line. */
        static Child start(List<String> args) throws IOException {
            List<String> cmd = new ArrayList<>();
            cmd.add(ProcessHandle.current().info().command()
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
            cmd.add("--enable-native-access=ALL-UNNAMED");
            cmd.add("-Xmx512m");
            System.getProperties().forEach((k, v) -> {
                if (String.valueOf(k).startsWith("blockxfer.")) {
                    cmd.add("-D" + k + "=" + v);
                }
            });
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add(TargetChild.class.getName());
            cmd.addAll(args);
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = in.readLine();
            if (line == null || !line.startsWith("READY ")) {
                p.destroyForcibly();
                throw new IOException("the target child " + args + " did not start: " + line);
            }
            return new Child(p, line.substring(6).split(" "));
        }

        String[] ready() {
            return ready.clone();
        }

        @Override
        public void close() {
            try {
                process.getOutputStream().close();
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (IOException e) {
                process.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    /**
     * The child: {@code blockxfer BACKEND CASE [KEY=VALUE...]} or {@code jucx BYTES}.
     *
     * @param args what to serve
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err); // keep stdout for the READY line
        Thread watcher = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // until the parent closes our stdin
                }
            } catch (IOException ignored) {
                // the parent is gone
            }
        });
        switch (args[0]) {
            case "blockxfer" -> {
                BaselineCase c = BaselineCase.of(args[2]);
                TransportConfig.Builder b = TransportConfig.builder(RegionSpec.allocate(c.regionBlocks(),
                        c.blockBytes())).agentName("baseline-target-" + ProcessHandle.current().pid())
                        .transferTimeout(Duration.ofSeconds(30));
                for (int i = 3; i < args.length; i++) {
                    int eq = args[i].indexOf('=');
                    b.option(args[i].substring(0, eq), args[i].substring(eq + 1));
                }
                try (DataTransport t = Transports.select(args[1], TargetChild.class.getClassLoader()).open(b.build())) {
                    t.region().segment().fill((byte) 2);
                    out.println("READY " + Base64.getEncoder().encodeToString(t.localDescriptor().encode()));
                    watcher.join();
                }
            }
            case "jucx" -> RawJucx.serveTarget(Long.parseLong(args[1]), out, watcher);
            default -> throw new IllegalArgumentException("unknown target kind " + args[0]);
        }
        System.exit(0);
    }
}
