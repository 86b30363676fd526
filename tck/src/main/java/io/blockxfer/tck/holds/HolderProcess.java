package io.blockxfer.tck.holds;

import io.blockxfer.holds.HoldGrant;
import io.blockxfer.holds.Holds;
import io.blockxfer.holds.Lease;
import io.blockxfer.tck.process.ChildJvm;
import io.blockxfer.transport.Capability;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * The program rule H9 runs in a child JVM to be SIGKILLed: a holder with a transport of the named
 * backend and holds on its own threads (real clock, its own ticks and notification pump). It
 * serves line commands on stdin and answers on stdout, and exits when stdin closes.
 *
 * <p>Arguments: {@code backend numBlocks blockLength agentName}. Commands: {@code PEER <base64
 * descriptor>} (registers the owner as "owner"; answers {@code OK}), {@code ACCEPT <base64 grant>}
 * (accepts the grant from "owner" and answers {@code CONFIRMED} once the owner confirmed it),
 * {@code CLOSE}. The first line out is {@code READY <base64 descriptor>}; errors are {@code ERR ...}.
 *
 * <p><b>Thread safety:</b> a program; its command loop is single-threaded.
 */
public final class HolderProcess {

    private HolderProcess() {
    }

    /** Runs the holder until {@code CLOSE} or the end of stdin. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        System.setOut(System.err);
        ChildJvm.exitWhenParentDies();
        String backend = args[0];
        int numBlocks = Integer.parseInt(args[1]);
        long blockLength = Long.parseLong(args[2]);
        boolean backendMemory = Transports.providers().stream().anyMatch(p -> p.name().equals(backend)
                && p.capabilities().contains(Capability.BACKEND_REGION));
        RegionSpec region = backendMemory ? RegionSpec.allocate(numBlocks, blockLength)
                : RegionSpec.wrap(Arena.global().allocate(numBlocks * blockLength, 4096), blockLength);
        DataTransport transport;
        Holds holds;
        try {
            transport = Transports.select(backend, HolderProcess.class.getClassLoader())
                    .open(TransportConfig.builder(region).agentName(args[3]).build());
            holds = Holds.builder(transport).tickInterval(Duration.ofMillis(20)).pumpNotifications(n -> { }).build();
        } catch (RuntimeException e) {
            out.println("ERR " + String.valueOf(e).replace('\n', ' '));
            System.exit(2);
            return;
        }
        out.println("READY " + Base64.getEncoder().encodeToString(transport.localDescriptor().encode()));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] cmd = line.trim().split(" ", 2);
            try {
                switch (cmd[0]) {
                    case "PEER" -> {
                        transport.addPeer("owner", PeerDescriptor.decode(Base64.getDecoder().decode(cmd[1])));
                        out.println("OK");
                    }
                    case "ACCEPT" -> {
                        Lease lease = holds.accept("owner", HoldGrant.decode(Base64.getDecoder().decode(cmd[1])));
                        lease.whenConfirmed().get(30, TimeUnit.SECONDS);
                        out.println("CONFIRMED");
                    }
                    case "CLOSE" -> {
                        holds.close();
                        transport.close();
                        out.println("BYE");
                        return;
                    }
                    default -> out.println("ERR unknown command " + cmd[0]);
                }
            } catch (Exception e) {
                out.println("ERR " + String.valueOf(e).replace('\n', ' '));
            }
        }
        holds.close();
        transport.close();
    }
}
