package io.blockxfer.tck.directory;

import io.blockxfer.directory.Directory;
import io.blockxfer.directory.memory.InMemoryCluster;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/** A deployment on a fresh in-memory cluster with a manual clock: every fault, no waiting. */
class InMemoryDeployment implements DirectoryDeployment {

    private static final AtomicInteger DEPLOYMENTS = new AtomicInteger();

    final InMemoryCluster cluster = InMemoryCluster.withManualClock();
    final String prefix = "/tck/deployment-" + DEPLOYMENTS.incrementAndGet() + "/";

    @Override
    public String name() {
        return "in-memory (manual clock)";
    }

    @Override
    public Directory connect() {
        return cluster.connect(prefix);
    }

    @Override
    public Set<DirectoryFault> faults() {
        return EnumSet.allOf(DirectoryFault.class);
    }

    @Override
    public void elapse(Duration duration) {
        cluster.advance(duration);
    }

    @Override
    public void cutOff(Directory client) {
        cluster.cutOff(client);
    }

    @Override
    public void reconnect(Directory client) {
        cluster.reconnect(client);
    }

    @Override
    public void crash(Directory client) {
        cluster.crash(client);
    }

    @Override
    public void loseLease(String memberId) {
        if (!cluster.loseLease(prefix + memberId)) {
            throw new IllegalStateException("no lease holds " + prefix + memberId);
        }
    }

    @Override
    public void putRaw(String key, byte[] value) {
        cluster.put(key, value);
    }

    @Override
    public void deleteRaw(String key) {
        cluster.delete(key);
    }

    @Override
    public void compact() {
        cluster.compact();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
