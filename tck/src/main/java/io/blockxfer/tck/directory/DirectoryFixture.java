package io.blockxfer.tck.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.DirectoryScope;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Membership;
import io.blockxfer.tck.TckEnvironment;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.Transports;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What one directory rule works with: its deployment, the clients, watches, transports and
 * memberships it opens (all closed after the rule), the key ring of its memberships, and the
 * helpers that wait for things and name the rule in every message.
 *
 * <p><b>Thread safety:</b> used by one rule; its lists are synchronized because directory and
 * membership threads never touch them, but a rule's helper threads may.
 */
final class DirectoryFixture implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DirectoryFixture.class.getName());

    /** Blocks per transport of the membership rules. */
    static final int BLOCKS = 8;
    /** Block length of the membership rules' transports. */
    static final long BLOCK_LENGTH = 256;
    /** The lease TTL of the rules that do not wait for one to expire. */
    static final Duration TTL = Duration.ofSeconds(10);

    final DirectoryDeployment deployment;
    final TckEnvironment env;
    final DirectoryRules rule;
    private final DirectoryConformanceSuite suite;
    private final DeploymentKeyRing ring;
    private final List<AutoCloseable> opened = new ArrayList<>();
    private int agents;

    DirectoryFixture(DirectoryConformanceSuite suite, DirectoryDeployment deployment, TckEnvironment env,
            DirectoryRules rule) {
        this.suite = suite;
        this.deployment = deployment;
        this.env = env;
        this.rule = rule;
        this.ring = suite.keyRing();
    }

    /** {@code "[D3] deployment: what"}. */
    String msg(String what) {
        return "[" + rule.name() + "] " + deployment.name() + ": " + what;
    }

    /** The key ring of the rule's memberships and transports. */
    DeploymentKeyRing ring() {
        return ring;
    }

    /** Closes {@code c} after the rule. */
    synchronized <T extends AutoCloseable> T keep(T c) {
        opened.add(c);
        return c;
    }

    /** A new client of the deployment. */
    Directory client() {
        return keep(deployment.connect());
    }

    /** A watch of {@code client}, recorded. */
    WatchLog watch(Directory client) {
        WatchLog log = new WatchLog(env.timeout());
        DirectoryWatch w = client.watch(log);
        keep(w);
        return log;
    }

    /** A watch of a new client, recorded, with its snapshot arrived. */
    WatchLog watcher() throws InterruptedException {
        WatchLog log = watch(client());
        log.awaitSnapshot(msg("a new watch"));
        return log;
    }

    /** A watch of the keys of {@code scope} of {@code client}, recorded. */
    WatchLog watch(Directory client, DirectoryScope scope) {
        WatchLog log = new WatchLog(env.timeout());
        DirectoryWatch w = client.watch(scope, log);
        keep(w);
        return log;
    }

    /** A watch of the keys of {@code scope} of a new client, recorded, with its snapshot arrived. */
    WatchLog watcher(DirectoryScope scope) throws InterruptedException {
        WatchLog log = watch(client(), scope);
        log.awaitSnapshot(msg("a new watch of " + scope));
        return log;
    }

    /** The full key of {@code memberId}. */
    String key(Directory client, String memberId) {
        return client.prefix() + memberId;
    }

    /** A new agent name, unique in this rule: {@code base-N}. */
    synchronized String agent(String base) {
        return base + "-" + ++agents;
    }

    /** A loopback transport of the rule's geometry and key ring. */
    DataTransport transport(String agent) {
        return transport(agent, BLOCK_LENGTH, Map.of());
    }

    /** A loopback transport with the rule's key ring. */
    DataTransport transport(String agent, long blockLength, Map<String, ?> fields) {
        return keep(Transports.open(TransportConfig.builder(RegionSpec.allocate(BLOCKS, blockLength))
                .transport("loopback").agentName(agent).configFields(fields).keyRing(ring)
                .transferTimeout(env.timeout()).closeTimeout(env.closeTimeout()).build()));
    }

    /** A builder of a membership of {@code transport} on {@code client}, with the rule's ring and TTL. */
    Membership.Builder builder(DataTransport transport, Directory client, MemberLog log) {
        return Membership.builder(suite.membershipTransport(transport), client).keyRing(ring).ttl(TTL)
                .flapInterval(Duration.ZERO).listener(suite.decorate(log));
    }

    /** Starts a membership from {@code builder}, as the kit's tests may adjust it. */
    Membership start(Membership.Builder builder) {
        return keep(suite.configure(builder).build());
    }

    /** Starts a membership of {@code transport} on a new client. */
    Membership member(DataTransport transport, MemberLog log) {
        return start(builder(transport, client(), log));
    }

    MemberLog log() {
        return new MemberLog(env.timeout());
    }

    /** Waits until {@code condition} holds, failing with {@code what} otherwise. */
    void await(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        await(condition, what, Duration.ZERO);
    }

    /** Waits until {@code condition} holds, up to the rule timeout plus {@code more}. */
    void await(BooleanSupplier condition, Supplier<String> what, Duration more) throws InterruptedException {
        Duration limit = env.timeout().plus(more);
        long end = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError(msg(what.get() + " within " + limit.toMillis() + " ms"));
            }
            Thread.sleep(5);
        }
    }

    /** Waits until {@code membership} has registered {@code memberId} with {@code epoch} (any epoch when 0). */
    void awaitMember(Membership membership, String memberId, long epoch) throws InterruptedException {
        awaitMember(membership, memberId, epoch, Duration.ZERO);
    }

    /** As {@link #awaitMember(Membership, String, long)}, waiting {@code more} longer. */
    void awaitMember(Membership membership, String memberId, long epoch, Duration more) throws InterruptedException {
        await(() -> {
            Long e = membership.members().get(memberId);
            return e != null && (epoch == 0 || e == epoch);
        }, () -> membership.memberId() + " did not register " + memberId + (epoch == 0 ? "" : " at epoch " + epoch)
                + " (it holds " + membership.members() + ")", more);
    }

    /**
     * Writes block 0 of {@code from}, filled with {@code value}, to block 3 of {@code peer}, and
     * checks that it landed in {@code to}.
     */
    void assertWriteLands(DataTransport from, String peer, DataTransport to, byte value) throws InterruptedException {
        MemorySegment source = from.region().segment().asSlice(0, from.region().blockLength());
        source.fill(value);
        long id = from.writeBlocks(peer, new int[] {0}, new int[] {3});
        assertNotEquals(DataTransport.NOT_SUBMITTED, id, msg(from.agentName() + " has no peer " + peer));
        long end = System.nanoTime() + env.timeout().toNanos();
        while (System.nanoTime() - end < 0) {
            PollResult r = from.poll(peer);
            if (r.done().length + r.failed().length > 0) {
                assertEquals(1, r.done().length, msg("write " + id + " to " + peer + " failed"));
                long at = 3 * to.region().blockLength();
                for (long i = 0; i < from.region().blockLength(); i += 61) {
                    assertEquals(value, to.region().segment().get(ValueLayout.JAVA_BYTE, at + i),
                            msg("write " + id + " to " + peer + " did not land in " + to.agentName() + " at byte "
                                    + i));
                }
                return;
            }
            Thread.sleep(1);
        }
        throw new AssertionError(msg("write " + id + " to " + peer + " did not end"));
    }

    @Override
    public void close() {
        List<AutoCloseable> all;
        synchronized (this) {
            all = new ArrayList<>(opened);
            opened.clear();
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                all.get(i).close();
            } catch (Exception | AssertionError e) {
                LOG.log(Level.DEBUG, msg("closing " + all.get(i) + " failed: " + e));
            }
        }
        deployment.close();
    }
}
