#!/usr/bin/env bash
# Cost of sourcing envhook's generated activate hook in bash, against the
# field notes' one-liner `export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH`,
# measured in one bash process, and the number of processes the hook starts.
#
#   benches/hook-cost.sh [ITERATIONS]     (default 20000)
#
# ENVHOOK_BIN=path/to/envhook measures the hook another build writes.
#
# Each iteration resets LD_LIBRARY_PATH (and the hook's state, so every
# source is a first activation), then sources the hook; the cost of the
# reset alone is measured too and subtracted. Timing uses bash's
# $EPOCHREALTIME, so the loop itself forks nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=${1:-20000}

cargo build -q --release --bin envhook --example demo-env
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/demo-env "$work/demo" >/dev/null
prefix="$work/demo/miniconda3/envs/paddle"
"${ENVHOOK_BIN:-target/release/envhook}" install -p "$prefix" >/dev/null
hook="$prefix/etc/conda/activate.d/envhook.sh"
# shellcheck disable=SC2016 # the one-liner, verbatim
printf 'export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH\n' >"$work/one-line.sh"
id=$(sed -n 's/.*ENVHOOK_STATE_\([0-9a-f]\{8\}\).*/\1/p' "$hook" | head -n 1)

bash --noprofile --norc -s "$iterations" "$hook" "$work/one-line.sh" "$id" "$prefix" <<'BASH'
set -u
n=$1 hook=$2 oneline=$3 id=$4
export CONDA_PREFIX=$5
state=ENVHOOK_STATE_$id
reset() { LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/lib/wsl/lib; unset "$state"; }
run() { # run FILE: seconds for n resets + sources (FILE empty: resets only)
    local start=$EPOCHREALTIME i
    for ((i = 0; i < n; i++)); do
        reset
        if [[ -n $1 ]]; then . "$1"; fi
    done
    echo $(( ${EPOCHREALTIME/./} - ${start/./} ))
}
base=$(run "")
one=$(run "$oneline")
env=$(run "$hook")
# Steady state: already active, the hook only re-checks its entries.
start=$EPOCHREALTIME
reset; . "$hook"
for ((i = 0; i < n; i++)); do . "$hook"; done
steady=$(( ${EPOCHREALTIME/./} - ${start/./} ))
awk -v v="$BASH_VERSION" -v n="$n" -v b="$base" -v o="$one" -v e="$env" -v s="$steady" 'BEGIN {
    one = (o - b) / n; hook = (e - b) / n;
    printf "bash %s, %d iterations\n", v, n
    printf "one-line hook      %7.2f us per source\n", one
    printf "envhook hook       %7.2f us per source (first activation)\n", hook
    printf "envhook hook       %7.2f us per source (reactivation)\n", s / n
    printf "ratio              %7.1fx\n", hook / one
}'
BASH

# Processes started while activating and deactivating: strace sees every
# fork/clone/execve; the only execve is bash itself.
if command -v strace >/dev/null; then
    strace -f -qq -e trace=execve,fork,vfork,clone,clone3 -o "$work/trace" \
        bash --noprofile --norc -c ". '$hook'; . '$prefix/etc/conda/deactivate.d/envhook.sh'"
    procs=$(( $(grep -c 'execve(' "$work/trace") - 1 + $(grep -E 'clone3?\(|fork\(' "$work/trace" | grep -vc CLONE_THREAD || true) ))
    echo "processes started  $procs"
else
    echo "processes started  (install strace to count)"
fi
