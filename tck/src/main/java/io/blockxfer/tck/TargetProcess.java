package io.blockxfer.tck;

import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The program a {@link TwoProcessHarness} runs in a child JVM: opens one target transport of the
 * named backend and serves line commands on stdin, answering on stdout. It exits when stdin
 * closes, so a killed test JVM leaves no orphans.
 *
 * <p>Arguments: {@code backend numBlocks blockLength agentName transferTimeoutMillis} then any of
 * {@code opt:KEY=VALUE}, {@code field:KEY=i:LONG}, {@code field:KEY=s:STRING},
 * {@code progress:MODE} (a {@link io.blockxfer.transport.ProgressMode}), {@code keyring:ID=BASE64KEY} (a
 * deployment key ring, signing with the first key; more keys follow after commas), {@value #ACCEPT_UNSIGNED} and {@value #CALLER_MEMORY} (the target's region is memory this program allocates and wraps, instead
 * of the backend's). Commands:
 * {@code FILL block seed}, {@code CHECK block seed} (answers {@code AT offset}, -1 when equal),
 * {@code PEER id base64descriptor} (registers a peer), {@code NOTES count limitMillis} (takes
 * notifications as {@link NotificationTaker} does; answers {@code NOTES} and one token each),
 * {@code NSTATS} (answers the seven counts of the target's {@code NotificationStats}), {@code CLOSE}.
 * The argument {@code notify-queue:N} sets the target's notification queue capacity. The first line out is {@code READY <base64 descriptor>}; errors are {@code ERR ...}.
 *
 * <p><b>Thread safety:</b> a program; single-threaded.
 */
public final class TargetProcess {

    /** The argument that puts the target's region in memory the program supplies. */
    public static final String CALLER_MEMORY = "memory:caller";
    /** The prefix of the argument naming the target's progress mode. */
    static final String PROGRESS = "progress:";
    /** The prefix of the argument holding the target's deployment key ring. */
    static final String KEY_RING = "keyring:";
    /** The argument that lets the target accept unsigned peers while a key ring is set. */
    static final String ACCEPT_UNSIGNED = "accept-unsigned";
    /** The prefix of the argument holding the target's notification queue capacity. */
    static final String NOTIFY_QUEUE = "notify-queue:";

    private TargetProcess() {
    }

    /** Runs the target until {@code CLOSE} or the end of stdin. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        System.setOut(System.err); // keep stdout for the protocol
        ChildJvm.exitWhenParentDies();
        String backend = args[0];
        int numBlocks = Integer.parseInt(args[1]);
        long blockLength = Long.parseLong(args[2]);
        MemorySegment callerMemory = java.util.Arrays.asList(args).contains(CALLER_MEMORY)
                ? Arena.global().allocate(numBlocks * blockLength, 4096) : null;
        RegionSpec region = callerMemory == null ? RegionSpec.allocate(numBlocks, blockLength)
                : RegionSpec.wrap(callerMemory, blockLength);
        TransportConfig.Builder builder = TransportConfig.builder(region)
                .agentName(args[3]).transferTimeout(Duration.ofMillis(Long.parseLong(args[4])));
        Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 5; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("opt:")) {
                String kv = a.substring(4);
                builder.option(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            } else if (a.startsWith(PROGRESS)) {
                builder.progressMode(io.blockxfer.transport.ProgressMode.valueOf(a.substring(PROGRESS.length())));
            } else if (a.startsWith(KEY_RING)) {
                builder.keyRing(TckKeys.decode(a.substring(KEY_RING.length())));
            } else if (a.equals(ACCEPT_UNSIGNED)) {
                builder.acceptUnsignedPeers(true);
            } else if (a.startsWith(NOTIFY_QUEUE)) {
                builder.notificationQueueCapacity(Integer.parseInt(a.substring(NOTIFY_QUEUE.length())));
            } else if (a.startsWith("field:")) {
                String kv = a.substring(6);
                String key = kv.substring(0, kv.indexOf('='));
                String value = kv.substring(kv.indexOf('=') + 1);
                fields.put(key, value.startsWith("i:") ? (Object) Long.parseLong(value.substring(2)) : value.substring(2));
            }
        }
        builder.configFields(fields);
        DataTransport transport;
        try {
            transport = Transports.select(backend, TargetProcess.class.getClassLoader()).open(builder.build());
        } catch (RuntimeException e) {
            out.println("ERR " + oneLine(e));
            System.exit(2);
            return;
        }
        out.println("READY " + Base64.getEncoder().encodeToString(transport.localDescriptor().encode()));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] cmd = line.trim().split(" ", -1);
            try {
                switch (cmd[0]) {
                    case "FILL" -> {
                        BlockPattern.fill(block(transport, callerMemory, Integer.parseInt(cmd[1])), Long.parseLong(cmd[2]));
                        out.println("OK");
                    }
                    case "CHECK" -> out.println("AT " + BlockPattern.firstMismatch(
                            block(transport, callerMemory, Integer.parseInt(cmd[1])), Long.parseLong(cmd[2])));
                    case "PEER" -> {
                        transport.addPeer(cmd[1], io.blockxfer.transport.PeerDescriptor.decode(
                                Base64.getDecoder().decode(cmd[2])));
                        out.println("OK");
                    }
                    case "NOTES" -> {
                        StringBuilder answer = new StringBuilder("NOTES");
                        for (ReceivedNotification r : NotificationTaker.take(transport,
                                b -> block(transport, callerMemory, b), Integer.parseInt(cmd[1]),
                                Duration.ofMillis(Long.parseLong(cmd[2])))) {
                            answer.append(' ').append(NotificationProbe.encode(r));
                        }
                        out.println(answer);
                    }
                    case "NSTATS" -> {
                        io.blockxfer.transport.NotificationStats s = transport.notificationStats();
                        out.println("NSTATS " + s.sent() + " " + s.received() + " " + s.delivered() + " " + s.queued()
                                + " " + s.refused() + " " + s.dropped() + " " + s.discarded());
                    }
                    case "CLOSE" -> {
                        transport.close();
                        out.println("BYE");
                        return;
                    }
                    default -> out.println("ERR unknown command " + cmd[0]);
                }
            } catch (RuntimeException e) {
                out.println("ERR " + oneLine(e));
            }
        }
        transport.close();
    }

    /** Block {@code b} as its owner sees it: through the memory it supplied, when it did. */
    private static MemorySegment block(DataTransport transport, @Nullable MemorySegment callerMemory, int b) {
        if (callerMemory == null) {
            return transport.region().block(b);
        }
        long length = transport.region().blockLength();
        if (b < 0 || b >= transport.region().numBlocks()) {
            throw new IndexOutOfBoundsException("block " + b);
        }
        return callerMemory.asSlice(b * length, length);
    }

    private static String oneLine(Throwable e) {
        return String.valueOf(e).replace('\n', ' ');
    }
}
