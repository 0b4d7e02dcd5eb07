#!/usr/bin/env python3
"""Interleaved timings of scv checkouts, for before/after figures on one machine.

  python3 bench/checkouts.py RUNS SCENARIO CHECKOUT [CHECKOUT ...]

SCENARIO is one of
  text     `scv exec` answering "say tick" from the peer benchmark's mock (2,000 deltas)
  tool     `scv exec` running one `bash` call (`echo hi`) and answering after it
  version  `scv --version`
  server   `scv server`: spawn to `initialized`, and to `session.started`

Each run starts every checkout once, in turn (a, b, c, a, b, c, ...), with `deno task exec`'s
permission flags, a fresh HOME (so no recorded session or shadow repository carries over; with
KEEP_HOME=1 each checkout keeps one HOME across its runs instead, as a user's later starts do) and
the user's Deno cache (DENO_DIR), after one warm-up run each. A checkout that has `deno task build`
(cli/build_dist.ts) is built first, as the README tells its users to; BUILD=0 leaves each checkout
as it is (without a build, main.ts runs the sources). Wall time is taken around the
process, and the time to its first byte on stdout (an exec's first delta) from the same start;
CPU time (user + system, microseconds) and peak RSS come from wait4(), not from /proc's 10 ms
ticks and not from a polling wait. Prints the medians. The mock is
../shared/peer-bench/mock_openai.py (PEER_BENCH overrides where that is).
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

FLAGS = ["--no-prompt", "--v8-flags=--max-semi-space-size=2,--optimize-for-size", "--allow-read", "--allow-write",
         "--allow-env", "--allow-net", "--allow-run=bash,bwrap,git"]
PROMPTS = {"text": ["say tick"],
           "tool": ["--approval-policy", "never", "run echo hi in bash, then tell me what it printed"]}
REPLY = "done: the command printed hi"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_line(proc, word):
    while True:
        line = proc.stdout.readline()
        if not line:
            return None
        if word in line:
            return time.perf_counter()


def run_once(scenario, checkout, env, work):
    main = os.path.join(checkout, "main.ts")
    start = time.perf_counter()
    if scenario == "server":
        p = subprocess.Popen(["deno", "run", *FLAGS, main, "server"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=work)
        p.stdin.write(b'{"type":"initialize","request_id":"1","protocol_version":1}\n')
        p.stdin.flush()
        a = wait_line(p, b'"initialized"')
        frame = {"type": "session.start", "request_id": "2", "cwd": work}
        p.stdin.write((json.dumps(frame) + "\n").encode())
        p.stdin.flush()
        b = wait_line(p, b'"session.started"')
        p.stdin.close()
        _, _, usage = os.wait4(p.pid, 0)
        ok = a is not None and b is not None
        return ((a or start) - start) * 1000, ((b or start) - start) * 1000, usage, ok
    args = ["--version"] if scenario == "version" else ["exec", "--model", "mock-model",
                                                        *PROMPTS[scenario]]
    p = subprocess.Popen(["deno", "run", *FLAGS, main, *args], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env, cwd=work)
    # Read as it comes, to time the first byte on stdout (the answer's first delta).
    chunks, first = [], None
    while True:
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        if first is None:
            first = time.perf_counter()
        chunks.append(chunk)
    out = b"".join(chunks)
    _, status, usage = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    want = {"text": b"tick", "tool": REPLY.encode(), "version": b"scv "}[scenario]
    return wall, ((first or start) - start) * 1000, usage, status == 0 and want in out


def main():
    if len(sys.argv) < 4 or sys.argv[2] not in ("text", "tool", "version", "server"):
        print(__doc__)
        sys.exit(2)
    runs, scenario, checkouts = int(sys.argv[1]), sys.argv[2], [os.path.abspath(c) for c in sys.argv[3:]]
    here = os.path.dirname(os.path.abspath(__file__))
    bench = os.environ.get("PEER_BENCH", os.path.join(here, "..", "..", "shared", "peer-bench"))
    deno_dir = os.environ.get("DENO_DIR") or json.loads(
        subprocess.check_output(["deno", "info", "--json"]))["denoDir"]
    if os.environ.get("BUILD", "1") != "0":
        for c in checkouts:
            if os.path.exists(os.path.join(c, "cli", "build_dist.ts")):
                subprocess.run(["deno", "task", "build"], cwd=c, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port = free_port()
    mock = subprocess.Popen(["python3", os.path.join(bench, "mock_openai.py"), "--port", str(port),
                             "--scenario", "tool" if scenario == "tool" else "text", "--n", "2000",
                             "--reply", REPLY, "--max-seconds", "3600"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    root = tempfile.mkdtemp(prefix="scv-checkouts-")
    try:
        time.sleep(0.5)
        work = os.path.join(root, "work")
        os.makedirs(work)
        base = dict(os.environ, DENO_DIR=deno_dir, OPENAI_API_KEY="dummy", NO_COLOR="1",
                    OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1")
        results = {c: [] for c in checkouts}
        for r in range(runs + 1):
            for c in checkouts:
                if os.environ.get("KEEP_HOME") == "1":
                    home = os.path.join(root, "home-%d" % checkouts.index(c))
                    os.makedirs(home, exist_ok=True)
                else:
                    home = os.path.join(root, "home")
                    shutil.rmtree(home, ignore_errors=True)
                    os.makedirs(home)
                got = run_once(scenario, c, dict(base, HOME=home), work)
                if r > 0:  # the first round is the warm-up
                    results[c].append(got)
        print(f"{scenario}, {runs} interleaved runs, load average {os.getloadavg()[0]:.2f}")
        for c in checkouts:
            v = results[c]
            med = lambda f: statistics.median(f(x) for x in v)
            cpu = med(lambda x: (x[2].ru_utime + x[2].ru_stime) * 1000)
            rss = med(lambda x: x[2].ru_maxrss / 1024)
            ok = sum(1 for x in v if x[3])
            if scenario == "server":
                print(f"  initialized {med(lambda x: x[0]):6.1f} ms  session.started "
                      f"{med(lambda x: x[1]):6.1f} ms  ok {ok}/{len(v)}  {c}")
            else:
                print(f"  first output {med(lambda x: x[1]):6.1f} ms  wall {med(lambda x: x[0]):6.1f} ms"
                      f"  cpu {cpu:6.1f} ms  peak RSS {rss:5.1f} MB  ok {ok}/{len(v)}  {c}")
    finally:
        mock.kill()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
