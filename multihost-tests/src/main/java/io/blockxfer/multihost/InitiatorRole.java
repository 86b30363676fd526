package io.blockxfer.multihost;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.PeerDescriptor;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The initiator side of the peer program: one transport shared by one {@link PeerSession} per
 * peer. Commands: {@code ADD peer family <base64 descriptor>}, {@code START peer|*},
 * {@code STOP} (every session; their {@code STATS} and {@code MODEL} events come before the
 * reply), {@code READD peer} (stops that session, registers the peer again from its descriptor,
 * which replaces the old registration, and starts a new phase), {@code PING}, {@code CLOSE}
 * (answers {@code closeMillis=}).
 *
 * <p><b>Thread safety:</b> commands run on the program's main thread; sessions run on their own.
 */
final class InitiatorRole implements PeerMain.Role {

    private record Peer(PeerDescriptor descriptor, PeerSession session) {
    }

    private final DataTransport transport;
    private final PeerArgs args;
    private final EventSink events;
    private final IdLedger ledger = new IdLedger();
    private final Map<String, Peer> peers = new LinkedHashMap<>();

    InitiatorRole(DataTransport transport, PeerArgs args, EventSink events) {
        this.transport = transport;
        this.args = args;
        this.events = events;
    }

    @Override
    public String handle(String[] cmd) throws Exception {
        return switch (cmd[0]) {
            case "ADD" -> add(cmd[1], Long.parseLong(cmd[2]), cmd[3]);
            case "START" -> {
                for (Peer p : select(cmd[1])) {
                    p.session().start();
                }
                yield "started=" + select(cmd[1]).size();
            }
            case "STOP" -> stopAll();
            case "READD" -> readd(cmd[1]);
            case "PING" -> "pong ids=" + ledger.count();
            default -> throw new IllegalArgumentException("unknown command " + cmd[0]);
        };
    }

    private String add(String peerId, long family, String blob) {
        if (peers.containsKey(peerId)) {
            throw new IllegalArgumentException("peer " + peerId + " was added already; use READD");
        }
        int index = peers.size();
        if (index >= args.maxPeers()) {
            throw new IllegalArgumentException("room for " + args.maxPeers() + " peers only");
        }
        PeerDescriptor descriptor = PeerDescriptor.decode(Base64.getDecoder().decode(blob));
        long t0 = System.nanoTime();
        transport.addPeer(peerId, descriptor);
        long micros = (System.nanoTime() - t0) / 1000;
        PeerSession session = new PeerSession(transport, peerId, descriptor.numBlocks(), family,
                index * args.workload().localBlocksPerPeer(), args.workload(), ledger, events,
                args.seed() * 31 + index);
        peers.put(peerId, new Peer(descriptor, session));
        return "addMicros=" + micros;
    }

    private String readd(String peerId) throws InterruptedException {
        Peer p = peer(peerId);
        p.session().stop();
        long t0 = System.nanoTime();
        transport.addPeer(peerId, p.descriptor());
        long micros = (System.nanoTime() - t0) / 1000;
        p.session().start();
        return "addMicros=" + micros;
    }

    private String stopAll() {
        long t0 = System.nanoTime();
        List<CompletableFuture<Void>> stops = new ArrayList<>();
        for (Peer p : peers.values()) {
            stops.add(CompletableFuture.runAsync(() -> {
                try {
                    p.session().stop();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        stops.forEach(CompletableFuture::join);
        return "stopMillis=" + (System.nanoTime() - t0) / 1_000_000;
    }

    private List<Peer> select(String which) {
        return which.equals("*") ? List.copyOf(peers.values()) : List.of(peer(which));
    }

    private Peer peer(String peerId) {
        Peer p = peers.get(peerId);
        if (p == null) {
            throw new IllegalArgumentException("unknown peer " + peerId);
        }
        return p;
    }

    @Override
    public void close() {
        stopAll();
        transport.close();
    }
}
