package io.blockxfer.ucx;

import io.blockxfer.tck.InJvmHarness;
import io.blockxfer.tck.TargetPeer;
import io.blockxfer.tck.TwoProcessHarness;
import io.blockxfer.transport.DataTransport;
import io.blockxfer.transport.IncompatiblePeerException;
import io.blockxfer.transport.MalformedPeerDescriptorException;
import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.PeerRegistrationException;
import io.blockxfer.transport.PollResult;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * Adversarial UCX metadata, run by {@link UcxAdversarialMetadataTest} in a child JVM so a native
 * crash ends this process, not the test: for blob {@code i} of a seeded sequence, takes the genuine
 * descriptor of one of four real targets (SysV-allocated and posix-allocated regions in this JVM, a
 * SysV-allocated region in another process, caller memory in another process), garbles its UCX metadata
 * in one of several ways (1 to 3 changed bytes in the worker address, in the packed rkey or anywhere;
 * a consistent geometry lie; keys of one target spliced into another's address; segment ids, owner
 * addresses and lengths pointed elsewhere), recomputes the checksum, and offers it to
 * {@code addPeer}. What is accepted gets a WRITE to its last block and a READ of its first, and is
 * judged: a descriptor whose region is not inside the real target's region, or whose keys are not
 * the real target's, is an undetected lie.
 *
 * <p>Prints {@code START i} before blob {@code i} and {@code RESULT i outcome} after, so the
 * parent can tell where a crash happened and resume after it; {@code DONE} at the end.
 * Arguments: {@code seed first count}.
 *
 * <p><b>Thread safety:</b> a program.
 */
public final class MetadataFuzzRun {

    private static final int BLOCKS = 16;
    private static final long BLOCK = 4096;
    private static final int FIXED = 4 + 2 + 2 + 8 + 8;

    private MetadataFuzzRun() {
    }

    /** A real target: its descriptor, and the memory the descriptor truly stands for. */
    private record Target(String name, PeerDescriptor descriptor) {
    }

    /** Runs blobs {@code first .. first + count - 1} of sequence {@code seed}. */
    public static void main(String[] args) throws Exception {
        long seed = Long.parseLong(args[0]);
        int first = Integer.parseInt(args[1]);
        int count = Integer.parseInt(args[2]);
        TransportConfig config = TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK))
                .transferTimeout(Duration.ofSeconds(3)).build();
        TwoProcessHarness remote = TwoProcessHarness.of(InJvmHarness.of(UcxProvider.NAME))
                .withJvmArgs(List.of("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir")));
        try (DataTransport initiator = new UcxProvider().open(config);
                DataTransport sysv = new UcxProvider().open(config);
                DataTransport posix = new UcxProvider().open(config.toBuilder()
                        .option(UcxOptions.CONFIG_PREFIX + "ALLOC_PRIO", "md:posix").build());
                TargetPeer process = remote.openTarget(config);
                CallerProcess caller = new CallerProcess()) {
            byte[] ownMetadata = initiator.localDescriptor().metadata();
            for (int i = first; i < first + count; i++) {
                // targets in this JVM (UCX-allocated, SysV and posix), a UCX-allocated one in another
                // process, and caller memory in another process (writes the initiator cannot refuse
                // must not land here)
                List<Target> targets = List.of(new Target("sysv", sysv.localDescriptor()),
                        new Target("posix", posix.localDescriptor()), new Target("process", process.descriptor()),
                        new Target("caller", caller.descriptor()));
                Random r = new Random(mix(seed * 0x9E3779B97F4A7C15L + i));
                Target t = targets.get(r.nextInt(targets.size()));
                Target other = targets.get(r.nextInt(targets.size()));
                System.out.println("START " + i);
                System.out.flush();
                String outcome;
                try {
                    PeerDescriptor garbled = garble(r, t.descriptor, other.descriptor.metadata(), ownMetadata);
                    if (Boolean.getBoolean("blockxfer.ucx.fuzzVerbose")) {
                        System.out.println("TRUTH " + t.descriptor + " " + HexFormat.of().formatHex(t.descriptor.metadata()));
                        System.out.println("BLOB " + garbled + " " + HexFormat.of().formatHex(garbled.metadata()));
                    }
                    outcome = offer(initiator, "p" + i, garbled, t.descriptor);
                } catch (IllegalArgumentException e) {
                    outcome = "rejected-descriptor";
                }
                System.out.println("RESULT " + i + " " + t.name + " " + outcome);
                System.out.flush();
            }
            System.out.println("DONE");
        }
    }

    private static String offer(DataTransport initiator, String peer, PeerDescriptor d, PeerDescriptor truth) {
        try {
            initiator.addPeer(peer, d);
        } catch (MalformedPeerDescriptorException e) {
            return "rejected-malformed";
        } catch (IncompatiblePeerException e) {
            return "rejected-incompatible";
        } catch (PeerRegistrationException e) {
            return "rejected-registration";
        } catch (TransportException e) {
            return "rejected-" + e.getClass().getSimpleName();
        } catch (RuntimeException e) {
            return "untyped-" + e.getClass().getSimpleName() + ":" + e.getMessage();
        }
        try {
            boolean inside = d.baseAddress() >= truth.baseAddress() && (long) d.numBlocks() * d.blockLength()
                    <= truth.baseAddress() + (long) truth.numBlocks() * truth.blockLength() - d.baseAddress();
            initiator.writeBlocks(peer, new int[] {0}, new int[] {d.numBlocks() - 1});
            initiator.readBlocks(peer, new int[] {1}, new int[] {0});
            int done = 0;
            int failed = 0;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (done + failed < 2 && System.nanoTime() < deadline) {
                PollResult p = initiator.poll(peer);
                done += p.doneCount();
                failed += p.failedCount();
            }
            String how = done + failed < 2 ? "accepted-hung" : failed > 0 ? "accepted-failed" : "accepted-done";
            long[] key = memoryKey(d.metadata());
            long[] trueKey = memoryKey(truth.metadata());
            if (key != null && !namesTransport(section(d.metadata(), true), key[3] == 12 ? SYSV_CSUM : POSIX_CSUM)) {
                key = null; // no sysv (posix) transport in the address: UCX does not unpack that key
            }
            if (key == null) {
                // no shared-memory key: UCX emulates the writes with messages that the target's UCX
                // copies wherever they say; only the geometry could tell, and it is a claim
                return inside ? how : how + "-LIE(unverifiable: no memory key, region outside the target's)";
            }
            if (trueKey == null || key[0] != trueKey[0] || key[3] != trueKey[3]) {
                return how + "-LIE(the memory key names another segment)";
            }
            // the offsets UCX writes at, relative to the real segment
            long offset = d.baseAddress() - key[1];
            long size = (long) d.numBlocks() * d.blockLength();
            long segment = trueKey[3] == 12 ? (long) truth.numBlocks() * truth.blockLength() : trueKey[2];
            if (offset < 0 || size > segment - offset || (trueKey[3] != 12 && key[2] > trueKey[2])) {
                return how + "-LIE(writes outside the segment: offset " + offset + ", " + size + " of " + segment
                        + " bytes)";
            }
            return how;
        } finally {
            initiator.removePeer(peer);
        }
    }

    /**
     * The shared-memory key of a blob's packed rkey (its last non-empty key): segment id, owner
     * address, length (posix; 0 for sysv) and key size; null when it has none. An oracle written
     * from the layouts, independent of the backend's parser.
     */
    private static long[] memoryKey(byte[] m) {
        byte[] k = section(m, false);
        if (k.length < 9) {
            return null;
        }
        ByteBuffer bb = ByteBuffer.wrap(k).order(ByteOrder.LITTLE_ENDIAN);
        long mdMap = bb.getLong(0);
        int at = 9;
        long[] found = null;
        for (int md = 0; md < 64 && at < k.length; md++) {
            if ((mdMap & (1L << md)) != 0) {
                int s = k[at] & 0xff;
                if (s == 12 && at + 13 <= k.length) {
                    found = new long[] {bb.getInt(at + 1) & 0xffffffffL, bb.getLong(at + 5), 0, 12};
                } else if (s >= 24 && at + 1 + s <= k.length) {
                    found = new long[] {bb.getLong(at + 1), bb.getLong(at + 9), bb.getLong(at + 17), s};
                }
                at += 1 + s;
            }
        }
        return found;
    }

    /** {@code ucs_crc16_string} of "sysv" and "posix", as a worker address carries them. */
    private static final int SYSV_CSUM = 0x538d;
    private static final int POSIX_CSUM = 0xd3a7;

    /** Whether a worker address contains the little-endian name checksum {@code csum} anywhere. */
    private static boolean namesTransport(byte[] address, int csum) {
        for (int i = 0; i + 1 < address.length; i++) {
            if ((address[i] & 0xff) == (csum & 0xff) && (address[i + 1] & 0xff) == csum >>> 8) {
                return true;
            }
        }
        return false;
    }

    /** MurmurHash3's 64-bit finaliser: consecutive blob numbers give unrelated random sequences. */
    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    // ------------------------------------------------------------------ garbling

    private static PeerDescriptor garble(Random r, PeerDescriptor d, byte[] otherMetadata, byte[] ownMetadata) {
        byte[] m = d.metadata();
        long base = d.baseAddress();
        int blocks = d.numBlocks();
        int addrLen = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).getInt(FIXED);
        int addrAt = FIXED + 4;
        int keyAt = addrAt + addrLen + 4;
        int keyLen = m.length - 4 - keyAt;
        switch (r.nextInt(10)) {
            case 0 -> flip(r, m, addrAt, addrLen);
            case 1, 2 -> flip(r, m, keyAt, keyLen); // "1-3 changed bytes of the packed rkey"
            case 3 -> flip(r, m, 0, m.length - 4);
            case 4 -> {
                // a consistent lie: registered length and block count scaled alike
                int factor = 2 + r.nextInt(3);
                blocks = blocks * factor;
                ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putLong(16, BLOCKS * BLOCK * factor);
            }
            case 5 -> {
                // shifted region, registered address shifted alike
                long shift = (r.nextInt(64) - 32) * BLOCK;
                base += shift;
                ByteBuffer bb = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
                bb.putLong(8, bb.getLong(8) + shift);
            }
            case 6 -> m = splice(m, r.nextBoolean() ? otherMetadata : ownMetadata, r.nextBoolean());
            case 7 -> pointKeyElsewhere(r, m, keyAt, keyLen, otherMetadata, ownMetadata);
            case 8 -> {
                // a key field set to a random small value or a random value
                int at = keyAt + r.nextInt(Math.max(1, keyLen));
                m[at] = (byte) (r.nextBoolean() ? r.nextInt(4) : r.nextInt(256));
            }
            default -> {
                // several flips across both UCX blobs and a geometry change
                flip(r, m, addrAt, m.length - 4 - addrAt);
                if (r.nextBoolean()) {
                    blocks = Math.max(1, blocks + r.nextInt(5) - 2);
                }
            }
        }
        rechecksum(m);
        return new PeerDescriptor(d.backend(), d.fingerprint(), base, blocks, d.blockLength(), m);
    }

    private static void flip(Random r, byte[] m, int from, int length) {
        if (length <= 0) {
            return;
        }
        int n = 1 + r.nextInt(3);
        for (int k = 0; k < n; k++) {
            int at = from + r.nextInt(length);
            m[at] ^= (byte) (1 + r.nextInt(255));
        }
    }

    /** The worker address of one blob with the rkey of the other (or the other way round). */
    private static byte[] splice(byte[] a, byte[] b, boolean addressFromA) {
        byte[] address = section(addressFromA ? a : b, true);
        byte[] key = section(addressFromA ? b : a, false);
        ByteBuffer out = ByteBuffer.allocate(FIXED + 4 + address.length + 4 + key.length + 4)
                .order(ByteOrder.LITTLE_ENDIAN);
        out.put(a, 0, FIXED).putInt(address.length).put(address).putInt(key.length).put(key).putInt(0);
        return out.array();
    }

    private static byte[] section(byte[] m, boolean address) {
        ByteBuffer bb = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        int addrLen = bb.getInt(FIXED);
        if (address) {
            return Arrays.copyOfRange(m, FIXED + 4, FIXED + 4 + addrLen);
        }
        int keyAt = FIXED + 4 + addrLen + 4;
        return Arrays.copyOfRange(m, keyAt, m.length - 4);
    }

    /** Rewrites the shared-memory key's segment id or owner address to another segment's or a near value. */
    private static void pointKeyElsewhere(Random r, byte[] m, int keyAt, int keyLen, byte[] other, byte[] own) {
        // the shared-memory key is the last non-empty one; find its size byte by walking the framing
        long mdMap = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).getLong(keyAt);
        int at = keyAt + 9;
        int keyStart = -1;
        int size = 0;
        for (int md = 0; md < 64 && at < keyAt + keyLen; md++) {
            if ((mdMap & (1L << md)) != 0) {
                int s = m[at] & 0xff;
                if (s > 0) {
                    keyStart = at + 1;
                    size = s;
                }
                at += 1 + s;
            }
        }
        if (keyStart < 0) {
            flip(r, m, keyAt, keyLen);
            return;
        }
        ByteBuffer bb = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        byte[] donor = r.nextBoolean() ? other : own;
        byte[] donorKey = section(donor, false);
        switch (r.nextInt(4)) {
            case 0 -> bb.putInt(keyStart, bb.getInt(keyStart) + r.nextInt(7) - 3); // a neighbouring id
            case 1 -> {
                int off = size == 12 ? 4 : 8; // the owner address
                bb.putLong(keyStart + off, bb.getLong(keyStart + off) + (r.nextInt(32) - 16) * BLOCK);
            }
            case 2 -> {
                if (size >= 24) {
                    bb.putLong(keyStart + 16, bb.getLong(keyStart + 16) * (2 + r.nextInt(3))); // posix length
                } else {
                    bb.putInt(keyStart, r.nextInt(1 << 20));
                }
            }
            default -> {
                // another target's (or our own) key bytes of the same size, if it has one
                for (int i = 9; i + 1 < donorKey.length; i++) {
                    if ((donorKey[i] & 0xff) == size && i + 1 + size <= donorKey.length) {
                        System.arraycopy(donorKey, i + 1, m, keyStart, size);
                        break;
                    }
                }
            }
        }
    }

    private static void rechecksum(byte[] m) {
        CRC32C crc = new CRC32C();
        crc.update(m, 0, m.length - 4);
        ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(m.length - 4, (int) crc.getValue());
    }

    /** A {@link CallerMemoryTarget} process, restarted when a write it could not refuse killed it. */
    private static final class CallerProcess implements AutoCloseable {
        private Process process;
        private PeerDescriptor descriptor;

        PeerDescriptor descriptor() throws IOException {
            if (process == null || !process.isAlive()) {
                if (process != null) {
                    System.out.println("CALLER-TARGET-DIED exit " + process.exitValue());
                }
                // writes it cannot refuse may crash it: its crash report goes to the temporary directory
                List<String> cmd = new java.util.ArrayList<>(UcxTestSupport.javaCommand(
                        CallerMemoryTarget.class.getName(), List.of(), List.of(Integer.toString(BLOCKS),
                                Long.toString(BLOCK))));
                cmd.add(1, "-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/hs_err_pid%p.log");
                process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
                BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null && !line.startsWith("DESC ")) {
                    // skip
                }
                if (line == null) {
                    throw new IOException("caller-memory target ended before printing its descriptor");
                }
                descriptor = PeerDescriptor.decode(Base64.getDecoder().decode(line.substring(5).trim()));
            }
            return descriptor;
        }

        @Override
        public void close() {
            if (process != null) {
                process.destroy();
            }
        }
    }
}
