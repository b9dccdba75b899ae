#!/usr/bin/env bash
# Cost of envhook's activate + deactivate hooks when LD_LIBRARY_PATH is
# long, in bash, zsh, dash and fish: 1k and 10k elements, with an empty
# element and the environment's own directory inside, so that activation
# has to strip. Two element sizes:
#   12 bytes  the 10k value is 120 kB, about the longest value a shell can
#             still export: Linux refuses to start a program with one
#             variable over 128 kB (MAX_ARG_STRLEN), so a longer
#             LD_LIBRARY_PATH breaks every command in that shell;
#   87 bytes  the 10k value is 0.87 MB, set inside the shell, where it can
#             only live until something is run.
#
#   benches/hook-long-values.sh [ITERATIONS [SHELL...]]   (default 20, all four)
#
# SIZES="12" restricts the element sizes (default "12 87").
# DROPS=1 makes every third element the environment's directory and every
# third an empty one (a value that went through many hand-written hooks):
# the hooks then drop a third of the elements each time.
# ENVHOOK_BIN=path/to/envhook measures the hooks another build writes (an
# older release, say), with the same values, for a side-by-side figure.
#
# Two sequences per shell:
#   act+deact       activate (strips), deactivate (restores the saved value)
#   act+edit+deact  activate, the user prepends a directory, deactivate
#                   (strips again, keeping the edit)
# Each shell runs ITERATIONS sequences in one process; a second process
# does the same resets without sourcing the hooks, and its time is
# subtracted. Reported: milliseconds per sequence, and the 10k/1k ratio
# (10 for linear cost, 100 for quadratic).
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=${1:-20}
shift || true
shells=("$@")
((${#shells[@]})) || shells=(bash zsh dash fish)

cargo build -q --release --bin envhook
envhook=${ENVHOOK_BIN:-target/release/envhook}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/envhook demo "$work/demo" >/dev/null
prefix="$work/demo/miniconda3/envs/paddle"
"$envhook" install -p "$prefix" >/dev/null
echo "hooks written by $("$envhook" --version)"
act="$prefix/etc/conda/activate.d/envhook"
deact="$prefix/etc/conda/deactivate.d/envhook"
ours="$prefix/lib/envhook/cuda"

read -r -a sizes <<<"${SIZES:-12 87}"
for size in "${sizes[@]}"; do
    for n in 1000 10000; do
        python3 - "$n" "$ours" "$size" "${DROPS:-}" >"$work/value-$n-$size" <<'PY'
import sys
n, ours, size, drops = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
stem = "/opt/software/lib64/some/deeper/directory/with/a/longer/name/x86_64-linux-gnu"
els = [f"/p{i:05d}{stem}"[: size - 1] for i in range(n)]
els[n // 2] = ""
els[n // 3] = ours
if drops:
    for i in range(0, n, 3):
        els[i] = ours
        if i + 1 < n:
            els[i + 1] = ""
print(":".join(els))
PY
    done
done

now() { date +%s%N; }

# run SHELL N SIZE SEQUENCE HOOKS(yes|no): nanoseconds for ITERATIONS
# sequences.
run() {
    local sh=$1 n=$2 seq=$4 hooks=$5 value="$work/value-$2-$3" script start
    if [[ $sh == fish ]]; then
        local a="source '$act.fish'" d="source '$deact.fish'" e="set -gx LD_LIBRARY_PATH /user/added \$LD_LIBRARY_PATH"
        [[ $hooks == no ]] && a=: d=:
        [[ $seq == act+deact ]] && e=:
        script="read -l v <'$value'; set -l i 0
while test \$i -lt $iterations
    set -gx LD_LIBRARY_PATH (string split -- : \$v); $a; $e; $d; set i (math \$i + 1)
end"
        start=$(now)
        fish --no-config -c "$script"
    else
        # shellcheck disable=SC2016 # the edit is expanded by the measured shell
        local a=". '$act.sh'" d=". '$deact.sh'" e='LD_LIBRARY_PATH="/user/added:$LD_LIBRARY_PATH"'
        [[ $hooks == no ]] && a=: d=:
        [[ $seq == act+deact ]] && e=:
        script="read -r v <'$value'; i=0
while [ \$i -lt $iterations ]; do
    LD_LIBRARY_PATH=\$v; export LD_LIBRARY_PATH; $a; $e; $d; i=\$((i + 1))
done"
        start=$(now)
        "$sh" -c "$script"
    fi
    echo $(($(now) - start))
}

printf 'milliseconds per sequence, %s iterations\n' "$iterations"
printf '%-6s %-15s' shell sequence
for size in "${sizes[@]}"; do printf ' %9s %9s %6s  ' "1k×${size}B" "10k×${size}B" ratio; done
echo
for sh in "${shells[@]}"; do
    command -v "$sh" >/dev/null || { echo "$sh: not installed"; continue; }
    for seq in act+deact act+edit+deact; do
        printf '%-6s %-15s' "$sh" "$seq"
        for size in "${sizes[@]}"; do
            ms=()
            for n in 1000 10000; do
                with=$(run "$sh" "$n" "$size" "$seq" yes)
                without=$(run "$sh" "$n" "$size" "$seq" no)
                ms+=("$(awk -v w="$with" -v o="$without" -v k="$iterations" 'BEGIN { printf "%.2f", (w - o) / k / 1e6 }')")
            done
            awk -v a="${ms[0]}" -v b="${ms[1]}" \
                'BEGIN { printf " %9.2f %9.2f %6.1f  ", a, b, (a > 0 ? b / a : 0) }'
        done
        echo
    done
done
