# Sourced by the audit benchmarks: build envhook, and set `root` to a
# realistic fleet's root prefix (make-fleet.py), in FLEET=DIR (kept and
# reused) or a temporary directory (removed on exit). Arguments: ENVS
# RECORDS.
# shellcheck shell=bash
cargo build -q --release --bin envhook
if [[ -n ${FLEET:-} ]]; then
    root="$FLEET/miniconda3"
    [[ -d $root ]] || python3 benches/make-fleet.py "$FLEET" "${1:-200}" "${2:-300}"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    python3 benches/make-fleet.py "$work/fleet" "${1:-200}" "${2:-300}"
    root="$work/fleet/miniconda3"
fi
export HOME=${TMPDIR:-/tmp}/envhook-bench-home
mkdir -p "$HOME"
