#!/usr/bin/env bash
# The GPU tier: envhook's verdicts on a machine with a real GPU and real
# frameworks (torch, JAX, CuPy, numba-cuda from PyPI in one Python
# environment), held against what each framework's own GPU work really
# loads (tests/gpu/probe.py reads /proc/self/maps), in three scenarios:
#
#   clean     no hook, LD_LIBRARY_PATH unset;
#   inherited no hook, LD_LIBRARY_PATH naming the machine's system CUDA
#             (what `module load cuda` does), when it has one;
#   hooked    after `envhook install`, through `envhook run`.
#
# It needs no envhook build tools: ENVHOOK is a built binary (the
# manylinux wheel's). A Python environment without conda-meta/ is given
# one, as `conda create python; pip install ...` would have left it.
#
# usage: tests/gpu/run.sh ENVHOOK OUTDIR [PYTHON]
#        (ENVHOOK_GPU_SYSTEM_CUDA=DIR: the system CUDA's library directory)
# Writes OUTDIR/results.json (every check and probe) and OUTDIR/report.txt.
set -u
EH=$(readlink -f "$1")
OUT=$2
PY=${3:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
exec 3>"$OUT/report.txt"
log() { printf '%s\n' "$*" >&3; }

P=$("$PY" -c 'import sys; print(sys.prefix)')
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
MM=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
log "== machine"
{
    nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
    "$PY" -V
    echo "prefix=$P site=$SITE"
    "$PY" -m pip list 2>/dev/null | grep -Ei '^(torch|jax|cupy|numba|nvidia|cuda|tensorflow|onnx)'
    echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH-<unset>}"
    ldconfig -p | grep -Ei 'libcu(da|blas|dart|dnn)|nvjitlink' | head -20
    ls -d /usr/local/cuda* 2>&1
} >&3 2>&1

# The environment envhook is given: the Python prefix itself when its
# site-packages is PREFIX/lib/pythonX.Y/site-packages, else a prefix whose
# site-packages is a link to the real one.
ENV=$P
if [[ $SITE != "$P/lib/python$MM/site-packages" ]]; then
    ENV=/tmp/envhook-gpu-env
    mkdir -p "$ENV/lib/python$MM" "$ENV/bin"
    ln -sfn "$SITE" "$ENV/lib/python$MM/site-packages"
    ln -sfn "$(command -v "$PY")" "$ENV/bin/python"
fi
if [[ ! -d $ENV/conda-meta ]]; then
    mkdir -p "$ENV/conda-meta"
    printf '==> 2026-12-04 00:00:00 <==\n# cmd: conda create -p %s python=%s\n' "$ENV" "$MM" >"$ENV/conda-meta/history"
    v=$("$PY" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
    printf '{"name": "python", "version": "%s", "build": "h0_cpython", "build_number": 0, "channel": "https://conda.anaconda.org/conda-forge/linux-64", "subdir": "linux-64", "fn": "python-%s-h0_cpython.conda", "depends": [], "files": [], "paths_data": {"paths": [], "paths_version": 1}}\n' "$v" "$v" >"$ENV/conda-meta/python-$v-h0_cpython.json"
fi
log "env=$ENV"

ALL="torch jax cupy numba"
probe() { # scenario, frameworks, then the command prefix
    local scenario=$1 fw
    local frameworks=$2
    shift 2
    for fw in $frameworks; do
        local t0=$SECONDS
        local line
        line=$(timeout 150 "$@" "$PY" "$HERE/probe.py" "$fw" 2>"$OUT/probe.err" | tail -n 1)
        [[ $line == \{* ]] || line="{\"framework\": \"$fw\", \"ok\": false, \"error\": $("$PY" -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()[-2000:]))' "$OUT/probe.err")}"
        echo "$line" >"$OUT/probe.$scenario.$fw.json"
        log "probe $scenario $fw ($((SECONDS - t0)) s): $(echo "$line" | cut -c1-300)"
    done
}
check() { # scenario, then env assignments
    local scenario=$1
    shift
    env "$@" "$EH" check --json -p "$ENV" >"$OUT/check.$scenario.json" 2>"$OUT/check.$scenario.err"
    echo $? >"$OUT/check.$scenario.rc"
    env "$@" "$EH" check -p "$ENV" >&3 2>&1
    log "check $scenario: exit $(cat "$OUT/check.$scenario.rc")"
}

"$EH" uninstall -p "$ENV" >/dev/null 2>&1
log "== clean"
check clean -u LD_LIBRARY_PATH
probe clean "$ALL" env -u LD_LIBRARY_PATH

# The system CUDA (ENVHOOK_GPU_SYSTEM_CUDA names another directory).
SYS=${ENVHOOK_GPU_SYSTEM_CUDA-}
for d in ${SYS:+$SYS} /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    if compgen -G "$d/libcublasLt.so.*" >/dev/null; then
        SYS=$d
        break
    fi
done
if [[ -n $SYS ]]; then
    log "== inherited LD_LIBRARY_PATH=$SYS"
    ls -l "$SYS"/libcublasLt.so.* "$SYS"/libnvJitLink.so.* >&3 2>&1
    check inherited LD_LIBRARY_PATH="$SYS"
    probe inherited "$ALL" env LD_LIBRARY_PATH="$SYS"
else
    log "== inherited: no system CUDA with libcublasLt here"
fi

log "== hooked"
"$EH" install -p "$ENV" >&3 2>&1
check hooked -u LD_LIBRARY_PATH
probe hooked "$ALL" env -u LD_LIBRARY_PATH "$EH" run -p "$ENV" --
if [[ -n $SYS ]]; then
    check hooked-inherited LD_LIBRARY_PATH="$SYS"
    # The one framework the inherited path reached (JAX), with the hook.
    probe hooked-inherited jax env LD_LIBRARY_PATH="$SYS" "$EH" run -p "$ENV" --
fi
"$EH" uninstall -p "$ENV" >/dev/null 2>&1

"$PY" - "$OUT" <<'PYEOF'
import glob, json, os, sys
out = sys.argv[1]
results = {}
for f in sorted(glob.glob(os.path.join(out, "*.json"))) + sorted(glob.glob(os.path.join(out, "*.rc"))):
    key = os.path.basename(f)
    text = open(f).read()
    try:
        results[key] = json.loads(text)
    except ValueError:
        results[key] = text
    os.remove(f)
for f in glob.glob(os.path.join(out, "*.err")):
    results[os.path.basename(f)] = open(f).read()[-4000:]
    os.remove(f)
json.dump(results, open(os.path.join(out, "results.json"), "w"), indent=1)
PYEOF
