package io.blockxfer.membership;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.tck.process.ChildProcessException;
import io.blockxfer.tck.process.UcxShmFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The test's handle on one {@link MemberMain} child JVM: its membership events as they arrive
 * (each stamped by the member's clock), its answers to commands, its stderr lines (and the stdout
 * lines that are not the protocol's, such as UCX's own error log), the UCX
 * shared-memory files it maps, and the signals a test sends it ({@code SIGKILL}, {@code SIGSTOP},
 * {@code SIGCONT}). {@link #close()} ends it (its membership says goodbye) or kills it.
 *
 * <p><b>Thread safety:</b> thread-safe; commands are serialised.
 */
final class MemberProcess implements AutoCloseable {

    /** How long a command waits for its answer. */
    static final Duration REPLY = Duration.ofSeconds(30);
    /** How the lines of {@link MemberMain}'s answers begin. */
    private static final List<String> REPLIES = List.of("READY ", "STATS ", "QUIESCED ", "RESUMED", "BYE", "ERR ");

    /**
     * One {@code EVENT} line.
     *
     * @param millis the member's wall clock when it happened
     * @param kind the listener call ({@code ADDED}, {@code REMOVED}, ...; see {@link MemberMain})
     * @param member the member it is about ({@code -} when none)
     * @param epoch the epoch it names, 0 when none
     * @param detail the rest of the line
     */
    record Event(long millis, String kind, String member, long epoch, String detail) {

        static Event parse(String line) {
            String[] p = line.split(" ", 6);
            return new Event(Long.parseLong(p[1]), p[2], p[3], Long.parseLong(p[4]), p.length > 5 ? p[5] : "");
        }

        boolean is(String k, String m) {
            return kind.equals(k) && member.equals(m);
        }

        @Override
        public String toString() {
            return kind + " " + member + (epoch != 0 ? " @" + epoch : "") + (detail.isEmpty() ? "" : " (" + detail + ")");
        }
    }

    private final String id;
    private final ChildJvm child;
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final List<String> stderr = Collections.synchronizedList(new ArrayList<>());
    private final Set<Path> shmFiles = Collections.synchronizedSet(new LinkedHashSet<>());
    private volatile boolean ended;

    private MemberProcess(String id, ChildJvm.Builder builder) {
        this.id = id;
        this.child = builder.stderrTo(line -> {
            stderr.add(line);
            System.err.println("[" + id + "] " + line);
        }).start();
        Thread.ofPlatform().daemon().name("member-" + id + "-lines").start(this::pump);
    }

    /**
     * Starts member {@code id} of {@code deployment}; it runs on once {@link #awaitReady} returns.
     * The child gets this JVM's {@code blockxfer.*} system properties but the kit's.
     */
    static MemberProcess start(MemberDeployment deployment, String id) {
        ChildJvm.Builder b = ChildJvm.builder(MemberMain.class).name("member-" + id)
                .args(deployment.backend(), deployment.endpoints(), deployment.prefix(), id,
                        Long.toString(deployment.ttl().toSeconds()), Long.toString(deployment.flap().toMillis()),
                        deployment.keyHex())
                // a small heap and C1 only: four of these share two cores with etcd and the build
                .jvmArgs(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))
                .forwardSystemProperties(k -> k.startsWith("blockxfer.") && !k.startsWith("blockxfer.tck."))
                .exitGrace(Duration.ofSeconds(20));
        deployment.etcdEnvironment().forEach(b::environment);
        return new MemberProcess(id, b);
    }

    private void pump() {
        try {
            while (true) {
                Optional<String> line;
                try {
                    line = child.nextLineIfAny(Duration.ofSeconds(1));
                } catch (ChildProcessException quiet) {
                    continue; // no line for a second
                }
                if (line.isEmpty()) {
                    return;
                }
                String l = line.get();
                if (l.startsWith("EVENT ")) {
                    Event e = Event.parse(l);
                    events.add(e);
                    if (e.kind().equals("VIOLATION") || e.kind().equals("MISMATCH")) {
                        System.err.println("[" + id + "] " + l);
                    }
                } else if (REPLIES.stream().anyMatch(l::startsWith)) {
                    replies.add(l);
                } else {
                    // a native library's own output (UCX logs its errors to stdout): not the protocol's
                    stderr.add(l);
                    System.err.println("[" + id + " stdout] " + l);
                }
            }
        } finally {
            ended = true;
        }
    }

    /** The member id. */
    String id() {
        return id;
    }

    /** The child's pid. */
    long pid() {
        return child.pid();
    }

    /** Waits for {@code READY <epoch>} and returns the epoch. */
    long awaitReady(Duration timeout) {
        String line = reply(timeout, "READY");
        if (!line.startsWith("READY ")) {
            throw new AssertionError(id + " did not start: " + line + "; " + child.describe());
        }
        noteShm();
        return Long.parseLong(line.substring(6).trim());
    }

    /** Every event so far, in the order the member told them. */
    List<Event> events() {
        return List.copyOf(events);
    }

    /** The events from index {@code from} on. */
    List<Event> eventsFrom(int from) {
        List<Event> all = events();
        return all.subList(Math.min(from, all.size()), all.size());
    }

    /** The events of {@code kind} about {@code member}. */
    List<Event> events(String kind, String member) {
        return events.stream().filter(e -> e.is(kind, member)).toList();
    }

    /** Waits for the first event {@code which} accepts among those from index {@code from}, or fails naming {@code what}. */
    Event awaitEvent(int from, Predicate<Event> which, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (Event e : eventsFrom(from)) {
                if (which.test(e)) {
                    return e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(id + ": no " + what + " within " + timeout.toMillis() + " ms; its events: "
                        + describeEvents() + "; " + child.describe());
            }
            MemberDeployment.sleep(20);
        }
    }

    /** Its events, one string, for messages. */
    String describeEvents() {
        return events().stream().map(Event::toString).collect(Collectors.joining("; ", "[", "]"));
    }

    /** The stderr lines so far that contain {@code text}. */
    List<String> stderrLines(String text) {
        synchronized (stderr) {
            return stderr.stream().filter(l -> l.contains(text)).toList();
        }
    }

    /** Asks for its counts. */
    MemberStats stats() {
        noteShm();
        return MemberStats.parse(request("STATS", "STATS"));
    }

    /** Stops new rounds and waits until nothing is in flight; returns how many were still in flight. */
    int quiesce() {
        String answer = request("QUIESCE", "QUIESCED");
        return Integer.parseInt(answer.substring("QUIESCED ".length()).trim());
    }

    private synchronized String request(String command, String answer) {
        if (ended) {
            throw new AssertionError(id + " has ended; cannot '" + command + "': " + child.describe());
        }
        child.send(command);
        String line = reply(REPLY, answer);
        if (!line.startsWith(answer)) {
            throw new AssertionError(id + " answered '" + line + "' to '" + command + "'");
        }
        return line;
    }

    private String reply(Duration timeout, String what) {
        try {
            String line = replies.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError(id + ": no " + what + " within " + timeout.toMillis() + " ms"
                        + (ended ? " (it ended)" : "") + "; events " + describeEvents() + "; " + child.describe());
            }
            return line;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Notes the UCX shared-memory files it maps now, for the sweep after it ended. */
    void noteShm() {
        shmFiles.addAll(UcxShmFiles.mappedBy(child.pid()));
    }

    /** The shared-memory files it was seen to map. */
    Set<Path> shmFiles() {
        synchronized (shmFiles) {
            return Set.copyOf(shmFiles);
        }
    }

    /** {@code SIGKILL}: no goodbye; returns once it is reaped. */
    void kill() {
        noteShm();
        child.kill();
    }

    /** {@code SIGSTOP}. */
    void suspend() {
        noteShm();
        child.suspend();
    }

    /** {@code SIGCONT}. */
    void resume() {
        child.resume();
    }

    /** Whether it still runs. */
    boolean isAlive() {
        return child.isAlive();
    }

    /** For messages: the process and its last stderr lines. */
    String describe() {
        return child.describe();
    }

    /**
     * Ends it: closes its stdin (it closes its membership, saying goodbye, and its transport), waits
     * up to 20 s, then kills it. Idempotent.
     */
    @Override
    public void close() {
        if (child.isAlive() && !child.isSuspended()) {
            noteShm();
        }
        child.close();
    }

    @Override
    public String toString() {
        return "member " + id + " (pid " + child.pid() + ")";
    }
}
