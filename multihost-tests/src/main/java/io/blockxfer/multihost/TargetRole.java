package io.blockxfer.multihost;

import io.blockxfer.tck.BlockPattern;
import io.blockxfer.transport.BlockRegion;
import io.blockxfer.transport.DataTransport;

/**
 * The target side of the peer program: a passive transport whose region initiators write and
 * read. Commands: {@code FILLALL family} (every block {@code b} gets
 * {@code BlockPattern.seed(family, b)}), {@code VERIFY b:seed,...} (answers {@code mismatches=n
 * first=b}; {@code VERIFY -} checks nothing), {@code PING}, {@code CLOSE}.
 *
 * <p><b>Thread safety:</b> runs on the program's main thread only.
 */
final class TargetRole implements PeerMain.Role {

    private final DataTransport transport;

    TargetRole(DataTransport transport) {
        this.transport = transport;
    }

    @Override
    public String handle(String[] cmd) {
        BlockRegion region = transport.region();
        return switch (cmd[0]) {
            case "FILLALL" -> {
                long family = Long.parseLong(cmd[1]);
                for (int b = 0; b < region.numBlocks(); b++) {
                    BlockPattern.fill(region.block(b), BlockPattern.seed(family, b));
                }
                yield "blocks=" + region.numBlocks();
            }
            case "VERIFY" -> verify(region, cmd.length > 1 ? cmd[1] : "-");
            case "PING" -> "pong";
            default -> throw new IllegalArgumentException("unknown command " + cmd[0]);
        };
    }

    private static String verify(BlockRegion region, String spec) {
        int checked = 0;
        int mismatches = 0;
        int first = -1;
        if (!spec.equals("-") && !spec.isEmpty()) {
            for (String pair : spec.split(",", -1)) {
                int colon = pair.indexOf(':');
                int block = Integer.parseInt(pair.substring(0, colon));
                long seed = Long.parseLong(pair.substring(colon + 1));
                checked++;
                if (BlockPattern.firstMismatch(region.block(block), seed) >= 0) {
                    mismatches++;
                    if (first < 0) {
                        first = block;
                    }
                }
            }
        }
        return "checked=" + checked + " mismatches=" + mismatches + " first=" + first;
    }

    @Override
    public void close() {
        transport.close();
    }
}
