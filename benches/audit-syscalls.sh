#!/usr/bin/env bash
# System calls `envhook audit` makes per environment on a realistic fleet
# (make-fleet.py), by call, from `strace -c -f` (threads included): on NFS,
# where clusters keep conda environments, each is a round trip.
#
#   benches/audit-syscalls.sh [ENVS] [RECORDS]        FLEET=DIR reuses a fleet
set -euo pipefail
cd "$(dirname "$0")/.."
envs=${1:-200}
records=${2:-300}
cargo build -q --release --bin envhook
if [[ -n ${FLEET:-} ]]; then
    root="$FLEET/miniconda3"
    [[ -d $root ]] || python3 benches/make-fleet.py "$FLEET" "$envs" "$records"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    python3 benches/make-fleet.py "$work/fleet" "$envs" "$records"
    root="$work/fleet/miniconda3"
fi
export HOME=${TMPDIR:-/tmp}/envhook-bench-home
mkdir -p "$HOME"
n=$(find "$root/envs" -mindepth 1 -maxdepth 1 -type d | wc -l)
out=$(mktemp)
strace -f -c -o "$out" target/release/envhook audit --json --driver-version 560.35.05 --envs-dir "$root/envs" >/dev/null || true
awk -v n="$n" '
    /^-|syscall|total/ { next }
    { calls[$NF] = $4; sum += $4 }
    END { printf "%d environments: %.1f system calls per environment\n", n, sum / n }' "$out"
awk -v n="$n" '
    /^-|syscall|total/ { next }
    { if ($4 / n >= 0.5) printf "  %-12s %6.1f\n", $NF, $4 / n }' "$out" | sort -k2 -nr
rm -f "$out"
