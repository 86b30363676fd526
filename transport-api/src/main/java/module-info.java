/**
 * The blockxfer user API ({@code io.blockxfer.transport}) and the provider SPI
 * ({@code io.blockxfer.transport.spi}). No native code; no dependencies.
 */
// the qualified export names backend modules that are compiled after this one
@SuppressWarnings("module")
module io.blockxfer.transport {
    requires jdk.jfr;
    // @Nullable in signatures; needed to compile this module only, not to use it
    requires static org.jspecify;

    exports io.blockxfer.transport;
    exports io.blockxfer.transport.spi;
    // machinery shared by the backends, not API
    exports io.blockxfer.transport.internal.queue to io.blockxfer.transport.loopback, io.blockxfer.transport.ucx;
    exports io.blockxfer.transport.internal.memory to io.blockxfer.transport.loopback, io.blockxfer.transport.ucx,
            io.blockxfer.transport.nixl;
    exports io.blockxfer.transport.internal.natives to io.blockxfer.transport.ucx, io.blockxfer.transport.nixl;

    uses io.blockxfer.transport.spi.TransportProvider;
}
