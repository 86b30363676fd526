package io.blockxfer.examples;

import io.blockxfer.directory.DirectoryListener;
import io.blockxfer.directory.DirectoryWatch;
import io.blockxfer.directory.Publication;
import io.blockxfer.directory.etcd.EtcdDirectory;
import java.nio.file.Path;
import java.time.Duration;

/** transport-directory-etcd/README.md: a directory on etcd, plain and with TLS and a user. Stateless. */
public final class EtcdDirectories {

    private EtcdDirectories() {
    }

    /**
     * Publishes an entry and watches the members, on a plain-text etcd.
     *
     * @param entryBytes the entry to publish
     * @param listener what the watch tells
     */
    @SuppressWarnings("unused") // `me` and `members` are what a reader goes on with
    public static void publishAndWatch(byte[] entryBytes, DirectoryListener listener) {
        // @start region="publish-watch"
        try (EtcdDirectory directory = EtcdDirectory.builder("etcd://198.18.0.1:2379,198.18.0.2:2379,198.18.0.3:2379")
                .prefix("/blockxfer/prod-eu/")                 // one deployment; default /blockxfer/default/
                .operationTimeout(Duration.ofSeconds(5))       // the default
                .build()) {
            Publication me = directory.publish("worker-17", entryBytes, Duration.ofSeconds(15),
                    (publication, why) -> { /* lease lost: publish again */ });
            DirectoryWatch members = directory.watch(listener); // snapshot, then ordered events
        }
        // @end region="publish-watch"
    }

    /**
     * Connects to an etcd with TLS, a client certificate and a user, configured as etcdctl is.
     *
     * @return the same configuration, read from etcdctl's variables
     */
    @SuppressWarnings("try") // the directory is only opened and closed here
    public static EtcdDirectory.Builder tls() {
        // @start region="tls"
        try (EtcdDirectory directory = EtcdDirectory.builder("https://198.18.0.1:2379,https://198.18.0.2:2379,https://198.18.0.3:2379")
                .prefix("/blockxfer/prod/")
                .trustedCa(Path.of("/etc/etcd/pki/ca.crt"))                      // etcdctl --cacert
                .clientCertificate(Path.of("/etc/blockxfer/etcd-client.crt"),    // etcdctl --cert
                        Path.of("/etc/blockxfer/etcd-client.key"))               // etcdctl --key
                .user("blockxfer-prod")                                          // etcdctl --user
                .passwordFile(Path.of("/run/secrets/etcd-password"))             // or .password(char[])
                .build()) { /* ... */ }

        EtcdDirectory.Builder fromShell = EtcdDirectory.fromEnvironment();     // etcdctl's ETCDCTL_* variables
        // @end region="tls"
        return fromShell;
    }
}
