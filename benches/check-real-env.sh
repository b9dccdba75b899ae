#!/usr/bin/env bash
# `envhook check` of one real environment, this build against another in
# the same run, alternating, so both see the same page cache and load:
# the price of simulating each framework's import (preloads,
# cuda-pathfinder, every library's closure) and of the symbol lookups.
#
#   benches/check-real-env.sh PREFIX OTHER_ENVHOOK [RUNS]    (default 15)
#
# PREFIX is a real environment (tests/real-wheels/make-prefix.sh makes one:
# torch, jax[cuda13], cupy-cuda13x, numba-cuda[cu13] and onnxruntime-gpu
# with ~160 dist-infos is what docs/benchmarks.md reports); OTHER_ENVHOOK is
# another build's binary (a worktree of the previous release, built with
# `cargo build --release`).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$1
other=$2
runs=${3:-15}
cargo build -q --release --bin envhook
python3 - "$prefix" "$other" target/release/envhook "$runs" <<'PYEOF'
import os, resource, statistics, subprocess, sys, time
prefix, other, this, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ)
env.pop("LD_LIBRARY_PATH", None)
args = ["check", "--json", "--driver-version", "580.65.06", "--gpu", "H100", "-p", prefix]
bins = {"other": other, "this": this}
times = {k: [] for k in bins}
# CPU time too: on a shared machine the wall clock carries the neighbours'
# load, the process's own user + system time does not.
cpu = {k: [] for k in bins}
for b in bins.values():
    subprocess.run([b] + args, capture_output=True, env=env)
for _ in range(runs):
    for k, b in bins.items():
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([b] + args, capture_output=True, env=env)
        times[k].append(time.perf_counter() - t)
        s = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[k].append(s.ru_utime - r.ru_utime + s.ru_stime - r.ru_stime)
for k, v in times.items():
    print(f"{k}: median {statistics.median(v) * 1000:.1f} ms, min {min(v) * 1000:.1f} ms, "
          f"CPU median {statistics.median(cpu[k]) * 1000:.1f} ms")
print(f"this / other (median): {statistics.median(times['this']) / statistics.median(times['other']):.2f}, "
      f"CPU {statistics.median(cpu['this']) / statistics.median(cpu['other']):.2f}")
PYEOF
