package io.blockxfer.cli.internal;

import io.blockxfer.tck.BlockPattern;
import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.ProgressMode;
import io.blockxfer.transport.Transports;
import io.blockxfer.transport.spi.TransportProvider;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The target of {@code bench --processes 2}, in a child JVM that {@link ChildProcessPair} starts:
 * opens one target transport of the named backend (its region the backend's, its progress mode the
 * backend's default) and serves line commands on stdin, answering on stdout. It exits when stdin
 * closes, or when its parent dies, so no orphan outlives the bench.
 *
 * <p>Arguments: {@code backend numBlocks blockBytes agentName}, then any {@code opt:KEY=VALUE}.
 * The first line out is {@code READY <base64 descriptor>} (or {@code ERR ...} and exit status 2).
 * Commands: {@code FILL block seed} ({@code OK}), {@code CHECK block seed} ({@code AT offset}, -1
 * when the block holds the pattern), {@code NARM tag style} ({@code OK}: a
 * {@link NotificationCollector} counts and times the notifications of that run from now on, taken in
 * that {@link TakerStyle}, started on the first), {@code NDISARM expected limitMillis} ({@code TALLY <base64 NotifyTally>}), {@code CLOSE} ({@code BYE}, then exit).
 * A command that fails is answered {@code ERR ...}.
 *
 * <p><b>Thread safety:</b> a program; its commands run on the main thread.
 */
public final class BenchTargetProcess {

    private BenchTargetProcess() {
    }

    /** Runs the target until {@code CLOSE} or the end of stdin. */
    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err); // stdout is the protocol's
        ChildJvm.exitWhenParentDies();
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 4; i < args.length; i++) {
            if (args[i].startsWith("opt:") && args[i].indexOf('=') > 4) {
                String kv = args[i].substring(4);
                options.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
        }
        DataTransport transport;
        Arena arena = Arena.ofShared();
        try {
            TransportProvider provider = Transports.select(args[0], BenchTargetProcess.class.getClassLoader());
            transport = provider.open(BenchConfigs.config(provider, arena, Integer.parseInt(args[1]),
                    Long.parseLong(args[2]), args[3], new Tuning(ProgressMode.AUTO, options)));
        } catch (RuntimeException e) {
            out.println("ERR " + ErrorHandlers.oneLine(String.valueOf(e.getMessage())));
            System.exit(2);
            return;
        }
        out.println("READY " + Base64.getEncoder().encodeToString(transport.localDescriptor().encode()));
        NotificationCollector collector = null;
        try {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] cmd = line.trim().split(" ", -1);
                if (cmd[0].equals("CLOSE")) {
                    break;
                }
                try {
                    if (cmd[0].equals("NARM") && collector == null) {
                        collector = NotificationCollector.start(transport);
                    }
                    out.println(answer(cmd, transport, collector));
                } catch (RuntimeException e) {
                    out.println("ERR " + ErrorHandlers.oneLine(String.valueOf(e.getMessage())));
                }
            }
        } finally {
            if (collector != null) {
                collector.close();
            }
            transport.close();
            arena.close();
        }
        out.println("BYE");
    }

    private static String answer(String[] cmd, DataTransport transport, @Nullable NotificationCollector collector) {
        return switch (cmd[0]) {
            case "FILL" -> {
                BlockPattern.fill(transport.region().block(Integer.parseInt(cmd[1])), Long.parseLong(cmd[2]));
                yield "OK";
            }
            case "CHECK" -> "AT " + BlockPattern.firstMismatch(transport.region().block(Integer.parseInt(cmd[1])),
                    Long.parseLong(cmd[2]));
            case "NARM" -> {
                collecting(collector).arm(Long.parseLong(cmd[1]), 0, // one host: the parent's clock
                        cmd.length > 2 ? TakerStyle.valueOf(cmd[2]) : TakerStyle.WAIT);
                yield "OK";
            }
            case "NDISARM" -> "TALLY " + Base64.getEncoder().encodeToString(collecting(collector).disarm(
                    Long.parseLong(cmd[1]), Duration.ofMillis(Long.parseLong(cmd[2]))).encode());
            default -> throw new IllegalArgumentException("unknown command " + cmd[0]);
        };
    }

    private static NotificationCollector collecting(@Nullable NotificationCollector collector) {
        if (collector == null) {
            throw new IllegalStateException("NDISARM before NARM");
        }
        return collector;
    }
}
