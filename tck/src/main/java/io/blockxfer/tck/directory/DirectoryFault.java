package io.blockxfer.tck.directory;

/**
 * The faults a {@link DirectoryDeployment} can cause; a rule that needs one the deployment lacks
 * is skipped with the reason.
 *
 * <p><b>Thread safety:</b> an enum; immutable.
 */
public enum DirectoryFault {
    /**
     * {@link DirectoryDeployment#cutOff} and {@link DirectoryDeployment#reconnect}: one client loses
     * the directory, then finds it again.
     */
    OUTAGE,
    /** {@link DirectoryDeployment#crash}: a client stops without a goodbye; its leases are left to expire. */
    CRASH,
    /**
     * {@link DirectoryDeployment#loseLease}: the directory drops a live lease, as when it expired while
     * its holder was paused.
     */
    LEASE_LOSS,
    /** {@link DirectoryDeployment#putRaw}, {@link DirectoryDeployment#deleteRaw}: bytes written straight into a key. */
    RAW_WRITE,
    /** {@link DirectoryDeployment#compact}: the directory forgets its history; a watch cannot resume from before it. */
    COMPACTION
}
