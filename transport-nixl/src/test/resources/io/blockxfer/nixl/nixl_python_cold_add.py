"""The cold first add of a NIXL peer through NIXL's Python API, in a fresh interpreter (NixlColdAdd).

Argument: a folder holding the target's raw NIXL metadata (nixl.md) and "base blocks block_len"
(geometry.txt). Creates an agent configured as blockxfer's defaults are (progress thread on, UCX,
telemetry captured as the Python original does, num_threads 0: the original passes 4, blockxfer leaves
UCX's default), registers a small buffer, then times the first add as the original adds a peer: add_remote_agent, one (addr, len,
dev) tuple per block, get_xfer_descs, prep_xfer_dlist. Prints "COLD <ms>", "CPU <ms>" (CPU time of
every thread of the process during that add), "THREAD <ms>" (of the calling thread) and "WARM [ms, ...]" for 5
later adds. Importing NIXL and creating the agent are not timed, as opening the transport is not on
the Java side.
"""
import sys
import time

import numpy as np
try:
    from nixl_cu12._api import nixl_agent, nixl_agent_config
except ImportError:
    from nixl_cu13._api import nixl_agent, nixl_agent_config


def add(agent, md, base, blocks, length):
    name = agent.add_remote_agent(md)
    descs = [(base + i * length, length, 0) for i in range(blocks)]
    xfer = agent.get_xfer_descs(descs, mem_type="DRAM")
    return name, agent.prep_xfer_dlist(name, xfer)


def remove(agent, name, handle):
    agent.release_dlist_handle(handle)
    agent.remove_remote_agent(name)


def main():
    folder = sys.argv[1]
    with open(folder + "/nixl.md", "rb") as f:
        md = f.read()
    with open(folder + "/geometry.txt") as f:
        base, blocks, length = (int(x) for x in f.read().split())
    agent = nixl_agent("py-cold-initiator", nixl_agent_config(enable_prog_thread=True, capture_telemetry=True,
                                                              num_threads=0))
    buf = np.zeros(4 * 4096, dtype=np.uint8)
    reg = agent.register_memory([(buf.ctypes.data, buf.nbytes, 0, "")], "DRAM")
    c0 = time.process_time()
    th0 = time.thread_time()
    t0 = time.perf_counter()
    name, handle = add(agent, md, base, blocks, length)
    cold = time.perf_counter() - t0
    cold_thread = time.thread_time() - th0
    cold_cpu = time.process_time() - c0
    remove(agent, name, handle)
    warm = []
    for _ in range(5):
        t0 = time.perf_counter()
        name, handle = add(agent, md, base, blocks, length)
        warm.append(round((time.perf_counter() - t0) * 1e3, 2))
        remove(agent, name, handle)
    agent.deregister_memory(reg)
    print("COLD %.2f" % (cold * 1e3))
    print("CPU %.2f" % (cold_cpu * 1e3))
    print("THREAD %.2f" % (cold_thread * 1e3))
    print("WARM %s" % warm)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
