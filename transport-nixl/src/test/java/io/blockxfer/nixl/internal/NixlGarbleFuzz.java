package io.blockxfer.nixl.internal;

import io.blockxfer.transport.PeerDescriptor;
import io.blockxfer.transport.RegionSpec;
import io.blockxfer.transport.TransferOp;
import io.blockxfer.transport.TransportConfig;
import io.blockxfer.transport.TransportException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * The garbled-metadata fuzzer, run in a child JVM by {@link NixlGarbleFuzzTest} so that a native
 * crash ends this process, not the test: opens an initiator and a target engine, then for blob
 * {@code i} in {@code [from, to)} garbles the target's NIXL metadata blob with seed {@code i}
 * (bytes of the UCX worker address, of a remote key, anywhere; lengths and counts), frames it
 * again with a recomputed checksum, and offers it to the initiator's {@code connect}. A blob that
 * is accepted gets one WRITE (bounded wait, then abort) and a disconnect. Prints
 * {@code AT i} before each blob (so the parent knows which one a crash hit) and at the end
 * {@code SUMMARY rejected accepted transfersDone transfersFailed}.
 *
 * <p><b>Thread safety:</b> a program; one thread.
 */
public final class NixlGarbleFuzz {

    private static final int BLOCKS = 8;
    private static final long BLOCK = 4096;

    private NixlGarbleFuzz() {
    }

    /**
     * Arguments: {@code from to}.
     *
     * @param args the blob index range
     */
    public static void main(String[] args) {
        int from = Integer.parseInt(args[0]);
        int to = Integer.parseInt(args[1]);
        NixlEngine initiator = new NixlEngine("nixl", config("fuzz-initiator"));
        // a fixed-width name, renamed per blob, so that a blob NIXL half-loaded cannot shadow the next
        NixlEngine target = new NixlEngine("nixl", config("fuzz-target-0000000000"));
        PeerDescriptor good = PeerDescriptor.of("nixl", "", target.region(), target.agentMetadata());
        NixlMetadata md = NixlMetadata.parse(good.metadata());
        byte[] raw = md.nixlBlob();
        Layout layout = Layout.of(raw);
        long rejected = 0;
        long accepted = 0;
        long done = 0;
        long failed = 0;
        for (int i = from; i < to; i++) {
            System.out.println("AT " + i);
            System.out.flush();
            Random random = new Random(i * 0x9E3779B97F4A7C15L);
            String name = String.format("fuzz-target-%010d", i);
            byte[] renamed = rename(raw, md.agentName(), name);
            byte[] garbled = garble(renamed, layout, random);
            PeerDescriptor d = new PeerDescriptor("nixl", "", good.baseAddress(), good.numBlocks(), good.blockLength(),
                    frame(name, md, target.region().baseAddress(), target.region().byteSize(), garbled));
            Object peer;
            try {
                peer = initiator.connect("fuzz", d);
            } catch (TransportException | IllegalArgumentException e) {
                rejected++;
                continue;
            }
            accepted++;
            switch (tryOneTransfer(initiator, peer)) {
                case 1 -> done++;
                default -> failed++;
            }
            initiator.disconnect(peer);
        }
        System.out.println("SUMMARY " + rejected + " " + accepted + " " + done + " " + failed);
        System.out.flush();
        initiator.close(false);
        target.close(false);
    }

    private static TransportConfig config(String name) {
        return TransportConfig.builder(RegionSpec.allocate(BLOCKS, BLOCK)).agentName(name)
                .closeTimeout(Duration.ofSeconds(2)).build();
    }

    /** 1 done, 2 failed or never finished (then aborted). */
    private static int tryOneTransfer(NixlEngine initiator, Object peer) {
        Object x;
        try {
            x = initiator.submit(0, peer, TransferOp.WRITE, new int[] {1}, new int[] {2});
        } catch (RuntimeException e) {
            return 2;
        }
        long deadline = System.nanoTime() + 500_000_000L;
        int s;
        while ((s = initiator.status(x)) == NixlEngine.PENDING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        if (s == NixlEngine.PENDING) {
            initiator.abort(peer);
            s = initiator.status(x);
        }
        if (s != NixlEngine.PENDING) {
            initiator.release(x);
        }
        return s == NixlEngine.DONE ? 1 : 2;
    }

    /** Where the UCX connection blob and the remote keys lie in NIXL's blob. */
    record Layout(int connStart, int connLength, int rkeyStart, int rkeyLength) {
        static Layout of(byte[] raw) {
            String text = new String(raw, StandardCharsets.ISO_8859_1);
            int c = text.indexOf("|c") + 2; // "c" tag after the backend name, then a u64 length
            int connLength = (int) ByteBuffer.wrap(raw, c, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
            // the last descriptor: an untagged field ('|', u64 length, 24 bytes of address, length and
            // device, then the region's remote key, then '|' at the very end of the blob)
            int d = text.lastIndexOf('|', raw.length - 2 - 24 - 8);
            while (d > 0 && ByteBuffer.wrap(raw, d + 1, 8).order(ByteOrder.LITTLE_ENDIAN).getLong()
                    != raw.length - 1 - (d + 9)) {
                d = text.lastIndexOf('|', d - 1);
            }
            int descLength = raw.length - 1 - (d + 9);
            return new Layout(c + 8, connLength, d + 9 + 24, descLength - 24);
        }
    }

    /** One of several garblings, chosen by {@code random}. */
    static byte[] garble(byte[] raw, Layout l, Random random) {
        byte[] b = raw.clone();
        int kind = random.nextInt(10);
        int flips = 1 + random.nextInt(3);
        switch (kind) {
            case 0, 1, 2, 3 -> { // bytes of the UCX worker address
                for (int k = 0; k < flips; k++) {
                    b[l.connStart + random.nextInt(l.connLength)] ^= (byte) (1 + random.nextInt(255));
                }
            }
            case 4 -> { // the worker address header and the first device: versions, flags, lengths
                for (int k = 0; k < flips; k++) {
                    b[l.connStart + random.nextInt(Math.min(16, l.connLength))] = (byte) random.nextInt(256);
                }
            }
            case 5, 6 -> { // bytes of a remote key
                for (int k = 0; k < flips; k++) {
                    b[l.rkeyStart + random.nextInt(l.rkeyLength)] ^= (byte) (1 + random.nextInt(255));
                }
            }
            case 7 -> { // anywhere in NIXL's blob
                for (int k = 0; k < flips; k++) {
                    b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case 8 -> { // a field length of NIXL's serialisation: shifted by a little or a lot
                String text = new String(b, StandardCharsets.ISO_8859_1);
                int[] tags = {text.indexOf("|c") + 2, l.rkeyStart - 24 - 8, text.indexOf("|n") + 2};
                int at = tags[random.nextInt(tags.length)];
                ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                long delta = random.nextBoolean() ? random.nextInt(9) - 4 : random.nextLong();
                buf.putLong(at, buf.getLong(at) + delta);
            }
            default -> { // the worker address truncated or extended, its blob length kept consistent
                int cut = random.nextInt(l.connLength);
                byte[] shorter = new byte[b.length - cut];
                System.arraycopy(b, 0, shorter, 0, l.connStart + l.connLength - cut);
                System.arraycopy(b, l.connStart + l.connLength, shorter, l.connStart + l.connLength - cut,
                        b.length - l.connStart - l.connLength);
                ByteBuffer.wrap(shorter).order(ByteOrder.LITTLE_ENDIAN).putLong(l.connStart - 8, l.connLength - cut);
                b = shorter;
            }
        }
        return b;
    }

    /** {@code raw} with the agent name (its first field) replaced by one of the same length. */
    static byte[] rename(byte[] raw, String from, String to) {
        byte[] b = raw.clone();
        byte[] old = from.getBytes(StandardCharsets.US_ASCII);
        byte[] now = to.getBytes(StandardCharsets.US_ASCII);
        int at = "nixlSerDes|Agent".length() + 8;
        if (old.length != now.length || !java.util.Arrays.equals(b, at, at + old.length, old, 0, old.length)) {
            throw new IllegalStateException("agent name '" + from + "' not where expected");
        }
        System.arraycopy(now, 0, b, at, now.length);
        return b;
    }

    /** Frames {@code nixl} like {@link NixlMetadata#frame}, with a recomputed checksum, without validating it. */
    static byte[] frame(String agentName, NixlMetadata md, long regionAddress, long regionLength, byte[] nixl) {
        byte[] name = agentName.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer buf = ByteBuffer.allocate(4 + 2 + 2 + 1 + name.length + 8 + 4 + 8 + 8 + 4 + nixl.length + 4)
                .order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(0x584e5842).putShort((short) NixlMetadata.VERSION).putShort((short) 0).put((byte) name.length)
                .put(name);
        buf.putLong(md.nonce()).putInt(md.pid()).putLong(regionAddress).putLong(regionLength);
        buf.putInt(nixl.length).put(nixl);
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 0, buf.position());
        buf.putInt((int) crc.getValue());
        return buf.array();
    }
}
