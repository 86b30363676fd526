/** Optional Micrometer metrics for blockxfer transports and directory memberships. */
// micrometer-core has no module descriptor but a stable Automatic-Module-Name, and users of this
// module's API (a MeterRegistry goes in) need it too
@SuppressWarnings("requires-transitive-automatic")
module io.blockxfer.transport.micrometer {
    requires transitive io.blockxfer.transport;
    requires transitive micrometer.core;
    // only MicrometerMembershipListener needs it, and whoever uses that has a Membership already
    requires static io.blockxfer.transport.directory;
    requires static org.jspecify;

    exports io.blockxfer.micrometer;
}
