/**
 * The {@code blockxfer} command: lists the backends found ({@code backends}), benchmarks transfers
 * against the memcpy ceiling ({@code bench}), and runs the conformance kit against any provider
 * ({@code tck}). Backends are found through {@link java.util.ServiceLoader}, so a backend jar on
 * the class path (or given with {@code --classpath}) is all it takes.
 */
module io.blockxfer.cli {
    requires io.blockxfer.transport;
    requires io.blockxfer.transport.loopback;
    requires io.blockxfer.tck;
    requires io.blockxfer.transport.directory;
    requires transitive info.picocli;
    requires tools.jackson.databind;
    requires HdrHistogram;
    requires org.junit.platform.launcher;
    requires java.logging;
    requires jdk.management;
    requires jdk.jfr;
    requires static org.jspecify;

    exports io.blockxfer.cli;

    opens io.blockxfer.cli to info.picocli;
    opens io.blockxfer.cli.internal to info.picocli, org.junit.platform.commons;

    uses io.blockxfer.transport.spi.TransportProvider;
}
