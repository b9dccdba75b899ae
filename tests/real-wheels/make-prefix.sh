#!/bin/sh
# Make a prefix shaped like a conda environment with pip packages in it (a
# venv with conda-meta/history and a conda record for its python, as
# `conda create -n X python` then `pip install` leaves one), and install
# real wheels from PyPI into it. Used by tests/it/real_wheels.rs.
#
# usage: make-prefix.sh PYTHON PREFIX REQUIREMENT...
set -eu
PY=$1
P=$2
shift 2
rm -rf "$P"
"$PY" -m venv "$P"
mkdir -p "$P/conda-meta"
"$P/bin/python" - "$P" <<'PYEOF'
import hashlib, json, os, sys, sysconfig, time
p = sys.argv[1]
full = sysconfig.get_python_version()
ver = "%d.%d.%d" % sys.version_info[:3]
build = "h0_cpython"
files = ["bin/python", "bin/python3", "bin/python" + full]
paths = []
for f in files:
    fp = os.path.join(p, f)
    data = open(fp, "rb").read()
    paths.append({"_path": f, "path_type": "softlink" if os.path.islink(fp) else "hardlink",
                  "sha256": hashlib.sha256(data).hexdigest(), "size_in_bytes": len(data)})
fn = "python-%s-%s.conda" % (ver, build)
rec = {
    "name": "python", "version": ver, "build": build, "build_number": 0,
    "channel": "https://conda.anaconda.org/conda-forge/linux-64", "subdir": "linux-64",
    "fn": fn, "url": "https://conda.anaconda.org/conda-forge/linux-64/" + fn,
    "depends": [], "constrains": [], "license": "Python-2.0",
    "timestamp": int(time.time() * 1000), "requested_spec": "python=" + full,
    "files": files, "paths_data": {"paths_version": 1, "paths": paths},
    "link": {"source": "/opt/conda/pkgs/python-%s-%s" % (ver, build), "type": 1},
}
with open(os.path.join(p, "conda-meta", "python-%s-%s.json" % (ver, build)), "w") as fh:
    json.dump(rec, fh, indent=2)
with open(os.path.join(p, "conda-meta", "history"), "w") as fh:
    fh.write("==> %s <==\n# cmd: conda create -p %s python=%s\n+conda-forge/linux-64::python-%s-%s\n"
             % (time.strftime("%Y-%m-%d %H:%M:%S"), p, full, ver, build))
PYEOF
# venv's activate scripts are not part of a conda environment
rm -f "$P"/bin/activate* "$P"/bin/Activate.ps1
"$P/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile \
    --only-binary=:all: "$@"
