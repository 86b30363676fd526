package io.blockxfer.multihost;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.io.IOException;
import java.util.Base64;

/**
 * The program every peer container runs: opens one transport of the named backend and obeys line
 * commands on a control channel ({@link LineChannel}, a Unix-domain socket the test listens on in
 * a bind-mounted directory), as a {@code target} (a passive region, {@link TargetRole}) or an
 * {@code initiator} (streams verified transfers to its peers, {@link InitiatorRole}).
 *
 * <p>Protocol: the peer sends {@code E READY desc=<base64 descriptor>} once its transport is open,
 * or {@code E ERR <cause>} and exits with status 2 when it cannot open one. Each command line is
 * answered by exactly one {@code R OK [key=value ...]} or {@code R ERR <message>}; events
 * ({@code E ...}) may come at any time. {@code CLOSE} closes the transport (answering
 * {@code closeMillis=}) and ends the program; so does the end of the control connection, so a
 * test JVM that dies takes its peers with it. Arguments: see {@link PeerArgs}.
 *
 * <p><b>Thread safety:</b> a program; the command loop runs on the main thread.
 */
public final class PeerMain {

    /** What a peer does with its commands. Thread safety: called from the command loop only. */
    interface Role extends AutoCloseable {
        /** Runs one command (already split at spaces); returns the reply's payload. */
        String handle(String[] cmd) throws Exception;

        @Override
        void close();
    }

    private PeerMain() {
    }

    /** Runs the peer until {@code CLOSE} or the end of the control connection. */
    public static void main(String[] argv) throws Exception {
        PeerArgs args = PeerArgs.parse(argv);
        LineChannel link = LineChannel.connect(args.control());
        EventSink events = line -> {
            try {
                link.send(line);
            } catch (IOException e) {
                System.err.println("control channel lost: " + e + "; exiting");
                Runtime.getRuntime().halt(3);
            }
        };
        System.err.println("peer " + args.agent() + ": " + args.role() + " on " + args.backend());
        DataTransport transport;
        try {
            transport = open(args);
        } catch (RuntimeException | LinkageError e) {
            e.printStackTrace();
            events.emit("E ERR " + oneLine(e));
            link.close();
            System.exit(2);
            return;
        }
        Role role = switch (args.role()) {
            case "initiator" -> new InitiatorRole(transport, args, events);
            case "member" -> new MemberRole(transport, args.agent(), events);
            default -> new TargetRole(transport);
        };
        events.emit("E READY desc=" + Base64.getEncoder().encodeToString(transport.localDescriptor().encode())
                + " blocks=" + transport.region().numBlocks());
        int status = serve(link, role, events);
        System.exit(status);
    }

    private static DataTransport open(PeerArgs args) {
        int blocks = switch (args.role()) {
            case "initiator" -> args.maxPeers() * args.workload().localBlocksPerPeer();
            case "member" -> MemberRole.BLOCKS;
            default -> args.blocks();
        };
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(blocks, args.blockLength()))
                .agentName(args.agent())
                .transferTimeout(args.transferTimeout())
                .closeTimeout(args.closeTimeout())
                .options(args.options())
                .build();
        return Transports.select(args.backend(), PeerMain.class.getClassLoader()).open(config);
    }

    private static int serve(LineChannel link, Role role, EventSink events) throws IOException {
        String line;
        while ((line = link.readLine()) != null) {
            String[] cmd = line.trim().split(" ");
            if (cmd[0].equals("CLOSE")) {
                long t0 = System.nanoTime();
                role.close();
                events.emit("R OK closeMillis=" + (System.nanoTime() - t0) / 1_000_000);
                link.close();
                return 0;
            }
            try {
                events.emit("R OK " + role.handle(cmd));
            } catch (Exception | LinkageError e) {
                e.printStackTrace();
                events.emit("R ERR " + oneLine(e));
            }
        }
        System.err.println("control channel closed; closing the transport");
        role.close();
        return 0;
    }

    private static String oneLine(Throwable e) {
        return String.valueOf(e).replace('\n', ' ');
    }
}
