/**
 * The blockxfer conformance kit: an abstract JUnit 5 suite that certifies a backend, with the
 * harnesses that supply it transports in one JVM or in two processes, helpers for child JVMs and a
 * private etcd ({@code io.blockxfer.tck.process}), and the directory conformance suite
 * ({@code io.blockxfer.tck.directory}).
 */
module io.blockxfer.tck {
    requires transitive io.blockxfer.transport;
    requires transitive io.blockxfer.transport.directory;
    requires transitive org.junit.jupiter.api;
    // the rule that no waiting virtual thread pins its carrier records JFR events
    requires jdk.jfr;
    requires static io.blockxfer.transport.loopback;
    requires static org.jspecify;
    // EtcdCluster's TLS and TestCertificates only: the tests that use them have BouncyCastle
    requires static org.bouncycastle.pkix;
    requires static org.bouncycastle.provider;

    exports io.blockxfer.tck;
    exports io.blockxfer.tck.process;
    exports io.blockxfer.tck.directory;

    opens io.blockxfer.tck to org.junit.platform.commons;

    uses io.blockxfer.transport.spi.TransportProvider;
}
