/**
 * The blockxfer user API ({@code io.blockxfer.transport}) and the provider SPI
 * ({@code io.blockxfer.transport.spi}). No native code; no dependencies.
 */
module io.blockxfer.transport {
    requires jdk.jfr;

    exports io.blockxfer.transport;
    exports io.blockxfer.transport.spi;

    uses io.blockxfer.transport.spi.TransportProvider;
}
