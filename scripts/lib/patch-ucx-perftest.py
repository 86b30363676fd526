#!/usr/bin/env python3
"""Copies the libucx wheel's ucx_perftest to DST, runnable.

The wheel's ucx_perftest crashes in ld.so as shipped: its .dynamic section sits in a read-only
LOAD segment, and ld.so writes DT_DEBUG there. The copy gets that segment's write flag; the
installed wheel is never modified.

    patch-ucx-perftest.py SRC DST
"""
import os
import shutil
import struct
import sys


def main(src, dst):
    shutil.copyfile(src, dst)
    b = bytearray(open(dst, 'rb').read())
    phoff, = struct.unpack_from('<Q', b, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', b, 0x36)
    ph = [struct.unpack_from('<IIQQQQQQ', b, phoff + i * phentsize) for i in range(phnum)]
    dyn = next(x for x in ph if x[0] == 2)  # PT_DYNAMIC
    for i, (kind, flags, _off, vaddr, _pa, _fsz, _msz, _al) in enumerate(ph):
        # the PT_LOAD without PF_W whose page holds .dynamic
        if kind == 1 and not flags & 2 and vaddr & ~0xfff <= dyn[3] + dyn[5] and dyn[3] & ~0xfff == vaddr & ~0xfff:
            struct.pack_into('<I', b, phoff + i * phentsize + 4, flags | 2)
    open(dst, 'wb').write(b)
    os.chmod(dst, 0o755)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: patch-ucx-perftest.py SRC DST')
    main(sys.argv[1], sys.argv[2])
