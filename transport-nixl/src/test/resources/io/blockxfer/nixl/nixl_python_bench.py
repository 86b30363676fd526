"""NIXL's own Python API, measured with the seed NixlTransport's call sequence (make_prepped_xfer,
transfer, check_xfer_state until DONE, release_xfer_handle), for the blockxfer-nixl benchmark.
Two agents in this process, as the Java side runs them. Prints "RESULT <key> <value>" lines.

usage: python3 nixl_python_bench.py <seconds per case>
"""
import statistics
import sys
import time

import numpy as np
from nixl_cu12._api import nixl_agent, nixl_agent_config

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0


def descs(base, n, length):
    return [(base + i * length, length, 0) for i in range(n)]


def best(run, rounds=3):
    """The best rate of a few rounds: this machine is shared, and noise only ever slows a round down."""
    rates = []
    for _ in range(rounds):
        n, dt = run()
        rates.append(n / dt)
    return max(rates)


def result(key, value):
    print("RESULT %s %.6g" % (key, value), flush=True)


def main():
    a = nixl_agent("py-bench-a", nixl_agent_config(enable_prog_thread=True))
    b = nixl_agent("py-bench-b", nixl_agent_config(enable_prog_thread=True))
    size = 64 * 256 * 1024
    buf_a = np.ones(size, dtype=np.uint8)
    buf_b = np.zeros(size, dtype=np.uint8)
    reg_a = a.register_memory([(buf_a.ctypes.data, size, 0, "")], "DRAM")
    reg_b = b.register_memory([(buf_b.ctypes.data, size, 0, "")], "DRAM")
    name = a.add_remote_agent(b.get_agent_metadata())

    def transfer_loop(local, remote, lidx, ridx, seconds):
        n = 0
        end = time.perf_counter() + seconds
        t0 = time.perf_counter()
        while True:
            h = a.make_prepped_xfer("WRITE", local, lidx, remote, ridx)
            state = a.transfer(h)
            while state != "DONE":
                state = a.check_xfer_state(h)
            a.release_xfer_handle(h)
            n += 1
            if (n & 15) == 0 and time.perf_counter() > end:
                break
        return n, time.perf_counter() - t0

    # (a) 1 x 4 KiB
    l4 = a.prep_xfer_dlist("NIXL_INIT_AGENT", descs(buf_a.ctypes.data, 64, 4096), "DRAM")
    r4 = a.prep_xfer_dlist(name, descs(buf_b.ctypes.data, 64, 4096), "DRAM")
    transfer_loop(l4, r4, [0], [0], min(1.0, SECONDS / 2))
    result("small_xfers_per_s", best(lambda: transfer_loop(l4, r4, [0], [0], SECONDS)))

    # (b) 64 x 256 KiB
    block = 256 * 1024
    lb = a.prep_xfer_dlist("NIXL_INIT_AGENT", descs(buf_a.ctypes.data, 64, block), "DRAM")
    rb = a.prep_xfer_dlist(name, descs(buf_b.ctypes.data, 64, block), "DRAM")
    idx = list(range(64))
    transfer_loop(lb, rb, idx, idx, min(1.0, SECONDS / 2))
    result("batch_gb_per_s", best(lambda: transfer_loop(lb, rb, idx, idx, SECONDS)) * 64 * block / 1e9)
    for h in (l4, r4, lb, rb):
        a.release_dlist_handle(h)
    a.remove_remote_agent(name)

    # (c) add a peer of 20,000 blocks: the seed's _build_peer_handles
    c = nixl_agent("py-bench-c", nixl_agent_config(enable_prog_thread=True))
    blocks, length = 20000, 4096
    buf_c = np.zeros(blocks * length, dtype=np.uint8)
    reg_c = c.register_memory([(buf_c.ctypes.data, buf_c.nbytes, 0, "")], "DRAM")
    md = c.get_agent_metadata()
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        peer = a.add_remote_agent(md)
        block_descs = [(buf_c.ctypes.data + i * length, length, 0) for i in range(blocks)]
        xfer = a.get_xfer_descs(block_descs, mem_type="DRAM")
        handle = a.prep_xfer_dlist(peer, xfer)
        times.append(time.perf_counter() - t0)
        a.release_dlist_handle(handle)
        a.remove_remote_agent(peer)
    result("add_peer_20000_ms", statistics.median(times[1:]) * 1e3)
    c.deregister_memory(reg_c)
    a.deregister_memory(reg_a)
    b.deregister_memory(reg_b)


if __name__ == "__main__":
    main()
