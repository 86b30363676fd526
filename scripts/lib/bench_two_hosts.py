#!/usr/bin/env python3
"""The rounds and the report of scripts/bench-two-hosts (which sets up the namespaces and the server).

Each round runs, in an order that rotates from round to round, one 'blockxfer bench --connect ...
--json' per backend and the ucx_perftest cases, and notes the load average before and after. The
report gives, per operation and block size, the median and range over the rounds of each
contender's GB/s (10^9 bytes/s), of the TCP ceiling the bench measured beside each backend, the
ratios ucx/nixl (per round, then their median) and ucx/TCP (the bench's own ratio, per round), the
initiator's and the target's CPU per GB (core-ms), and the goals.
"""
import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time

GIB = 1 << 30


def parse_size(text):
    units = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
    text = text.strip().upper().rstrip('B').rstrip('I')
    if text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def size_label(n):
    for unit, div in (('MiB', 1 << 20), ('KiB', 1 << 10)):
        if n >= div and n % div == 0:
            return f'{n // div} {unit}'
    return f'{n} B'


def load_average():
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def cpu_seconds(pid):
    """utime + stime of a process, from /proc/PID/stat, in seconds; None when it is gone."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            fields = f.read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
    except (OSError, IndexError, ValueError):
        return None


class Run:
    def __init__(self, args):
        self.args = args
        self.ops = [o.strip() for o in args.ops.split(',') if o.strip()]
        self.sizes = [parse_size(s) for s in args.block_sizes.split(',') if s.strip()]
        self.backends = [b.strip() for b in args.backends.split(',') if b.strip()]
        self.batch = int(args.batches)
        self.commands = []
        # (contender, op, size) -> list of per-round dicts
        self.results = {}
        self.loads = []
        self.port = 14300

    def note_command(self, cmd):
        line = ' '.join(c if c == '&' else shlex.quote(c) for c in cmd)
        if line not in self.commands:
            self.commands.append(line)

    def record(self, contender, op, size, value):
        self.results.setdefault((contender, op, size), []).append(value)

    # ---------------------------------------------------------------- the backends

    def bench(self, backend, round_no):
        a = self.args
        cmd = ['ip', 'netns', 'exec', a.initiator_ns, os.path.join(a.root, 'blockxfer'), 'bench', '--connect',
               a.server, '--backend', backend, '--ops', a.ops, '--block-sizes', a.block_sizes, '--batches',
               a.batches, '--duration', a.duration, '--poll', a.poll, '--json']
        self.note_command(cmd)
        p = subprocess.run(cmd, capture_output=True, text=True)
        with open(os.path.join(a.out, f'round{round_no}-{backend}.json'), 'w') as f:
            f.write(p.stdout)
        with open(os.path.join(a.out, f'round{round_no}-{backend}.err'), 'w') as f:
            f.write(p.stderr)
        if p.returncode != 0:
            print(f'  {backend}: the bench failed (exit {p.returncode}):\n{p.stderr.strip()}', file=sys.stderr)
            return
        lines = p.stdout.splitlines()
        try:
            start, end = lines.index('{'), len(lines) - 1 - lines[::-1].index('}')
            report = json.loads('\n'.join(lines[start:end + 1]))
        except ValueError:
            print(f'  {backend}: no JSON report in its output', file=sys.stderr)
            return
        for row in report['rows']:
            bytes_per_transfer = row['blockBytes'] * row['batchBlocks']
            cpu = row.get('cpuMicrosPerTransfer')
            target = row.get('targetCpuMicrosPerTransfer')
            self.record(backend, row['op'], row['blockBytes'], {
                'gbps': row['gbPerSec'],
                'tcp': row.get('wireGbPerSec'),
                'xtcp': row.get('wireRatio'),
                'cpu': None if cpu is None else cpu * 1e6 / bytes_per_transfer,  # core-ms per GB
                'target_cpu': None if target is None else target * 1e6 / bytes_per_transfer,
                'failed': row.get('failed', 0),
            })
        if p.stderr.strip():
            print(f'  {backend}: said on standard error (see round{round_no}-{backend}.err):')
            for line in p.stderr.strip().splitlines()[:5]:
                print(f'    {line}')

    # ---------------------------------------------------------------- ucx_perftest

    def perftest(self, round_no):
        for errmode in ('', '-e'):
            for op in self.ops:
                for size in self.sizes:
                    gbps = self.perftest_one(op, size, errmode)
                    if gbps is not None:
                        self.record('perftest' + (' -e' if errmode else ''), op, size, {'gbps': gbps})

    def perftest_one(self, op, size, errmode):
        a = self.args
        test = 'ucp_put_bw' if op == 'write' else 'ucp_get'
        iterations = max(64, min(200_000, GIB // size))
        env = dict(os.environ, LD_LIBRARY_PATH=a.ucx_lib, UCX_TCP_TX_SEG_SIZE=os.environ.get(
            'UCX_TCP_TX_SEG_SIZE', '64k'))
        for attempt in range(3):
            self.port += 1
            server = ['ip', 'netns', 'exec', a.target_ns, a.perftest, '-p', str(self.port)]
            client = ['ip', 'netns', 'exec', a.initiator_ns, a.perftest, a.server_address, '-p', str(self.port),
                      '-t', test, '-s', str(size), '-n', str(iterations), '-w', str(max(8, iterations // 10)), '-f']
            if errmode:
                client.append(errmode)
            srv = subprocess.Popen(server, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.3)
            cli = subprocess.Popen(client, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                out, _ = cli.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                cli.kill()
                out, _ = cli.communicate()
            try:
                srv.wait(timeout=30)
            except subprocess.TimeoutExpired:
                srv.kill()
                srv.wait()
            prefix = ['UCX_TLS=' + env.get('UCX_TLS', ''), 'UCX_TCP_TX_SEG_SIZE=' + env['UCX_TCP_TX_SEG_SIZE'],
                      'LD_LIBRARY_PATH=NATIVES/ucx/libucx/lib:NATIVES/ucx/libucx_cu12.libs']
            def shown(cmd):
                return [('PATCHED_UCX_PERFTEST' if c == a.perftest else 'PORT' if c == str(self.port) else c)
                        for c in cmd]
            self.note_command(prefix + shown(server) + ['&'])
            self.note_command(prefix + shown(client))
            with open(os.path.join(a.out, f'perftest-{test}-{size}{errmode}.txt'), 'a') as f:
                f.write(out)
            values = [l.split() for l in out.splitlines() if l.strip() and not l.lstrip().startswith(('[', '+', '|'))
                      and l.split()[0].isdigit()]
            if cli.returncode == 0 and values:
                mbps = float(values[-1][5])  # overall bandwidth, MB/s of 2^20 bytes
                return mbps * (1 << 20) / 1e9
        print(f'  perftest {test} {size_label(size)} {errmode}: no result (see the perftest files)', file=sys.stderr)
        return None

    # ---------------------------------------------------------------- the rounds

    def run(self):
        a = self.args
        contenders = list(self.backends) + (['perftest'] if a.perftest else [])
        for r in range(1, int(a.rounds) + 1):
            before = load_average()
            order = contenders[(r - 1) % len(contenders):] + contenders[:(r - 1) % len(contenders)]
            print(f'round {r}: load average {before}; order {", ".join(order)}', flush=True)
            server_cpu = cpu_seconds(a.server_pid)
            for c in order:
                if c == 'perftest':
                    self.perftest(r)
                else:
                    self.bench(c, r)
            after = load_average()
            self.loads.append((before, after))
            used = cpu_seconds(a.server_pid)
            server = '' if server_cpu is None or used is None else f'; bench server used {used - server_cpu:.1f} s of CPU'
            print(f'round {r}: done, load average {after}{server}', flush=True)

    # ---------------------------------------------------------------- the report

    @staticmethod
    def stat(values):
        values = [v for v in values if v is not None and v == v]
        if not values:
            return None
        return statistics.median(values), min(values), max(values)

    @staticmethod
    def fmt(s, digits=2):
        if s is None:
            return '-'
        m, lo, hi = s
        return f'{m:.{digits}f} [{lo:.{digits}f}-{hi:.{digits}f}]'

    def column(self, contender, op, size, key):
        return [v.get(key) for v in self.results.get((contender, op, size), [])]

    def per_round_ratio(self, c1, c2, op, size):
        x = self.column(c1, op, size, 'gbps')
        y = self.column(c2, op, size, 'gbps')
        return [p / q for p, q in zip(x, y) if p and q]

    def report(self):
        a = self.args
        print()
        print(f'== two hosts: network namespaces {a.initiator_ns} (initiator) and {a.target_ns} (target), veth'
              f' {a.veth}, kernel TCP; UCX_TLS={os.environ.get("UCX_TLS", "")}; {a.rounds} rounds of'
              f' {a.duration} per point; batch {self.batch}; initiators\' caller --poll {a.poll}; GB/s = 10^9'
              f' bytes/s ==')
        print(f'machine: {platform.node()}, Linux {platform.release()}, {os.cpu_count()} cores; load average per'
              f' round (before -> after): ' + '; '.join(f'{b} -> {e}' for b, e in self.loads))
        versions = subprocess.run([os.path.join(a.root, 'blockxfer'), 'backends'], capture_output=True,
                                  text=True).stdout.splitlines()
        cut = versions[0].find('CAPABILITIES') if versions else -1
        for line in versions:
            if line.split()[:1] and line.split()[0] in self.backends:
                print('  ' + ' '.join((line[:cut] if cut > 0 else line).split()))
        print('median [min-max] over the rounds; xTCP = GB/s over the TCP stream measured beside it in the same'
              ' run; CPU = core-ms per GB moved (initiator: its whole process; target: the bench server\'s'
              ' process); perftest = ucx_perftest between the same namespaces, its client\'s bandwidth')
        header = ['OP', 'BLOCK', 'CONTENDER', 'GB/s', 'TCP GB/s', 'xTCP', 'CPU INIT', 'CPU TARGET']
        rows = []
        contenders = list(self.backends) + (['perftest', 'perftest -e'] if a.perftest else [])
        for op in self.ops:
            for size in self.sizes:
                for c in contenders:
                    if (c, op, size) not in self.results:
                        continue
                    rows.append([op, size_label(size), c, self.fmt(self.stat(self.column(c, op, size, 'gbps'))),
                                 self.fmt(self.stat(self.column(c, op, size, 'tcp'))),
                                 self.fmt(self.stat(self.column(c, op, size, 'xtcp'))),
                                 self.fmt(self.stat(self.column(c, op, size, 'cpu')), 0),
                                 self.fmt(self.stat(self.column(c, op, size, 'target_cpu')), 0)])
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
        for r in [header] + rows:
            print('  '.join(v.ljust(widths[i]) if i < 3 else v.rjust(widths[i]) for i, v in enumerate(r)))
        if 'ucx' in self.backends:
            print()
            print('goals (ucx >= 0.9x nixl, >= 0.9x the TCP ceiling, initiator CPU per GB <= nixl\'s):')
            for op in self.ops:
                for size in self.sizes:
                    parts = []
                    xtcp = self.stat(self.column('ucx', op, size, 'xtcp'))
                    if xtcp:
                        parts.append(f'ucx/TCP {self.fmt(xtcp)} {"ok" if xtcp[0] >= 0.9 else "MISSED"}')
                    if 'nixl' in self.backends:
                        vs = self.stat(self.per_round_ratio('ucx', 'nixl', op, size))
                        if vs:
                            parts.append(f'ucx/nixl {self.fmt(vs)} {"ok" if vs[0] >= 0.9 else "MISSED"}')
                        cu = self.stat(self.column('ucx', op, size, 'cpu'))
                        cn = self.stat(self.column('nixl', op, size, 'cpu'))
                        if cu and cn:
                            parts.append(f'CPU/GB ucx {cu[0]:.0f} vs nixl {cn[0]:.0f} {"ok" if cu[0] <= cn[0] else "MISSED"}')
                    if a.perftest:
                        vp = self.stat(self.per_round_ratio('ucx', 'perftest', op, size))
                        if vp:
                            parts.append(f'ucx/perftest {self.fmt(vp)}')
                    print(f'  {op} {size_label(size)}: ' + '; '.join(parts))
        print()
        print('commands (NS_I, NS_T: the namespaces; run as root):')
        for c in self.commands:
            print('  ' + c.replace(a.initiator_ns, 'NS_I').replace(a.target_ns, 'NS_T'))
        print(f'  target: ip netns exec NS_T {os.path.join(a.root, "blockxfer")} bench --serve --listen {a.server}')
        if a.perftest:
            print('  PATCHED_UCX_PERFTEST: python3 scripts/lib/patch-ucx-perftest.py'
                  ' NATIVES/ucx/libucx/bin/ucx_perftest PATCHED_UCX_PERFTEST')


def main():
    p = argparse.ArgumentParser()
    for name in ('root', 'out', 'initiator-ns', 'target-ns', 'server', 'server-address', 'server-pid', 'rounds',
                 'duration', 'ops', 'block-sizes', 'batches', 'backends', 'poll', 'perftest', 'ucx-lib', 'veth'):
        p.add_argument('--' + name, required=True)
    args = p.parse_args()
    run = Run(args)
    run.run()
    run.report()


if __name__ == '__main__':
    main()
