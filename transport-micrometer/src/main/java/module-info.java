/** Optional Micrometer metrics for blockxfer transports, directory memberships and holds. */
// micrometer-core has no module descriptor but a stable Automatic-Module-Name, and users of this
// module's API (a MeterRegistry goes in) need it too
@SuppressWarnings("requires-transitive-automatic")
module io.blockxfer.transport.micrometer {
    requires transitive io.blockxfer.transport;
    requires transitive micrometer.core;
    // only MicrometerMembershipListener needs it, and whoever uses that has a Membership already
    requires static io.blockxfer.transport.directory;
    // only MicrometerHoldObserver needs it, and whoever uses that has holds already
    requires static io.blockxfer.transport.holds;
    requires static org.jspecify;

    exports io.blockxfer.micrometer;
}
