"""NIXL's Python API for blockxfer's fair baselines (scripts/bench-nixl).

Sets up and calls NIXL the way vLLM's Python NixlTransport does, so the Java backend can be
compared with what it replaces:
  agent:     nixl_agent(name, nixl_agent_config(num_threads=4, capture_telemetry=True)), i.e. the
             default progress thread, UCX with 4 threads, telemetry on
  region:    register_memory of the whole region, get_xfer_descs of every block, prep_xfer_dlist
             with "NIXL_INIT_AGENT"
  peer:      add_remote_agent(metadata), get_xfer_descs of every remote block, prep_xfer_dlist(name)
  transfer:  make_prepped_xfer("WRITE", local, int32 array, remote, int32 array) from Python lists,
             transfer(handle), check_xfer_state(handle) until "DONE", release_xfer_handle(handle)
Two agents live in this process (initiator and target), one transfer in flight at a time, each on
distinct blocks, with the indices of BaselineCase.java.
With NIXL_DRIVER_NOTIFY=1 every transfer carries a 16-byte notification (transfer(handle,
notif_msg=...)) and the target takes what arrived with get_new_notifs() after each transfer; the
run fails unless every transfer's notification arrived exactly once.

usage: python3 nixl_driver.py SECONDS CASE...   (CASE: small, large); prints
"RESULT <case> <rate> <check_xfer_state calls per transfer> <cores of this process> <share of both
regions in transparent huge pages>" (warm-up included). numpy advises large arrays to huge pages
unless NUMPY_MADVISE_HUGEPAGE=0.
"""
import os
import sys
import time

import numpy as np

try:
    from nixl_cu12._api import nixl_agent, nixl_agent_config
except ImportError:
    from nixl._api import nixl_agent, nixl_agent_config

# case: (block bytes, blocks per transfer, blocks per region)
CASES = {"small": (4096, 1, 4096), "large": (262144, 64, 256)}
NOTIFY = os.environ.get("NIXL_DRIVER_NOTIFY") == "1"
MESSAGE = b"req-0000000000ok"


def huge_page_bytes(base, length):
    """AnonHugePages of the mappings of this process that overlap [base, base + length)."""
    total = 0
    overlaps = False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split(" ", 1)[0]
            if "-" in head and all(c in "0123456789abcdef-" for c in head):
                low, high = (int(x, 16) for x in head.split("-"))
                overlaps = low < base + length and high > base
            elif overlaps and line.startswith("AnonHugePages:"):
                total += int(line.split()[1]) * 1024
    return min(total, length)


def slot_indices(batch, slot):
    local = [slot * batch + i for i in range(batch)]
    remote = [slot * batch + (0 if batch == 1 else (37 * i + 11) % batch) for i in range(batch)]
    return local, remote


class Side:
    """One agent with a registered region and its local descriptor list prepared."""

    def __init__(self, name, blocks, block_len, fill):
        self.agent = nixl_agent(name, nixl_agent_config(num_threads=4, capture_telemetry=True))
        self.buf = np.full(blocks * block_len, fill, dtype=np.uint8)
        self.base = self.buf.ctypes.data
        self.reg = self.agent.register_memory([(self.base, blocks * block_len, 0, "")], mem_type="DRAM")
        descs = self.agent.get_xfer_descs(
            [(self.base + i * block_len, block_len, 0) for i in range(blocks)], mem_type="DRAM")
        self.local = self.agent.prep_xfer_dlist("NIXL_INIT_AGENT", descs)

    def close(self):
        self.agent.release_dlist_handle(self.local)
        self.agent.deregister_memory(self.reg)


def run_case(key, seconds):
    block_len, batch, blocks = CASES[key]
    tag = "%d-%s" % (os.getpid(), key)
    init = Side("py-init-" + tag, blocks, block_len, 1)
    target = Side("py-target-" + tag, blocks, block_len, 2)
    a = init.agent
    name = a.add_remote_agent(target.agent.get_agent_metadata())
    remote_descs = a.get_xfer_descs(
        [(target.base + i * block_len, block_len, 0) for i in range(blocks)], mem_type="DRAM")
    remote = a.prep_xfer_dlist(name, remote_descs)
    slots = [slot_indices(batch, s) for s in range(blocks // batch)]
    checks = 0
    notified = 0

    def take():
        nonlocal notified
        for messages in target.agent.get_new_notifs().values():
            notified += len(messages)

    def one(k):
        nonlocal checks
        local_idxs, remote_idxs = slots[k % len(slots)]
        handle = a.make_prepped_xfer("WRITE", init.local, np.asarray(local_idxs, dtype=np.int32),
                                     remote, np.asarray(remote_idxs, dtype=np.int32))
        if NOTIFY:
            a.transfer(handle, notif_msg=MESSAGE)
        else:
            a.transfer(handle)
        while True:
            checks += 1
            state = a.check_xfer_state(handle)
            if state == "DONE":
                break
            if state not in ("PROC", "PEND"):
                raise RuntimeError("transfer failed: " + state)
        a.release_xfer_handle(handle)
        if NOTIFY:
            take()

    k = 0
    cpu_start = time.process_time()
    wall_start = time.perf_counter()
    warm_end = time.perf_counter() + min(0.5, seconds / 4)
    while time.perf_counter() < warm_end:
        one(k)
        k += 1
    n = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        for _ in range(16):
            one(k)
            k += 1
        n += 16
        now = time.perf_counter()
        if now >= end:
            break
    rate = n / (now - start)
    cores = (time.process_time() - cpu_start) / (now - wall_start)
    checks_per_transfer = checks / k
    if NOTIFY:
        # a message still on its way after the last transfer: wait for it, at most a second
        until = time.perf_counter() + 1
        while notified < k and time.perf_counter() < until:
            take()
        if notified != k:
            raise RuntimeError("%d notifications for %d transfers" % (notified, k))
    if key != "small":
        rate = rate * batch * block_len / 1e9

    region = blocks * block_len
    huge = (huge_page_bytes(init.base, region) + huge_page_bytes(target.base, region)) / (2.0 * region)

    a.release_dlist_handle(remote)
    a.remove_remote_agent(name)
    init.close()
    target.close()
    return rate, checks_per_transfer, cores, huge


def main():
    seconds = float(sys.argv[1])
    for key in sys.argv[2:]:
        print("RESULT %s %.6g %.6g %.6g %.6g" % ((key,) + run_case(key, seconds)), flush=True)


if __name__ == "__main__":
    main()
