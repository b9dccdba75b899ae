#!/usr/bin/env bash
# `envhook audit` over a realistic fleet (default 200 environments x 300
# records, ~4,800 files each, see make-fleet.py), against a plain Python
# baseline that only loads every record with json.load (what `conda list
# --json` does first, for each environment), and against real `conda list
# --json` when CONDA (a conda executable) is given.
#
#   benches/audit-fleet.sh [ENVS] [RECORDS]          FLEET=DIR reuses a fleet
#
# Each is run once untimed (warm page cache), then 3 times (conda, which
# takes minutes over a fleet, once); the best wall time and the CPU time
# (user + system, children included) of that run are reported, side by
# side, from one invocation.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=benches/fleet.sh
. benches/fleet.sh "$@"

python3 - "$root" "${CONDA:-}" <<'PY'
import glob, os, resource, subprocess, sys, time

root, conda = sys.argv[1], sys.argv[2]
prefixes = [root] + sorted(glob.glob(os.path.join(root, "envs", "*")))

def measure(name, argv, runs=3):
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if best is None or wall < best[0]:
            best = (wall, cpu)
    print(f"{name:<34} wall {best[0] * 1000:8.0f} ms   cpu {best[1] * 1000:8.0f} ms")
    return best

baseline = """
import glob, json, os, sys
for prefix in [sys.argv[1]] + sorted(glob.glob(os.path.join(sys.argv[1], "envs", "*"))):
    for path in glob.glob(os.path.join(prefix, "conda-meta", "*.json")):
        with open(path) as f:
            json.load(f)
"""
files = sum(len(fs) for _, _, fs in os.walk(root))
print(f"fleet: {len(prefixes) - 1} environments + base, {files} files, {os.cpu_count()} cores")
eh = measure("envhook audit --json", ["target/release/envhook", "audit", "--json", "--driver-version", "560.35.05", "--envs-dir", os.path.join(root, "envs")])
py = measure("python json.load of every record", [sys.executable, "-c", baseline, root])
print(f"{'ratio (baseline / envhook)':<34} wall {py[0] / eh[0]:7.1f}x     cpu {py[1] / eh[1]:7.1f}x")
if conda:
    script = "for p in " + " ".join(prefixes) + f"; do {conda} list --json -p $p; done"
    cl = measure("conda list --json, every env", ["bash", "-c", script], runs=1)
    print(f"{'ratio (conda / envhook)':<34} wall {cl[0] / eh[0]:7.1f}x     cpu {cl[1] / eh[1]:7.1f}x")
PY
