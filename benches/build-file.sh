#!/usr/bin/env bash
# `envhook check` of an environment whose TensorFlow build file is one
# hostile line: `'cuda_version':x` repeated to 64, 256 and 512 KiB (each
# occurrence's value an unquoted word that runs to the end of the line)
# (#31 item 5). This build against another in the same run, each size
# timed once per binary, alternating; a binary still running after
# LIMIT seconds (default 60) is stopped and reported as "> LIMIT".
#
#   benches/build-file.sh OTHER_ENVHOOK [LIMIT]
#
# OTHER_ENVHOOK is another build's binary (a worktree of an older commit,
# built with `cargo build --release`).
set -euo pipefail
cd "$(dirname "$0")/.."
other=$1
limit=${2:-60}
cargo build -q --release --bin envhook
python3 - "$other" target/release/envhook "$limit" <<'PYEOF'
import os, subprocess, sys, tempfile, time
other, this, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
env = dict(os.environ)
env.pop("LD_LIBRARY_PATH", None)
root = tempfile.mkdtemp(prefix="envhook-bench-")
def prefix(kib):
    p = os.path.join(root, f"tf{kib}")
    site = os.path.join(p, "lib/python3.11/site-packages")
    os.makedirs(os.path.join(p, "conda-meta"))
    os.makedirs(os.path.join(site, "tensorflow/python/platform"))
    di = os.path.join(site, "tensorflow-2.20.0.dist-info")
    os.makedirs(di)
    open(os.path.join(di, "METADATA"), "w").write("Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.20.0\n")
    open(os.path.join(di, "RECORD"), "w").write("")
    unit = "'cuda_version':x"
    line = "build_info = {" + unit * (kib * 1024 // len(unit)) + "}\n"
    open(os.path.join(site, "tensorflow/python/platform/build_info.py"), "w").write(line)
    return p
args = ["check", "--json", "--driver-version", "580.65.06", "--gpu", "H100", "-p"]
print(f"{'size':>8} {'other':>10} {'this':>10}")
for kib in (64, 256, 512):
    p = prefix(kib)
    row = []
    for b in (other, this):
        t = time.perf_counter()
        try:
            subprocess.run([b] + args + [p], capture_output=True, env=env, timeout=limit)
            row.append(f"{time.perf_counter() - t:9.3f}s")
        except subprocess.TimeoutExpired:
            row.append(f"> {limit:.0f}s".rjust(10))
    print(f"{kib:>5} KiB {row[0]:>10} {row[1]:>10}")
PYEOF
