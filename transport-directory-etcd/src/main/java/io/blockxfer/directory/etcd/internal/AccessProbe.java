package io.blockxfer.directory.etcd.internal;

import io.blockxfer.directory.DirectoryUnavailableException;
import io.blockxfer.directory.etcd.EtcdAuthException;
import io.blockxfer.directory.etcd.EtcdAuthException.Reason;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.OptionsUtil;
import io.etcd.jetcd.options.PutOption;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Checks, when a directory with TLS or a user is built, that etcd lets it do what a directory
 * does: read the prefix (a range read of one key, keys only) and write under it (a transaction
 * that would put a probe key under the prefix, behind a comparison that never holds (a delete
 * needs the same write permission):
 * etcd checks the permissions of every operation of a transaction, run or not, so nothing is
 * written and no watch sees anything). Every key a directory reads, watches or writes lies under
 * the prefix (member keys and group keys, {@link io.blockxfer.directory.DirectoryScope}), so a role
 * that covers the prefix covers them all. A refusal is an {@link EtcdAuthException} naming the
 * user, the prefix and what is missing.
 *
 * <p><b>Thread safety:</b> stateless.
 */
public final class AccessProbe {

    private static final System.Logger LOG = System.getLogger("io.blockxfer.directory.etcd.EtcdDirectory");

    /** The key the write check names, under the prefix; never written. */
    static final String PROBE_KEY = ".blockxfer-access-check";

    private AccessProbe() {
    }

    /**
     * The check of a directory built with TLS or a user, within the operation timeout: a TLS
     * handshake with every endpoint ({@link EtcdTls#check}), then {@link #check}. When etcd cannot be
     * reached (it may be down while a process starts) it only warns: the calls will find out. On a
     * refusal the connection is closed.
     *
     * @throws EtcdAuthException when etcd refuses the user or its roles lack read or write on the prefix
     * @throws io.blockxfer.directory.etcd.EtcdTlsException when TLS fails
     */
    public static void checkAtBuild(EtcdConnection connection, @Nullable EtcdTls tls, String prefix) {
        try {
            long deadline = connection.deadline();
            if (tls != null) {
                tls.check(connection.endpoints().hostPorts(), deadline, connection.owner());
            }
            check(connection, prefix, deadline);
        } catch (DirectoryUnavailableException e) {
            LOG.log(Level.WARNING, connection.owner() + ": TLS and access to etcd are not checked now, etcd cannot"
                    + " be reached (" + e.getMessage() + "); the first call checks them");
        } catch (RuntimeException | Error e) {
            connection.close();
            throw e;
        }
    }

    /**
     * Reads and (without writing) checks writes under {@code prefix}, by {@code deadline}.
     *
     * @throws EtcdAuthException when etcd refuses the user or its roles lack read or write on the prefix
     * @throws io.blockxfer.directory.etcd.EtcdTlsException when TLS fails
     * @throws io.blockxfer.directory.DirectoryUnavailableException when etcd does not answer in time
     */
    public static void check(EtcdConnection connection, String prefix, long deadline) {
        ByteSequence start = ByteSequence.from(prefix, StandardCharsets.UTF_8);
        ByteSequence end = OptionsUtil.prefixEndOf(start);
        try {
            var unused = connection.call(() -> connection.kv().get(start,
                    GetOption.builder().withRange(end).withLimit(1).withKeysOnly(true).build()), deadline,
                    "read the prefix " + prefix);
        } catch (EtcdAuthException e) {
            throw denied(connection, prefix, "read", e);
        }
        ByteSequence probe = ByteSequence.from(prefix + PROBE_KEY, StandardCharsets.UTF_8);
        try {
            var unused = connection.call(() -> connection.kv().txn()
                    .If(new Cmp(probe, Cmp.Op.LESS, CmpTarget.version(0))) // never holds: nothing is written
                    .Then(Op.put(probe, ByteSequence.EMPTY, PutOption.DEFAULT))
                    .commit(), deadline, "check write permission under " + prefix);
        } catch (EtcdAuthException e) {
            throw denied(connection, prefix, "write", e);
        }
    }

    private static EtcdAuthException denied(EtcdConnection connection, String prefix, String what,
            EtcdAuthException e) {
        if (e.reason() != Reason.PERMISSION_DENIED) {
            return e;
        }
        return new EtcdAuthException(Reason.PERMISSION_DENIED, connection.owner() + ": " + connection.userDescription()
                + " may not " + what + " keys under " + prefix + " (etcd: permission denied); a directory needs read"
                + " and write on its prefix: etcdctl role grant-permission ROLE --prefix=true readwrite " + prefix
                + " and etcdctl user grant-role USER ROLE", e);
    }
}
