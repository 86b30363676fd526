/**
 * The in-memory loopback backend: peers are transports in the same JVM, real bytes are copied on a
 * worker thread, and faults can be injected for tests.
 */
module io.blockxfer.transport.loopback {
    requires transitive io.blockxfer.transport;
    requires static org.jspecify;

    exports io.blockxfer.loopback;

    provides io.blockxfer.transport.spi.TransportProvider with io.blockxfer.loopback.LoopbackProvider;
}
