package io.blockxfer.tck;

import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.DeploymentKeyRing;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.TransportException;
import io.blockxfer.transport.UnauthenticatedPeerException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.zip.CRC32C;

/**
 * The bad descriptors the descriptor rules offer, and what a transport does with each: garbled
 * backend metadata in a valid envelope (M2), descriptors that lie about the peer's memory (M3),
 * unsigned, wrongly signed and tampered descriptors under a deployment key ring (M4), and broken
 * blobs for {@link PeerDescriptor#decode} (M1). The same code runs in this JVM or in a
 * child JVM ({@link AttackProcess}), which reports each {@link Outcome} on a line, so that a
 * backend that crashes on bad input fails a rule instead of ending the kit.
 *
 * <p><b>Thread safety:</b> stateless; a run uses its transport from one thread.
 */
final class DescriptorAttacks {

    /** What addPeer did with a bad descriptor. */
    enum Result {
        /** addPeer returned: the descriptor was accepted. */
        ACCEPTED,
        /** addPeer threw a TransportException (a typed rejection) and left nothing registered. */
        REJECTED,
        /** addPeer threw a TransportException but the peer took transfers afterwards. */
        LEFT_REGISTERED,
        /** addPeer threw something other than a TransportException. */
        UNTYPED,
        /** addPeer rejected a tampered descriptor, but not as unauthenticated (the backend saw it first). */
        NOT_AUTHENTICATED,
        /** A check after an accepted descriptor that limits the peer's blocks passed. */
        LIMITED,
        /** A check after an accepted descriptor that limits the peer's blocks failed. */
        NOT_LIMITED,
        /** The genuine descriptor still registers and takes a transfer afterwards. */
        CONTROL_OK,
        /** The genuine descriptor no longer works afterwards. */
        CONTROL_FAILED
    }

    /** What a correct transport does with a bad descriptor. */
    enum Expect {
        /** Rejects it with a TransportException and registers nothing. */
        REJECT,
        /** Rejects it with an UnauthenticatedPeerException, before its backend sees it. */
        REJECT_UNAUTHENTICATED,
        /** Accepts it (it claims less than the peer has) and limits transfers to what it claims. */
        LIMIT
    }

    /**
     * One bad descriptor.
     *
     * @param label what was done to it
     * @param descriptor the descriptor offered to addPeer
     * @param expect what a correct transport does with it
     */
    record Case(String label, PeerDescriptor descriptor, Expect expect) {
        boolean mustReject() {
            return expect != Expect.LIMIT;
        }
    }

    /**
     * What happened to case {@code index}.
     *
     * @param index the case's position, or -1 for the control
     * @param label the case's label
     * @param result the result
     * @param detail the exception or check that decided it
     */
    record Outcome(int index, String label, Result result, String detail) {

        String line() {
            return "OUT " + index + " " + result + " " + oneLine(label) + " :: " + oneLine(detail);
        }

        static Outcome parse(String line) {
            String[] head = line.split(" ", 4);
            String rest = head[3];
            int sep = rest.indexOf(" :: ");
            return new Outcome(Integer.parseInt(head[1]), rest.substring(0, sep), Result.valueOf(head[2]),
                    rest.substring(sep + 4));
        }
    }

    private DescriptorAttacks() {
    }

    static String oneLine(String s) {
        String one = String.valueOf(s).replace('\n', ' ').replace('\r', ' ');
        return one.length() > 300 ? one.substring(0, 300) + "..." : one;
    }

    // ------------------------------------------------------------------ M2: garbled metadata

    /** Garbled copies of {@code good}'s metadata, in an otherwise genuine descriptor. */
    static List<Case> garbledMetadata(PeerDescriptor good) {
        byte[] m = good.metadata();
        int n = m.length;
        List<Case> cases = new ArrayList<>();
        cases.add(garbled(good, "empty metadata", new byte[0]));
        for (int cut : cutPoints(n)) {
            cases.add(garbled(good, "metadata cut to " + cut + " of " + n + " bytes", Arrays.copyOf(m, cut)));
        }
        cases.add(garbled(good, "one zero byte appended", Arrays.copyOf(m, n + 1)));
        byte[] ff = Arrays.copyOf(m, n + 1);
        ff[n] = (byte) 0xff;
        cases.add(garbled(good, "one 0xff byte appended", ff));
        Random random = new Random(11);
        byte[] tail = Arrays.copyOf(m, n + 16);
        for (int i = n; i < tail.length; i++) {
            tail[i] = (byte) random.nextInt(256);
        }
        cases.add(garbled(good, "16 random bytes appended", tail));
        byte[] doubled = Arrays.copyOf(m, n * 2);
        System.arraycopy(m, 0, doubled, n, n);
        cases.add(garbled(good, "metadata twice", doubled));
        byte[] noise = new byte[n];
        random.nextBytes(noise);
        cases.add(garbled(good, "random bytes of the same length", noise));
        cases.add(garbled(good, "zeros of the same length", new byte[n]));
        for (int at : flipPoints(n)) {
            byte[] flipped = m.clone();
            flipped[at] ^= (byte) 0xff;
            cases.add(garbled(good, "byte " + at + " of " + n + " inverted", flipped));
            if (at % 5 == 0) {
                byte[] bit = m.clone();
                bit[at] ^= (byte) (1 << (at % 8));
                cases.add(garbled(good, "bit " + (at % 8) + " of byte " + at + " of " + n + " flipped", bit));
            }
        }
        return cases;
    }

    private static Case garbled(PeerDescriptor d, String label, byte[] metadata) {
        return new Case(label, Fixture.with(d, d.backend(), d.fingerprint(), d.baseAddress(), d.numBlocks(),
                d.blockLength(), metadata), Expect.REJECT);
    }

    /** Every strict prefix of short metadata; for long metadata, the first and last 48 and 64 spread between. */
    private static List<Integer> cutPoints(int n) {
        List<Integer> cuts = new ArrayList<>();
        for (int c = 1; c < n; c++) {
            if (n <= 512 || c <= 48 || c >= n - 48 || c % Math.max(1, n / 64) == 0) {
                cuts.add(c);
            }
        }
        return cuts;
    }

    /** Every byte of short metadata; for long metadata, the first and last 64 and 256 spread between. */
    private static List<Integer> flipPoints(int n) {
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (n <= 512 || i < 64 || i >= n - 64 || i % Math.max(1, n / 256) == 0) {
                at.add(i);
            }
        }
        return at;
    }

    // ------------------------------------------------------------------ M3: lies about memory

    /** Descriptors of {@code good}'s peer that claim memory it did not register, and one that claims less. */
    static List<Case> lies(PeerDescriptor good, PeerDescriptor other) {
        long base = good.baseAddress();
        int n = good.numBlocks();
        long bl = good.blockLength();
        List<Case> cases = new ArrayList<>();
        cases.add(lie(good, "one block more", base, n + 1, good.metadata()));
        cases.add(lie(good, "four times the blocks", base, n * 4, good.metadata()));
        cases.add(lie(good, "base one block up", base + bl, n, good.metadata()));
        if (base >= bl) {
            cases.add(lie(good, "base one block down", base - bl, n, good.metadata()));
        }
        cases.add(lie(good, "base eight blocks up", base + 8 * bl, n, good.metadata()));
        cases.add(lie(good, "base one byte up", base + 1, n, good.metadata()));
        cases.add(lie(good, "another peer's metadata with this peer's region", base, n, other.metadata()));
        cases.add(lie(good, "this peer's metadata with another peer's region", other.baseAddress(), other.numBlocks(),
                good.metadata()));
        cases.add(new Case("eight blocks fewer", Fixture.with(good, good.backend(), good.fingerprint(), base, n - 8, bl,
                good.metadata()), Expect.LIMIT));
        return cases;
    }

    private static Case lie(PeerDescriptor d, String label, long base, int blocks, byte[] metadata) {
        return new Case(label, Fixture.with(d, d.backend(), d.fingerprint(), base, blocks, d.blockLength(), metadata),
                Expect.REJECT);
    }

    // ------------------------------------------------------------------ M4: authentication

    /**
     * Descriptors of a peer whose genuine, signed descriptor is {@code genuine}: unsigned, signed
     * with other keys, and signed and then changed (the CRC made right again, so only the MAC can
     * tell): metadata bytes, base, block count, key id, MAC. The changed metadata is garbled, so a
     * backend that looked at it before checking the MAC would call it malformed instead.
     */
    static List<Case> tampered(PeerDescriptor genuine, DeploymentKeyRing sameIdOtherKey, DeploymentKeyRing rogue) {
        List<Case> cases = new ArrayList<>();
        cases.add(auth("unsigned", genuine.unsigned()));
        cases.add(auth("signed with another key under the same id", genuine.signedWith(sameIdOtherKey)));
        cases.add(auth("signed with a key not in the ring", genuine.signedWith(rogue)));
        byte[] blob = genuine.encode();
        byte[] metadata = genuine.metadata();
        int metaAt = indexOf(blob, metadata);
        int macAt = blob.length - 4 - 32;
        int keyIdAt = 4 + 2 + 2 + 1;
        int geometryAt = metaAt - 4 - 8 - 4 - 8; // base, block count, block length, metadata length
        for (int k = 0; k < 24 && metadata.length > 0; k++) {
            int at = metaAt + (int) ((long) k * metadata.length / 24);
            changed(blob, "metadata byte " + (at - metaAt) + " inverted after signing", at, b -> (byte) ~b)
                    .ifPresent(cases::add);
        }
        changedLong(blob, "base one block up after signing", geometryAt, genuine.blockLength()).ifPresent(cases::add);
        changedInt(blob, "one block more after signing", geometryAt + 8, 1).ifPresent(cases::add);
        changed(blob, "key id changed after signing", keyIdAt, b -> (byte) (b == 'x' ? 'y' : 'x'))
                .ifPresent(cases::add);
        changed(blob, "first MAC byte flipped", macAt, b -> (byte) (b ^ 1)).ifPresent(cases::add);
        changed(blob, "last MAC byte flipped", macAt + 31, b -> (byte) (b ^ 0x80)).ifPresent(cases::add);
        return cases;
    }

    private static Case auth(String label, PeerDescriptor d) {
        return new Case(label, d, Expect.REJECT_UNAUTHENTICATED);
    }

    private static int indexOf(byte[] blob, byte[] part) {
        outer:
        for (int i = blob.length - part.length; i >= 0; i--) {
            for (int j = 0; j < part.length; j++) {
                if (blob[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new IllegalStateException("metadata not found in its descriptor's encoding");
    }

    private static Optional<Case> changed(byte[] blob, String label, int at,
            java.util.function.UnaryOperator<Byte> change) {
        byte[] b = blob.clone();
        b[at] = change.apply(b[at]);
        return decodeWithFixedCrc(label, b);
    }

    private static Optional<Case> changedLong(byte[] blob, String label, int at, long delta) {
        byte[] b = blob.clone();
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(at, buf.getLong(at) + delta);
        return decodeWithFixedCrc(label, b);
    }

    private static Optional<Case> changedInt(byte[] blob, String label, int at, int delta) {
        byte[] b = blob.clone();
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(at, buf.getInt(at) + delta);
        return decodeWithFixedCrc(label, b);
    }

    private static Optional<Case> decodeWithFixedCrc(String label, byte[] b) {
        CRC32C crc = new CRC32C();
        crc.update(b, 0, b.length - 4);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length - 4, (int) crc.getValue());
        try {
            return Optional.of(auth(label, PeerDescriptor.decode(b)));
        } catch (MalformedPeerDescriptorException rejectedByDecode) {
            return Optional.empty(); // the change made a blob that decode rejects: no case, and fine too
        }
    }

    // ------------------------------------------------------------------ running them

    /**
     * Offers every case to {@code t}'s addPeer, then registers {@code genuine} and moves one block
     * as a control. {@code trace} hears "TRY i label" before each attempt.
     */
    static void run(DataTransport t, List<Case> cases, PeerDescriptor genuine, Consumer<String> trace,
            Consumer<Outcome> out) {
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            String peer = "attack-" + i;
            trace.accept("TRY " + i + " " + oneLine(c.label()));
            try {
                t.addPeer(peer, c.descriptor());
            } catch (TransportException e) {
                boolean registered = t.writeBlocks(peer, new int[] {0}, new int[] {0}) != DataTransport.NOT_SUBMITTED;
                Result result = registered ? Result.LEFT_REGISTERED
                        : c.expect() == Expect.REJECT_UNAUTHENTICATED && !(e instanceof UnauthenticatedPeerException)
                        ? Result.NOT_AUTHENTICATED : Result.REJECTED;
                out.accept(new Outcome(i, c.label(), result, e.toString()));
                t.removePeer(peer);
                continue;
            } catch (RuntimeException | Error e) {
                out.accept(new Outcome(i, c.label(), Result.UNTYPED, e.toString()));
                t.removePeer(peer);
                continue;
            }
            out.accept(new Outcome(i, c.label(), Result.ACCEPTED, "addPeer returned"));
            if (!c.mustReject()) {
                out.accept(limits(t, peer, c));
            }
            t.removePeer(peer);
        }
        out.accept(control(t, genuine));
    }

    /** An accepted descriptor claiming fewer blocks must limit remote indices to its count. */
    private static Outcome limits(DataTransport t, String peer, Case c) {
        int claimed = c.descriptor().numBlocks();
        try {
            long id = t.writeBlocks(peer, new int[] {0}, new int[] {claimed});
            return new Outcome(-2, c.label(), Result.NOT_LIMITED, "remote block " + claimed + " of a peer claiming "
                    + claimed + " blocks was accepted (id " + id + ")");
        } catch (IllegalArgumentException expected) {
            return new Outcome(-2, c.label(), Result.LIMITED, expected.toString());
        } catch (RuntimeException e) {
            return new Outcome(-2, c.label(), Result.NOT_LIMITED, "remote block " + claimed + " raised " + e);
        }
    }

    private static Outcome control(DataTransport t, PeerDescriptor genuine) {
        try {
            t.addPeer("genuine", genuine);
            long id = t.writeBlocks("genuine", new int[] {1}, new int[] {2});
            if (id == DataTransport.NOT_SUBMITTED) {
                return new Outcome(-1, "control", Result.CONTROL_FAILED, "the genuine peer was not registered");
            }
            long deadline = System.nanoTime() + 15_000_000_000L;
            while (System.nanoTime() - deadline < 0) {
                var r = t.poll("genuine");
                for (int i = 0; i < r.doneCount(); i++) {
                    if (r.doneId(i) == id) {
                        return new Outcome(-1, "control", Result.CONTROL_OK, "transfer " + id + " done");
                    }
                }
                for (int i = 0; i < r.failedCount(); i++) {
                    if (r.failedId(i) == id) {
                        return new Outcome(-1, "control", Result.CONTROL_FAILED, "transfer " + id + " failed");
                    }
                }
                Thread.onSpinWait();
            }
            return new Outcome(-1, "control", Result.CONTROL_FAILED, "transfer " + id + " not reported in 15 s");
        } catch (RuntimeException e) {
            return new Outcome(-1, "control", Result.CONTROL_FAILED, e.toString());
        }
    }

    // ------------------------------------------------------------------ M1: the decoder

    /**
     * What {@code decoder} gets wrong about {@code good}, the encoding of {@code expected}: every
     * strict prefix, every single-bit flip and appended bytes must be rejected with
     * {@link MalformedPeerDescriptorException}, random mutations may raise nothing else, and null
     * must raise {@link NullPointerException}. Returns the first problems found (empty: none).
     */
    static List<String> decoderProblems(Function<byte[], PeerDescriptor> decoder, byte[] good,
            PeerDescriptor expected, int fuzzIterations) {
        List<String> problems = new ArrayList<>();
        try {
            PeerDescriptor d = decoder.apply(good.clone());
            if (!expected.equals(d)) {
                problems.add("decode of the genuine blob gave " + d + ", not " + expected);
            }
        } catch (RuntimeException e) {
            problems.add("decode of the genuine blob threw " + e);
        }
        for (int cut = 0; cut < good.length && problems.size() < 10; cut++) {
            mustBeMalformed(decoder, Arrays.copyOf(good, cut), "the blob cut to " + cut + " of " + good.length
                    + " bytes", problems);
        }
        for (int bit = 0; bit < good.length * 8 && problems.size() < 10; bit++) {
            byte[] b = good.clone();
            b[bit / 8] ^= (byte) (1 << (bit % 8));
            mustBeMalformed(decoder, b, "the blob with bit " + bit % 8 + " of byte " + bit / 8 + " flipped", problems);
        }
        for (int extra = 1; extra <= 8 && problems.size() < 10; extra++) {
            mustBeMalformed(decoder, Arrays.copyOf(good, good.length + extra), "the blob with " + extra
                    + " zero bytes appended", problems);
        }
        Random random = new Random(7);
        for (int i = 0; i < fuzzIterations && problems.size() < 10; i++) {
            byte[] blob = mutate(good, random, i);
            try {
                var unused = decoder.apply(blob); // a mutation may still be valid: only what it throws matters
            } catch (MalformedPeerDescriptorException expectedRejection) {
                // the only exception allowed
            } catch (RuntimeException e) {
                problems.add("random mutation " + i + " raised " + e + " instead of MalformedPeerDescriptorException");
            }
        }
        try {
            problems.add("decode(null) returned " + decoder.apply(null));
        } catch (NullPointerException expectedNpe) {
            // right
        } catch (RuntimeException e) {
            problems.add("decode(null) raised " + e + " instead of NullPointerException");
        }
        return problems;
    }

    private static void mustBeMalformed(Function<byte[], PeerDescriptor> decoder, byte[] blob, String what,
            List<String> problems) {
        try {
            PeerDescriptor d = decoder.apply(blob);
            problems.add(what + " was accepted as " + d);
        } catch (MalformedPeerDescriptorException expected) {
            // right
        } catch (RuntimeException e) {
            problems.add(what + " raised " + e + " instead of MalformedPeerDescriptorException");
        }
    }

    private static byte[] mutate(byte[] good, Random random, int i) {
        switch (i % 5) {
            case 0 -> {
                return Arrays.copyOf(good, random.nextInt(good.length));
            }
            case 1 -> {
                byte[] b = good.clone();
                b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                return b;
            }
            case 2 -> {
                byte[] b = new byte[random.nextInt(good.length * 2 + 1)];
                random.nextBytes(b);
                return b;
            }
            case 3 -> {
                return Arrays.copyOf(good, good.length + 1 + random.nextInt(64));
            }
            default -> {
                byte[] b = good.clone();
                for (int k = 0; k < 4; k++) {
                    b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                }
                return b;
            }
        }
    }
}
