package io.blockxfer.tck;

import io.blockxfer.transport.Notification;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.IntFunction;

/**
 * What the kit's targets do with a notification at the moment it is delivered, so that "after the
 * bytes" is checked where it matters, in the receiver's own hands, in this JVM or in a target
 * process: a payload {@code tck:check:B:SEED,...} makes the receiver compare each block {@code B}
 * with the {@link BlockPattern} of {@code SEED} before anything else (the first block that
 * differs is recorded), and {@code tck:fill:B:SEED,...} makes it overwrite each block at once (a
 * reader's copy must not change after its READ's notification). Any other payload is only recorded.
 *
 * <p><b>Thread safety:</b> stateless.
 */
final class NotificationProbe {

    /** The check result of a notification that asked for no check. */
    static final long NO_CHECK = -2;
    /** The check result of a notification whose blocks all matched. */
    static final long MATCHED = -1;

    private static final String CHECK = "tck:check:";
    private static final String FILL = "tck:fill:";

    private NotificationProbe() {
    }

    /** A payload asking the receiver to check {@code blocks[i]} against {@code seeds[i]} on delivery. */
    static byte[] check(String tag, int[] blocks, long[] seeds) {
        return encode(CHECK, tag, blocks, seeds);
    }

    /** A payload asking the receiver to overwrite {@code blocks[i]} with {@code seeds[i]} on delivery. */
    static byte[] fill(String tag, int[] blocks, long[] seeds) {
        return encode(FILL, tag, blocks, seeds);
    }

    private static byte[] encode(String verb, String tag, int[] blocks, long[] seeds) {
        StringBuilder b = new StringBuilder(verb).append(tag);
        for (int i = 0; i < blocks.length; i++) {
            b.append(i == 0 ? ":" : ",").append(blocks[i]).append('=').append(seeds[i]);
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Acts on a delivered notification: checks or fills the blocks its payload names.
     *
     * @param block the receiver's block {@code b}, as its owner sees it
     * @return the first block that differed, {@link #MATCHED}, or {@link #NO_CHECK}
     */
    static long onDelivery(Notification n, IntFunction<MemorySegment> block) {
        String p = new String(n.payload(), StandardCharsets.ISO_8859_1);
        boolean check = p.startsWith(CHECK);
        if (!check && !p.startsWith(FILL)) {
            return NO_CHECK;
        }
        int colon = p.indexOf(':', (check ? CHECK : FILL).length());
        if (colon < 0) {
            return NO_CHECK;
        }
        for (String pair : p.substring(colon + 1).split(",", -1)) {
            int eq = pair.indexOf('=');
            int b = Integer.parseInt(pair.substring(0, eq));
            long seed = Long.parseLong(pair.substring(eq + 1));
            if (check) {
                if (BlockPattern.firstMismatch(block.apply(b), seed) >= 0) {
                    return b;
                }
            } else {
                BlockPattern.fill(block.apply(b), seed);
            }
        }
        return check ? MATCHED : NO_CHECK;
    }

    /** One received notification as a line token, for a target process's answer. */
    static String encode(ReceivedNotification r) {
        Notification n = r.notification();
        byte[] sender = n.sender().getBytes(StandardCharsets.UTF_8);
        byte[] agent = n.senderAgent().getBytes(StandardCharsets.UTF_8);
        byte[] kind = n.kind().name().getBytes(StandardCharsets.US_ASCII);
        byte[] payload = n.payload();
        ByteBuffer buf = ByteBuffer.allocate(4 * 4 + 8 * 3 + 2 + sender.length + agent.length + kind.length
                + payload.length);
        buf.putInt(sender.length).put(sender).putInt(agent.length).put(agent).putInt(kind.length).put(kind)
                .putLong(n.transferId()).putInt(payload.length).put(payload).put((byte) (n.authenticated() ? 1 : 0))
                .putLong(n.droppedBefore()).putLong(r.mismatchedBlock());
        return Base64.getEncoder().encodeToString(buf.array());
    }

    /** The inverse of {@link #encode(ReceivedNotification)}. */
    static ReceivedNotification decode(String token) {
        ByteBuffer buf = ByteBuffer.wrap(Base64.getDecoder().decode(token));
        String sender = string(buf);
        String agent = string(buf);
        Notification.Kind kind = Notification.Kind.valueOf(string(buf));
        long transferId = buf.getLong();
        byte[] payload = new byte[buf.getInt()];
        buf.get(payload);
        boolean authenticated = buf.get() == 1;
        long dropped = buf.getLong();
        long mismatch = buf.getLong();
        return new ReceivedNotification(new Notification(sender, agent, kind, transferId, payload, authenticated, dropped),
                mismatch);
    }

    private static String string(ByteBuffer buf) {
        byte[] b = new byte[buf.getInt()];
        buf.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Decodes the tokens of a {@code NOTES} answer. */
    static List<ReceivedNotification> decodeAll(String[] tokens, int from) {
        List<ReceivedNotification> out = new ArrayList<>();
        for (int i = from; i < tokens.length; i++) {
            if (!tokens[i].isEmpty()) {
                out.add(decode(tokens[i]));
            }
        }
        return out;
    }
}
