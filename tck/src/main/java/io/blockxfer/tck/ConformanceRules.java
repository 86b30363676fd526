package io.blockxfer.tck;

/**
 * The conformance rules by id, with what each checks and where to look when it fails. The ids
 * appear in the display names and assertion messages of {@link TransportConformanceSuite}.
 *
 * <p><b>Thread safety:</b> immutable.
 */
public enum ConformanceRules {
    G1("region, fingerprint and descriptor", "region geometry, ConfigFingerprint, PeerDescriptor.of"),
    G2("descriptor encode/decode round trip", "PeerDescriptor.encode/decode; metadata must be self-contained"),
    P1("unknown peer is NOT_SUBMITTED", "submit must look the peer up before anything else"),
    P2("block length mismatch rejected", "addPeer must compare block lengths before native work"),
    P3("fingerprint or backend mismatch rejected", "addPeer must compare fingerprints and backend names"),
    P4("removed peer takes no transfers", "removePeer must unpublish the registration"),
    P5("remove drains only that peer", "per-peer in-flight tables; retire only the removed peer's transfers"),
    P6("re-add replaces", "tear the old registration down first; owe reports for its transfers"),
    P7("async registration", "the registration thread must publish and complete the future"),
    P8("superseded registration", "generation check at publish; release what was built; distinct exception"),
    W1("one-block WRITE lands", "offsets: block i at base + i * blockLength on both sides"),
    W2("batch WRITE lands", "index pairing local[i] -> remote[i]"),
    W3("runs and repeats", "run coalescing must only merge pairs contiguous on both sides"),
    W4("many in flight", "in-flight table growth; completion delivery under load"),
    W5("empty and unequal arrays", "argument checks before any state change"),
    W6("out-of-range indices", "index checks against the local region and the peer's advertised region"),
    W7("null arguments", "Objects.requireNonNull with the argument's name"),
    R1("one-block READ", "READ direction: remote -> local"),
    R2("batch READ", "READ index pairing and coalescing"),
    R3("READ refused without capability", "UnsupportedOperationException when READ is not declared"),
    C1("unique increasing ids", "one id counter per transport"),
    C2("exactly once", "terminal transfers leave the table when reported; shared EMPTY result"),
    C3("scoped poll", "poll(peer) must never touch another peer's transfers"),
    C4("pollAll", "pollAll must visit every peer, removed ones owing reports included"),
    C5("handler poll", "the handler form must report what the result form would"),
    X1("immediate cancel", "cancelled ids must never be reported; keep native handles until terminal"),
    X2("wait cancel", "return exactly the ids still in flight; they surface later, the rest never"),
    X3("cancel of unknown ids", "ignore ids that are not in flight"),
    X4("wait cancel of stalled transfer", "a stalled transfer is in flight, not terminal"),
    F1("peer death", "native errors become failed reports; deadline and peer abort"),
    F2("deadline on a stalled peer", "transferTimeout must fail overdue transfers at the next poll"),
    M1("malformed blobs", "PeerDescriptor.decode must throw only MalformedPeerDescriptorException"),
    M2("garbled backend metadata", "engine connect must validate metadata and release on failure"),
    M3("lying geometry", "engine connect must check the descriptor against what the peer registered"),
    L1("idempotent close", "close must be safe to call twice and concurrently"),
    L2("use after close", "every method must check the closed state"),
    L3("close with transfers in flight", "close must wait for transfers, bounded by its timeout"),
    S1("concurrent sessions", "per-peer locking; no shared mutable state without synchronisation"),
    S2("stress ledger", "exactly once under concurrent submit, poll, cancel and peer churn");

    private final String checks;
    private final String whereToLook;

    ConformanceRules(String checks, String whereToLook) {
        this.checks = checks;
        this.whereToLook = whereToLook;
    }

    /** What the rule checks. */
    public String checks() {
        return checks;
    }

    /** What to look at in a backend when the rule fails. */
    public String whereToLook() {
        return whereToLook;
    }
}
