package io.blockxfer.ucx.internal;

import java.util.HexFormat;

/**
 * Worker addresses and remote keys as UCX 1.18.1 (the pinned wheel) packed them on a Linux host,
 * with {@code UCX_NET_DEVICES=lo}, the backend's peer error mode settings and a 16 x 4 KiB region.
 * The processes are gone: these exercise the parsers, not the kernel checks.
 *
 * <p><b>Thread safety:</b> constants.
 */
final class UcxFormatFixtures {

    /** Address version 1 (UCX's default): self, tcp on lo, sysv, posix, cma. */
    static final byte[] ADDRESS_V1 = hex("2031ab88f6ba4ac2432000637577cc2b320040975000000000004f0300883a676f018ad1d2fd"
            + "211201023f986a006ccec5c4f9ffffef00000000cf1917b75138539e3e4bd7e037370113230082a28f42083f986a006ccec544"
            + "8d5377cc2b320000705077ccab33004f230088300053000000000043083f986a006ccec544a7d377cc2b320000705077ccab33"
            + "004f230088c9360080040000c024083f986a006ccec544478bbd37063600242e5077ccab330092210084c93600008280");
    /** The key of a region UCX allocated in SysV shared memory: a 12-byte sysv key in memory domain 2. */
    static final byte[] RKEY_SYSV = hex("17000000000000000000000c3200530000e043ca147f000000");

    /** Address version 2 ({@code UCX_ADDRESS_VERSION=v2}). */
    static final byte[] ADDRESS_V2 = hex("2102ad38eee06e6ace3b000063754426000080001b008808a2cb9171dd9cac011201023f98"
            + "6a006ccec5c4f9ffffef00000000cf190c015a0180008b0082b5b502083f986a006ccec5448d5344e5430081009b00883f0053"
            + "000000000003083f986a006ccec544a7d344e5430081009b0088ea360080040000c004883f986a006ccec544478bfb55430000"
            + "00990084ea360000");
    static final byte[] RKEY_SYSV_V2 = hex("17000000000000000000000c0180530000f0cc2fae7f000000");

    /** With {@code UCX_ALLOC_PRIO=md:posix}: the region in a posix segment (proc link, memory domain 3). */
    static final byte[] ADDRESS_POSIX_ALLOC = hex("205f809c9d862cbfcf2000637577cc2b320040975000000000004f0300888a26eb"
            + "b5a3f47bab211201023f986a006ccec5c4f9ffffef00000000cf1917b75138539e3e4bd7e037370113230082d51b42083f986a"
            + "006ccec5448d5377cc2b320000705077ccab33004f230088068053000000000043083f986a006ccec544a7d377cc2b32000070"
            + "5077ccab33004f23008807370080040000c024083f986a006ccec544478bbd37063600242e5077ccab330092210084073700"
            + "008280");
    static final byte[] RKEY_POSIX = hex("1b000000000000000000001807370040050000c0001047463a7f000000000100000000"
            + "0000");

    /** The key of the caller's memory registered with UCX: no shared-memory key at all. */
    static final byte[] RKEY_CALLER_MEMORY = hex("130000000000000000000000");

    private UcxFormatFixtures() {
    }

    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }
}
