"""A plain NIXL peer through NIXL's own Python API, driven by NixlPythonInteropTest.

Line protocol: this process prints "READY <b64 metadata> <base> <blocks> <block_len>" on stdout, then
answers one line per command read from stdin:
  CHECK <block> <seed> <src_block>  -> "AT -1" if the block holds pattern(seed, src_block), else "AT <offset>"
  PEER <b64 metadata> <base> <blocks> <block_len> -> "OK <agent name>" (add_remote_agent + prep_xfer_dlist)
  XFER <WRITE|READ> <local csv> <remote csv> [<b64 message>] -> "DONE" (make_prepped_xfer, transfer with
      notif_msg=message when given, check_xfer_state)
  SEND <b64 message> -> "SENT" (send_notif to the remote added last)
  NOTIFS <count> <millis> -> "NOTIFS <agent>:<b64 message> ..." (get_new_notifs until count messages came or the
      time passed; every message as NIXL's Python API returns it, in order per sending agent)
  CLOSE -> "BYE"
Errors answer "ERR <message>". Logs go to stderr.
"""
import base64
import sys
import time

import numpy as np
try:
    from nixl_cu12._api import nixl_agent, nixl_agent_config
except ImportError:
    from nixl_cu13._api import nixl_agent, nixl_agent_config


def pattern(seed, block, length):
    i = np.arange(length, dtype=np.int64)
    return ((i + 3 * block + 11 * seed + i // 251) % 251).astype(np.uint8)


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def descs(base, blocks, block_len):
    return [(base + i * block_len, block_len, 0) for i in range(blocks)]


def main():
    name, blocks, block_len = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    agent = nixl_agent(name, nixl_agent_config(enable_prog_thread=True))
    buf = np.zeros(blocks * block_len, dtype=np.uint8)
    for b in range(blocks):
        buf[b * block_len:(b + 1) * block_len] = pattern(100, b, block_len)
    base = buf.ctypes.data
    reg = agent.register_memory([(base, buf.nbytes, 0, "")], "DRAM")
    local = agent.prep_xfer_dlist("NIXL_INIT_AGENT", descs(base, blocks, block_len), "DRAM")
    out("READY %s %d %d %d" % (base64.b64encode(agent.get_agent_metadata()).decode(), base, blocks, block_len))
    remote = None
    remote_name = None
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        try:
            if cmd[0] == "CHECK":
                block, seed, src = int(cmd[1]), int(cmd[2]), int(cmd[3])
                got = buf[block * block_len:(block + 1) * block_len]
                bad = np.nonzero(got != pattern(seed, src, block_len))[0]
                out("AT %d" % (bad[0] if len(bad) else -1))
            elif cmd[0] == "PEER":
                md = base64.b64decode(cmd[1])
                rbase, rblocks, rlen = int(cmd[2]), int(cmd[3]), int(cmd[4])
                remote_name = agent.add_remote_agent(md)
                if isinstance(remote_name, bytes):
                    remote_name = remote_name.decode()
                remote = agent.prep_xfer_dlist(remote_name, descs(rbase, rblocks, rlen), "DRAM")
                out("OK " + remote_name)
            elif cmd[0] == "XFER":
                op = cmd[1]
                lidx = [int(x) for x in cmd[2].split(",")]
                ridx = [int(x) for x in cmd[3].split(",")]
                handle = agent.make_prepped_xfer(op, local, lidx, remote, ridx)
                if len(cmd) > 4:
                    state = agent.transfer(handle, notif_msg=base64.b64decode(cmd[4]))
                else:
                    state = agent.transfer(handle)
                deadline = time.monotonic() + 20
                while state != "DONE":
                    if state == "ERR" or time.monotonic() > deadline:
                        raise RuntimeError("transfer ended in state " + state)
                    state = agent.check_xfer_state(handle)
                agent.release_xfer_handle(handle)
                out("DONE")
            elif cmd[0] == "SEND":
                agent.send_notif(remote_name, base64.b64decode(cmd[1]))
                out("SENT")
            elif cmd[0] == "NOTIFS":
                want, deadline = int(cmd[1]), time.monotonic() + int(cmd[2]) / 1000.0
                got = []
                while True:
                    for sender, messages in agent.get_new_notifs().items():
                        if isinstance(sender, bytes):
                            sender = sender.decode()
                        got.extend("%s:%s" % (sender, base64.b64encode(m).decode()) for m in messages)
                    if len(got) >= want or time.monotonic() > deadline:
                        break
                    time.sleep(0.001)
                out(" ".join(["NOTIFS"] + got))
            elif cmd[0] == "CLOSE":
                if remote is not None:
                    agent.release_dlist_handle(remote)
                    agent.remove_remote_agent(remote_name)
                agent.release_dlist_handle(local)
                agent.deregister_memory(reg)
                out("BYE")
                return
            else:
                out("ERR unknown command " + cmd[0])
        except Exception as e:  # report, keep serving
            out("ERR %s: %s" % (type(e).__name__, str(e).replace("\n", " ")))


if __name__ == "__main__":
    main()
