/**
 * The UCX backend: one-sided block transfers over UCX RMA (put/get) through JUCX, on the real UCX
 * libraries, which the backend finds and loads itself (see {@link io.blockxfer.ucx.UcxProvider}).
 */
module io.blockxfer.transport.ucx {
    requires transitive io.blockxfer.transport;
    requires jucx;
    requires static com.google.auto.service;
    requires static org.jspecify;

    exports io.blockxfer.ucx;

    provides io.blockxfer.transport.spi.TransportProvider with io.blockxfer.ucx.UcxProvider;
}
