/**
 * The blockxfer conformance kit: an abstract JUnit 5 suite that certifies a backend, with the
 * harnesses that supply it transports in one JVM or in two processes, helpers for child JVMs and a
 * private etcd ({@code io.blockxfer.tck.process}), the directory conformance suite
 * ({@code io.blockxfer.tck.directory}) and the holds conformance suite ({@code io.blockxfer.tck.holds}).
 */
module io.blockxfer.tck {
    requires transitive io.blockxfer.transport;
    requires transitive io.blockxfer.transport.directory;
    requires transitive io.blockxfer.transport.holds;
    requires transitive org.junit.jupiter.api;
    // the rule that no waiting virtual thread pins its carrier records JFR events
    requires jdk.jfr;
    requires jdk.management;
    requires static io.blockxfer.transport.loopback;
    requires static org.jspecify;
    // EtcdCluster's TLS and TestCertificates only: the tests that use them have BouncyCastle
    requires static org.bouncycastle.pkix;
    requires static org.bouncycastle.provider;

    exports io.blockxfer.tck;
    exports io.blockxfer.tck.process;
    exports io.blockxfer.tck.directory;
    exports io.blockxfer.tck.holds;

    opens io.blockxfer.tck to org.junit.platform.commons;

    uses io.blockxfer.transport.spi.TransportProvider;
}
