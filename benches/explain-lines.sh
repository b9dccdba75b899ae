#!/usr/bin/env bash
# `envhook explain` of a log of 1000, 4000 and 16000 distinct "cannot open
# shared object file" lines on standard input (#38 item 5): this build
# against another in the same run, each size timed once per binary,
# alternating, with the bytes each printed; a binary still running after
# LIMIT seconds (default 60) is stopped and reported as "> LIMIT".
#
#   benches/explain-lines.sh OTHER_ENVHOOK [LIMIT]
#
# OTHER_ENVHOOK is another build's binary (a worktree of an older commit,
# built with `cargo build --release`). The environment is the demo's torch
# environment (`envhook demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
other=$1
limit=${2:-60}
cargo build -q --release --bin envhook
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/envhook demo "$work/demo" >/dev/null
python3 - "$other" target/release/envhook "$limit" "$work/demo/miniconda3/envs/torch" <<'PYEOF'
import os, subprocess, sys, time
other, this, limit, prefix = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
env = dict(os.environ)
env.pop("LD_LIBRARY_PATH", None)
args = ["explain", "--driver-version", "580.65.06", "--gpu", "H100", "-p", prefix]
print(f"{'lines':>6} {'other':>10} {'bytes':>9} {'this':>10} {'bytes':>9}")
for n in (1000, 4000, 16000):
    log = "".join(f"OSError: libmissing{i}.so.1: cannot open shared object file\n" for i in range(n))
    row = []
    for b in (other, this):
        t = time.perf_counter()
        try:
            out = subprocess.run([b] + args, input=log.encode(), capture_output=True, env=env, timeout=limit)
            row.append(f"{time.perf_counter() - t:9.3f}s {len(out.stdout):>9}")
        except subprocess.TimeoutExpired:
            row.append(f"> {limit:.0f}s".rjust(10) + " " * 10)
    print(f"{n:>6} {row[0]} {row[1]}")
PYEOF
