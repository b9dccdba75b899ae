#!/usr/bin/env bash
# Cost of sourcing envhook's generated activate hook in bash, zsh and dash,
# against the field notes' one-liner
# `export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH`, each shell
# measured in one process of its own, in one run; and the number of
# processes the hook starts.
#
#   benches/hook-cost.sh [ITERATIONS [OTHER_ENVHOOK]]   (default 10000)
#
# Three environments of the demo (`envhook demo`): paddle (CUDA 11
# cudatoolkit, cuDNN and a pip framework), torch (CUDA 12 split packages:
# a dozen records) and wheels (pip nvidia-* wheels), each with its hooks
# written whether or not it needs them (`install --always`).
#
# ENVHOOK_BIN=path/to/envhook measures the hook another build writes.
# OTHER_ENVHOOK (another build's binary, e.g. a worktree of an older
# commit) writes its hook into a second demo, and each shell process
# measures both hooks, this build's row first, side by side.
#
# Each iteration resets LD_LIBRARY_PATH (and the hook's state, so every
# source is a first activation), then sources the hook; the cost of the
# reset alone is measured too and subtracted. Reactivation sources the
# hook again and again; the cost of the bare loop is subtracted.
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=${1:-10000}
other=${2:-}

cargo build -q --release --bin envhook
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/envhook demo "$work/demo" >/dev/null
if [ -n "$other" ]; then target/release/envhook demo "$work/other" >/dev/null; fi
# shellcheck disable=SC2016 # the one-liner, verbatim
printf 'export LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH\n' >"$work/one-line.sh"

# The same script in each shell: POSIX sh, timed with `date +%s%N` around
# each loop (two processes per measurement, none inside the loops); each
# figure is the best of three loops.
cat >"$work/measure.sh" <<'SH'
n=$1 oneline=$2
shift 2
now() { date +%s%N; }
reset() { LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/lib/wsl/lib; unset "ENVHOOK_STATE_$id" "ENVHOOK_APPLIED_$id"; }
run() { # run RESET FILE: nanoseconds for n iterations of [reset;] [. FILE]
    start=$(now)
    i=0
    while [ "$i" -lt "$n" ]; do
        if [ -n "$1" ]; then reset; fi
        if [ -n "$2" ]; then . "$2"; fi
        i=$((i + 1))
    done
    echo $(($(now) - start))
}
best() { # best of three runs (each in a subshell, from the same state)
    b=
    for _ in 1 2 3; do
        t=$(run "$1" "$2")
        if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
    done
    echo "$b"
}
# The one-liner reads the first hook's prefix.
id= CONDA_PREFIX=$3
export CONDA_PREFIX
base=$(best 1 "")
one=$(best 1 "$oneline")
idle=$(best "" "")
# Each hook (HOOK ID PREFIX ...): first activations, then the steady
# state: already active, the hook re-checks one value; the loop alone
# is measured too and subtracted.
while [ "$#" -gt 0 ]; do
    hook=$1 id=$2 CONDA_PREFIX=$3
    export CONDA_PREFIX
    shift 3
    env=$(best 1 "$hook")
    reset
    . "$hook"
    steady=$(best "" "$hook")
    echo "$n $base $one $env $idle $steady"
done
SH
# The hook of the environment NAME in demo DIR, installed by BINARY, as
# "HOOK ID PREFIX".
hook_of() {
    local prefix="$2/miniconda3/envs/$1"
    "$3" install --always -p "$prefix" >/dev/null
    local hook="$prefix/etc/conda/activate.d/envhook.sh"
    echo "$hook $(sed -n 's/.*ENVHOOK_STATE_\([0-9a-f]\{8\}\).*/\1/p' "$hook" | head -n 1) $prefix"
}
printf '%-8s %-6s %-6s %12s %22s %22s\n' env shell build one-liner "first activation" reactivation
for name in paddle torch wheels; do
    # shellcheck disable=SC2046 # "HOOK ID PREFIX", split on purpose
    set -- $(hook_of "$name" "$work/demo" "${ENVHOOK_BIN:-target/release/envhook}")
    builds=(this)
    if [ -n "$other" ]; then
        # shellcheck disable=SC2046
        set -- "$@" $(hook_of "$name" "$work/other" "$other")
        builds+=(other)
    fi
    for sh in bash zsh dash; do
        command -v "$sh" >/dev/null || continue
        case $sh in
            bash) args=(--noprofile --norc) ;;
            zsh) args=(-f) ;;
            *) args=() ;;
        esac
        k=0
        while read -r n base one env idle steady; do
            awk -v name="$name" -v sh="$sh" -v build="${builds[$k]}" -v n="$n" -v b="$base" -v o="$one" -v e="$env" -v l="$idle" -v s="$steady" 'BEGIN {
                one = (o - b) / n / 1000; first = (e - b) / n / 1000; re = (s - l) / n / 1000
                printf "%-8s %-6s %-6s %9.2f us %13.2f us (%4.1fx) %11.2f us (%4.1fx)\n", name, sh, build, one, first, first / one, re, re / one
            }'
            k=$((k + 1))
        done < <("$sh" "${args[@]}" "$work/measure.sh" "$iterations" "$work/one-line.sh" "$@")
    done
done
prefix="$work/demo/miniconda3/envs/paddle"
hook="$prefix/etc/conda/activate.d/envhook.sh"

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
