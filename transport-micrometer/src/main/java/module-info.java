/** Optional Micrometer metrics for blockxfer transports. */
module io.blockxfer.transport.micrometer {
    requires transitive io.blockxfer.transport;
    requires transitive micrometer.core;

    exports io.blockxfer.micrometer;
}
