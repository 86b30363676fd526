/**
 * Peers find each other through a directory: the directory SPI ({@link io.blockxfer.directory.Directory}:
 * a member's entry published under a lease, a watch of the deployment with revisioned events), the
 * signed member entry ({@link io.blockxfer.directory.MemberEntry}), the
 * {@link io.blockxfer.directory.Membership} that keeps a transport's peers equal to the directory's
 * compatible, authenticated members, and an in-memory directory for tests and loopback CI
 * ({@code io.blockxfer.directory.memory}). Depends on the transport API only.
 */
module io.blockxfer.transport.directory {
    requires transitive io.blockxfer.transport;
    requires jdk.jfr;
    requires static org.jspecify;

    exports io.blockxfer.directory;
    exports io.blockxfer.directory.memory;
}
