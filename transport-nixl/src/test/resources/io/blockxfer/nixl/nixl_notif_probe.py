"""Whether NIXL's notifications can tell the initiator of a WRITE that it ended (NixlNotificationsTest).

Two agents in this process (progress threads on, as blockxfer's C-API agents have them). The
initiator posts WRITEs with a notification and, without checking their status, watches its own
notification queue and the target's; then it checks their status to the end and watches both
queues again. Prints one line per size: "SIZE <bytes> INLINE <posted done at once> INITIATOR
<notifications the initiator ever got> TARGET_BEFORE_STATUS <target's before the initiator
checked> TARGET_AFTER_STATUS <target's after>".
"""
import sys
import time

import numpy as np
try:
    from nixl_cu12._api import nixl_agent, nixl_agent_config
except ImportError:
    from nixl_cu13._api import nixl_agent, nixl_agent_config


def count(agent, seconds):
    got = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for msgs in agent.get_new_notifs().values():
            got += len(msgs)
        time.sleep(0.001)
    return got


def main():
    sizes = [int(s) for s in sys.argv[1:]] or [4096, 64 * 256 * 1024]
    cfg = nixl_agent_config(enable_prog_thread=True)
    ini = nixl_agent("probe-initiator", cfg)
    tgt = nixl_agent("probe-target", cfg)
    for size in sizes:
        src = np.ones(size, dtype=np.uint8)
        dst = np.zeros(size, dtype=np.uint8)
        ini.register_memory([(src.ctypes.data, size, 0, "")], "DRAM")
        tgt.register_memory([(dst.ctypes.data, size, 0, "")], "DRAM")
        name = ini.add_remote_agent(tgt.get_agent_metadata())
        if isinstance(name, bytes):
            name = name.decode()
        tgt.add_remote_agent(ini.get_agent_metadata())
        local = ini.prep_xfer_dlist("NIXL_INIT_AGENT", [(src.ctypes.data, size, 0)], "DRAM")
        remote = ini.prep_xfer_dlist(name, [(dst.ctypes.data, size, 0)], "DRAM")
        handle = ini.make_prepped_xfer("WRITE", local, [0], remote, [0], b"probe-%d" % size)
        state = ini.transfer(handle)
        inline = state == "DONE"
        initiator = count(ini, 0.3)
        before = count(tgt, 0.3)
        deadline = time.monotonic() + 20
        while state != "DONE":
            if state == "ERR" or time.monotonic() > deadline:
                raise RuntimeError("transfer ended in state " + state)
            state = ini.check_xfer_state(handle)
        after = count(tgt, 0.3)
        initiator += count(ini, 0.3)
        ini.release_xfer_handle(handle)
        ini.release_dlist_handle(local)
        ini.release_dlist_handle(remote)
        ini.remove_remote_agent(name)
        print("SIZE %d INLINE %s INITIATOR %d TARGET_BEFORE_STATUS %d TARGET_AFTER_STATUS %d"
              % (size, inline, initiator, before, after), flush=True)


if __name__ == "__main__":
    main()
