package io.blockxfer.multihost;

import com.github.dockerjava.api.model.Capability;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A peer container running the member role ({@link MemberRole}): an etcd member beside a transport
 * that a {@code Membership} binds to the etcd cluster of all member containers. The test starts the
 * etcd member and the membership through the control channel, and reads the membership's events
 * ({@code E MEMBER}) and the transfer counts from it.
 *
 * <p><b>Thread safety:</b> as {@link PeerHost}.
 */
final class MemberHost extends PeerHost {

    /**
     * One peer's counts, as {@code STATS} reports them; {@code late}: read-backs that held an earlier
     * failed write's pattern (the contract lets a failed transfer's bytes land later).
     */
    record Counts(long submitted, long done, long failed, long verified, long mismatched, long notSubmitted,
            long pending, long lastVerifiedMillis, long late) {

        static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0);

        static Counts parse(String v) {
            String[] f = v.split("/", -1);
            return new Counts(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                    Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]),
                    Long.parseLong(f[8]));
        }
    }

    /** What {@code STATS} answered: the violations of the exactly-once rule, and the counts per peer. */
    record Stats(long violations, Map<String, Counts> peers) {

        Counts of(String peer) {
            return peers.getOrDefault(peer, Counts.NONE);
        }
    }

    /** Starts the container with {@code NET_ADMIN} in its own network namespace, for {@link #linkDown()}. */
    MemberHost(Testbed bed, String name) throws IOException {
        super(bed, name, List.of("--role", "member", "--block-length", Long.toString(bed.blockLength()),
                "--timeout-ms", Long.toString(bed.transferTimeout().toMillis())),
                c -> c.withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withCapAdd(Capability.NET_ADMIN)));
    }

    /**
     * Cuts the container off: {@code ip link set eth0 down} inside it, so that nothing goes in or
     * out on the test's network. Unlike {@code docker network disconnect}, whose later
     * {@code connect} brings the address back on a new interface ({@code eth1}, which
     * {@code UCX_NET_DEVICES=eth0} then misses), {@link #linkUp()} heals it with the same
     * interface, address and MAC.
     */
    void linkDown() {
        exec("ip", "link", "set", "eth0", "down");
    }

    /** Heals {@link #linkDown()}: {@code ip link set eth0 up} (the kernel restores the subnet's route). */
    void linkUp() {
        exec("ip", "link", "set", "eth0", "up");
    }

    /**
     * Starts this container's etcd member on {@code address}, with mutual TLS from the files in
     * {@code tlsFolder} (a path in the container); returns its pid in the container.
     */
    long startEtcd(String address, String initialCluster, String token, String tlsFolder) {
        return request("ETCD " + name() + " " + address + " " + initialCluster + " " + token + " " + tlsFolder)
                .num("pid");
    }

    /** The etcd member's {@code id=} and {@code leader=} ({@code 0}: none known, {@code ?}: no answer). */
    EventFields etcdStatus() {
        return request("ETCDSTATUS");
    }

    /**
     * Builds the directory, presenting the certificate in {@code tlsFolder} (a path in the container),
     * and the membership; returns this member's first epoch.
     */
    long join(String endpoints, String prefix, Duration ttl, Duration flap, String tlsFolder) {
        return request("JOIN " + endpoints + " " + prefix + " " + ttl.toSeconds() + " " + flap.toMillis() + " "
                + tlsFolder, Duration.ofMinutes(3)).num("epoch");
    }

    /** The first {@code E MEMBER} event of {@code kind} about {@code member} after line {@code from}. */
    EventFields awaitMember(int from, String kind, String member, Duration timeout) {
        return EventFields.parse(await(from, l -> isMember(l, kind, member), timeout, kind + " " + member));
    }

    /** Every {@code E MEMBER} event of {@code kind} about {@code member} after line {@code from}. */
    List<EventFields> members(int from, String kind, String member) {
        List<String> all = lines();
        List<EventFields> found = new ArrayList<>();
        for (String l : all.subList(Math.min(from, all.size()), all.size())) {
            if (isMember(l, kind, member)) {
                found.add(EventFields.parse(l));
            }
        }
        return found;
    }

    private static boolean isMember(String line, String kind, String member) {
        return line.startsWith("E MEMBER kind=" + kind + " member=" + member + " ");
    }

    /** Lines that report a broken rule: {@code E VIOLATION} or {@code E MISMATCH}. */
    List<String> violationLines() {
        return lines().stream().filter(l -> l.startsWith("E VIOLATION") || l.startsWith("E MISMATCH")).toList();
    }

    Stats stats() {
        EventFields f = request("STATS");
        Map<String, Counts> peers = new LinkedHashMap<>();
        for (String token : f.line().split(" ", -1)) {
            int eq = token.indexOf('=');
            if (eq > 0 && token.startsWith("m")) {
                peers.put(token.substring(0, eq), Counts.parse(token.substring(eq + 1)));
            }
        }
        return new Stats(f.num("violations"), peers);
    }

    /** Stops new rounds; returns how many transfers were still in flight after waiting up to 20 s. */
    long quiesce() {
        return request("QUIESCE", Duration.ofSeconds(60)).num("inflight");
    }
}
