#!/usr/bin/env bash
# System calls `envhook audit` makes per environment on a realistic fleet
# (make-fleet.py), by call, from `strace -c -f` (threads included): on NFS,
# where clusters keep conda environments, each is a round trip.
#
#   benches/audit-syscalls.sh [ENVS] [RECORDS]        FLEET=DIR reuses a fleet
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/fleet.sh
. benches/fleet.sh "$@"
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
