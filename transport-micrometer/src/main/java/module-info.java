/** Optional Micrometer metrics for blockxfer transports. */
// micrometer-core has no module descriptor but a stable Automatic-Module-Name, and users of this
// module's API (a MeterRegistry goes in) need it too
@SuppressWarnings("requires-transitive-automatic")
module io.blockxfer.transport.micrometer {
    requires transitive io.blockxfer.transport;
    requires transitive micrometer.core;

    exports io.blockxfer.micrometer;
}
