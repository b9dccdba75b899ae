#!/usr/bin/env bash
# `envhook audit` over a synthetic fleet (default 200 environments x 300
# records, see make-fleet.py), against a plain Python baseline that loads
# every record with json.load, as `conda list --json` does for each env.
#
#   benches/audit-fleet.sh [ENVS] [RECORDS]
#
# Both are timed as whole runs (best of 3), after one untimed warm-up each,
# so the page cache is warm for both.
set -euo pipefail
cd "$(dirname "$0")/.."
envs=${1:-200}
records=${2:-300}

cargo build -q --release --bin envhook
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 benches/make-fleet.py "$work/fleet" "$envs" "$records"
root="$work/fleet/miniconda3"

best() { # best NAME CMD...: best wall time of 3 runs, in ms
    local name=$1 best=0 t start
    shift
    "$@" >/dev/null 2>&1 || true
    for _ in 1 2 3; do
        start=$EPOCHREALTIME
        "$@" >/dev/null 2>&1 || true
        t=$(( (${EPOCHREALTIME/./} - ${start/./}) / 1000 ))
        if (( best == 0 || t < best )); then best=$t; fi
    done
    printf '%s %d\n' "$name" "$best"
}

export HOME="$work/home"
mkdir -p "$HOME"
envhook() { CONDA_ROOT="$root" target/release/envhook audit --json --driver-version 560.35.05; }
baseline() {
    python3 - "$root" <<'PY'
import glob, json, os, sys
root = sys.argv[1]
prefixes = [root] + sorted(glob.glob(os.path.join(root, "envs", "*")))
n = 0
for prefix in prefixes:
    for path in glob.glob(os.path.join(prefix, "conda-meta", "*.json")):
        with open(path) as f:
            json.load(f)
        n += 1
PY
}
read -r _ eh < <(best envhook envhook)
read -r _ py < <(best baseline baseline)
found=$(CONDA_ROOT="$root" target/release/envhook audit --json --driver-version 560.35.05 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["summary"]["envs"])' || true)
echo "fleet: $envs environments x $records records ($found audited, $(nproc) cores)"
echo "envhook audit --json   ${eh} ms"
echo "python json.load all   ${py} ms"
awk -v a="$eh" -v b="$py" 'BEGIN { printf "ratio                  %.1fx faster\n", b / a }'
