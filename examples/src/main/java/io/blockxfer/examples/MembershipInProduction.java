package io.blockxfer.examples;

import io.blockxfer.directory.Membership;
import io.blockxfer.directory.etcd.EtcdDirectory;
import io.blockxfer.micrometer.MicrometerMembershipListener;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;

/** docs/membership.md: a membership on a production etcd, with TLS, a user and meters. Stateless. */
public final class MembershipInProduction {

    private MembershipInProduction() {
    }

    /**
     * Joins the deployment under {@code /kv/prod/} on an etcd cluster that wants TLS, a client
     * certificate and a user, with the membership's meters in {@code registry}.
     *
     * @param transport the transport the membership keeps in step
     * @param keys the deployment's key ring, the transport's
     * @param caFile the CA that signed the etcd members' certificates
     * @param certFile this process's client certificate
     * @param keyFile its private key
     * @param passwordFile the etcd user's password
     * @param registry where the membership's meters go
     */
    @SuppressWarnings("try") // the membership works while the try runs
    public static void join(DataTransport transport, DeploymentKeyRing keys, Path caFile, Path certFile, Path keyFile,
            Path passwordFile, MeterRegistry registry) {
        // @start region="etcd"
        try (EtcdDirectory directory = EtcdDirectory.builder("https://e1:2379,https://e2:2379,https://e3:2379")
                        .prefix("/kv/prod/")
                        .trustedCa(caFile)                          // etcdctl --cacert
                        .clientCertificate(certFile, keyFile)       // etcdctl --cert, --key
                        .user("blockxfer-prod")                     // etcdctl --user
                        .passwordFile(passwordFile)
                        .build();
                Membership membership = Membership.builder(transport, directory)
                        .keyRing(keys)                              // the transport's ring
                        .ttl(Duration.ofSeconds(15))
                        .listener(new MicrometerMembershipListener(registry))
                        .build()) {
            // the transport's peers follow the deployment
        }
        // @end region="etcd"
    }
}
