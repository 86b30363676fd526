/**
 * The blockxfer conformance kit: an abstract JUnit 5 suite that certifies a backend, with the
 * harnesses that supply it transports in one JVM or in two processes.
 */
module io.blockxfer.tck {
    requires transitive io.blockxfer.transport;
    requires transitive org.junit.jupiter.api;

    exports io.blockxfer.tck;

    uses io.blockxfer.transport.spi.TransportProvider;
}
