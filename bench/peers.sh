#!/usr/bin/env bash
# bench/peers.sh: the shared peer benchmark (run_peers.sh, mock_openai.py, measure.py) run the
# way scv's users run scv, next to Codex's native binary and pi, in one interleaved run.
#
#   PEER_BENCH=../shared/peer-bench bash bench/peers.sh install   # npm-install the peers once
#   PEER_BENCH=../shared/peer-bench bash bench/peers.sh           # measure (RUNS=5 by default)
#   SCV_BEFORE=/path/to/older/checkout bash bench/peers.sh        # adds scv-before rows
#   BUILD=0 bash bench/peers.sh                                   # scv from its sources, unbuilt
#
# What this changes against running run_peers.sh with SCV="deno run -A main.ts" by hand, and
# why (docs/performance.md, "Why bench:exec and the peer benchmark disagreed"):
# - DENO_DIR stays the user's Deno cache. run_peers.sh gives every agent a fresh HOME, and Deno
#   keeps its cache under HOME, so each scv run started cold: no transpiled modules, no V8 code
#   cache, no npm packages, and inside the benchmark's network namespace every npm package
#   download failed first (seconds per run). An installed scv has a warm cache.
# - scv runs with `deno task exec`'s own flags (the README's narrow permissions and its V8 flag),
#   not -A, and is run once before measuring, as bench/exec_bench.ts does.
# - An optional second checkout (SCV_BEFORE) is added as its own agent, so before and after are
#   measured in the same run, interleaved, under the same load.
# - Each checkout that has `deno task build` (cli/build_dist.ts) is built first, as the README
#   tells its users to; BUILD=0 leaves it as it is (without a build, main.ts runs the sources).
# The shared files are copied to a temporary directory and never edited in place.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PEER_BENCH=${PEER_BENCH:-$ROOT/../shared/peer-bench}
[ -f "$PEER_BENCH/run_peers.sh" ] || { echo "no run_peers.sh in PEER_BENCH=$PEER_BENCH" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/scv-peers-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp "$PEER_BENCH"/run_peers.sh "$PEER_BENCH"/mock_openai.py "$PEER_BENCH"/measure.py "$WORK/"

if [ "${1:-}" = install ]; then
  bash "$WORK/run_peers.sh" install
  exit 0
fi

export DENO_DIR=${DENO_DIR:-$(deno info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["denoDir"])')}
# `deno task exec`'s flags, read from deno.json so the benchmark follows the task.
flags() { # checkout
  python3 - "$1/deno.json" <<'EOF'
import json, re, shlex, sys
task = json.load(open(sys.argv[1]))["tasks"]["exec"]
words = shlex.split(task.split("deno run", 1)[1])
print(" ".join(w for w in words if w.startswith("--") and not w.startswith("--config")))
EOF
}
launcher() { # checkout name
  local f
  f=$(flags "$1")
  if [ "${BUILD:-1}" != 0 ] && [ -f "$1/cli/build_dist.ts" ]; then
    (cd "$1" && deno task build >/dev/null 2>&1) || { echo "deno task build failed in $1" >&2; exit 1; }
  fi
  printf '#!/usr/bin/env bash\nexec deno run %s %q "$@"\n' "$f" "$1/main.ts" >"$WORK/$2"
  chmod +x "$WORK/$2"
  # Warm-up: the first run of a checkout fills Deno's caches (as an install would have).
  (cd "$WORK" && "$WORK/$2" --version >/dev/null)
  echo "$WORK/$2"
}
SCV=$(launcher "$ROOT" scv-launcher)
ONLY=${ONLY:-scv,scv-json,codex-native,pi,baseline-curl}
if [ -n "${SCV_BEFORE:-}" ]; then
  BEFORE=$(launcher "$(cd "$SCV_BEFORE" && pwd)" scv-before-launcher)
  # One more agent line in the copied table: the older checkout, same commands as scv's.
  python3 - "$WORK/run_peers.sh" "$BEFORE" <<'EOF'
import sys
path, before = sys.argv[1], sys.argv[2]
s = open(path).read()
anchor = '  agent scv-json '
line = ('  agent scv-before tick "%s --version" "%s exec --model mock-model \'$TEXT_PROMPT\'" '
        '"%s exec --model mock-model --approval-policy never \'$TOOL_PROMPT\'"\n' % (before, before, before))
s = s.replace(anchor, line + anchor, 1)
s = s.replace('mkdir -p "$PEERS/home/scv" ', 'mkdir -p "$PEERS/home/scv" "$PEERS/home/scv-before" ', 1)
open(path, "w").write(s)
EOF
  ONLY=$ONLY,scv-before
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
SCV=$SCV ONLY=$ONLY bash "$WORK/run_peers.sh" "$@"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
