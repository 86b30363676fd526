package io.blockxfer.cli.internal;

import io.blockxfer.tck.TargetProcess;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An initiator here and its target in a child JVM running the conformance kit's
 * {@link TargetProcess} (same JDK, same class path, the {@code blockxfer.*} system properties and
 * the backend options passed on; its progress mode stays the backend's default), driven over its
 * line protocol: {@code READY <descriptor>}, {@code FILL}, {@code CHECK}, {@code CLOSE}. The child
 * exits when its stdin closes, so no orphan outlives us.
 *
 * <p><b>Thread safety:</b> see {@link PeerPair}; requests to the child are serialised.
 */
final class ChildProcessPair implements PeerPair {

    private static final long REPLY_SECONDS = 60;

    private final Arena arena;
    private final DataTransport initiator;
    private final MemorySegment standIn;
    private final Process process;
    private final PrintStream commands;
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final ArrayDeque<String> errorTail = new ArrayDeque<>();

    private ChildProcessPair(Arena arena, DataTransport initiator, MemorySegment standIn, Process process) {
        this.arena = arena;
        this.initiator = initiator;
        this.standIn = standIn;
        this.process = process;
        this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        pump(process.getInputStream(), "out", line -> replies.add(line));
        pump(process.getErrorStream(), "err", this::keepError);
    }

    /** Opens the initiator, starts the target process, and registers it. */
    static ChildProcessPair open(TransportProvider provider, int numBlocks, long blockBytes, Tuning tuning) {
        Arena arena = Arena.ofShared();
        DataTransport initiator = null;
        ChildProcessPair pair = null;
        try {
            initiator = provider.open(BenchConfigs.config(provider, arena, numBlocks, blockBytes, "bench-initiator",
                    tuning));
            MemorySegment standIn = arena.allocate(numBlocks * blockBytes, 4096);
            Process process = start(provider.name(), numBlocks, blockBytes, tuning);
            pair = new ChildProcessPair(arena, initiator, standIn, process);
            String ready = pair.reply();
            if (!ready.startsWith("READY ")) {
                throw new CliException("the target process could not open a " + provider.name() + " transport: "
                        + (ready.startsWith("ERR ") ? ready.substring(4) : ready));
            }
            PeerDescriptor target = PeerDescriptor.decode(Base64.getDecoder().decode(ready.substring(6)));
            initiator.addPeer(PEER, target);
            return pair;
        } catch (RuntimeException | Error e) {
            if (pair != null) {
                pair.close();
            } else {
                if (initiator != null) {
                    initiator.close();
                }
                arena.close();
            }
            throw e;
        }
    }

    private static Process start(String backend, int numBlocks, long blockBytes, Tuning tuning) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-Xmx256m");
        System.getProperties().forEach((k, v) -> {
            String key = String.valueOf(k);
            if (key.startsWith("blockxfer.")) {
                cmd.add("-D" + key + "=" + v);
            }
        });
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(TargetProcess.class.getName());
        cmd.add(backend);
        cmd.add(Integer.toString(numBlocks));
        cmd.add(Long.toString(blockBytes));
        cmd.add("bench-target-" + ProcessHandle.current().pid());
        cmd.add(Long.toString(BenchConfigs.TRANSFER_TIMEOUT.toMillis()));
        tuning.options().forEach((k, v) -> cmd.add("opt:" + k + "=" + v));
        try {
            return new ProcessBuilder(cmd).start();
        } catch (IOException e) {
            throw new CliException("could not start the target process: " + e.getMessage());
        }
    }

    private static void pump(InputStream in, String what, java.util.function.Consumer<String> sink) {
        Thread.ofPlatform().daemon().name("bench-target-" + what).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    sink.accept(line);
                }
            } catch (IOException ignored) {
                // the process is gone; a pending request reports it
            }
            sink.accept("EOF");
        });
    }

    private void keepError(String line) {
        synchronized (errorTail) {
            if (!line.isBlank() && !line.equals("EOF") && !line.startsWith("\tat ")) {
                errorTail.addLast(line);
                if (errorTail.size() > 3) {
                    errorTail.removeFirst();
                }
            }
        }
    }

    private String reply() {
        try {
            String line = replies.poll(REPLY_SECONDS, TimeUnit.SECONDS);
            if (line == null || line.equals("EOF")) {
                String tail;
                synchronized (errorTail) {
                    tail = errorTail.isEmpty() ? "" : "; it said: " + String.join(" / ", errorTail);
                }
                throw new CliException("the target process " + process.pid() + " gave no reply"
                        + (process.isAlive() ? " in " + REPLY_SECONDS + " s" : " (exit status "
                        + exitValue() + ")") + tail);
            }
            return line;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException("interrupted while waiting for the target process");
        }
    }

    private int exitValue() {
        try {
            process.waitFor(1, TimeUnit.SECONDS);
            return process.exitValue();
        } catch (InterruptedException | IllegalThreadStateException e) {
            return -1;
        }
    }

    private synchronized String request(String command) {
        commands.println(command);
        String r = reply();
        if (r.startsWith("ERR ")) {
            throw new CliException("target process: " + r.substring(4));
        }
        return r;
    }

    @Override
    public DataTransport initiator() {
        return initiator;
    }

    @Override
    public MemorySegment baselineTarget() {
        return standIn;
    }

    @Override
    public void fillTarget(int block, long seed) {
        request("FILL " + block + " " + seed);
    }

    @Override
    public long targetMismatch(int block, long seed) {
        return Long.parseLong(request("CHECK " + block + " " + seed).substring(3));
    }

    @Override
    public synchronized void close() {
        try {
            if (arena.scope().isAlive()) {
                initiator.close();
            }
        } finally {
            try {
                if (process.isAlive()) {
                    commands.println("CLOSE");
                    commands.close();
                    if (!process.waitFor(15, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            } finally {
                if (arena.scope().isAlive()) {
                    arena.close();
                }
            }
        }
    }
}
