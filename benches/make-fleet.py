#!/usr/bin/env python3
"""Write a synthetic fleet for benches/audit-fleet.sh.

    benches/make-fleet.py DIR [ENVS] [RECORDS]     (default 200 envs x 300 records)

DIR/miniconda3 is a root prefix with ENVS environments under envs/. Each has
RECORDS conda-meta records shaped like real ones (every key conda writes,
paths_data with path entries, sha256 strings): most are ordinary packages;
a third of the environments carry CUDA 11 (cudatoolkit + cudnn), a third
CUDA 12 split packages, a third none, with their library files on disk.
"""
import hashlib
import json
import os
import sys


def digest(text, n=64):
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def record(prefix, name, version, build, files, depends=(), create=True):
    """Write one record; `create` also lays out its files (the CUDA
    libraries: envhook checks those on disk, and nothing else)."""
    fn = f"{name}-{version}-{build}"
    for rel in files if create else ():
        path = os.path.join(prefix, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"\x7fELF\x02\x01\x01\x00fleet")
    url = f"https://conda.anaconda.org/conda-forge/linux-64/{fn}.conda"
    rec = {
        "build": build, "build_number": 0, "channel": "https://conda.anaconda.org/conda-forge/",
        "constrains": [], "depends": list(depends),
        "extracted_package_dir": f"/home/u/miniforge3/pkgs/{fn}", "features": "", "files": files,
        "fn": f"{fn}.conda", "license": "BSD-3-Clause",
        "link": {"source": f"/home/u/miniforge3/pkgs/{fn}", "type": 1}, "md5": digest(fn, 32),
        "name": name, "package_tarball_full_path": f"/home/u/miniforge3/pkgs/{fn}.conda",
        "paths_data": {"paths": [
            {"_path": rel, "path_type": "hardlink", "sha256": digest(rel), "sha256_in_prefix": digest(rel),
             "size_in_bytes": 12345} for rel in files], "paths_version": 1},
        "requested_spec": "None", "sha256": digest(url), "size": 123456, "subdir": "linux-64",
        "timestamp": 1718000000000, "track_features": "", "url": url, "version": version,
    }
    with open(os.path.join(prefix, "conda-meta", fn + ".json"), "w") as f:
        json.dump(rec, f)


def env(prefix, i, records):
    os.makedirs(os.path.join(prefix, "conda-meta"), exist_ok=True)
    with open(os.path.join(prefix, "conda-meta", "history"), "w") as f:
        f.write("==> 2024-06-01 10:00:00 <==\n")
    kind = i % 3
    cuda = []
    if kind == 0:
        cuda = [
            ("cudatoolkit", "11.8.0", "h4ba93d1_13", ["lib/libcudart.so.11.8.89", "lib/libcublas.so.11.11.3.6"]),
            ("cudnn", "8.9.2.26", "cuda11_0", ["lib/libcudnn.so.8.9.2"]),
        ]
    elif kind == 1:
        cuda = [
            ("cuda-version", "12.6", "h7480c83_3", []),
            ("cuda-cudart", "12.6.77", "h5888daf_0", ["targets/x86_64-linux/lib/libcudart.so.12.6.77"]),
            ("libcublas", "12.6.4.1", "hbd13f7d_0", ["targets/x86_64-linux/lib/libcublas.so.12.6.4.1"]),
            ("libcudnn", "9.3.0.75", "h0a7ce49_0", ["lib/libcudnn.so.9.3.0"]),
            ("nccl", "2.23.4.1", "h52f6c39_0", ["lib/libnccl.so.2.23.4"]),
        ]
    for name, version, build, files in cuda:
        record(prefix, name, version, build, files)
    for j in range(records - len(cuda)):
        name = f"pkg{j:03d}-lib"
        files = [f"lib/python3.11/site-packages/{name}/mod{k}.py" for k in range(12)]
        record(prefix, name, f"1.{j}.0", f"py311h{j:07x}_0", files, ["python >=3.11,<3.12.0a0"], create=False)


def main():
    out = sys.argv[1]
    envs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    records = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    root = os.path.join(out, "miniconda3")
    env(root, 2, 20)
    for i in range(envs):
        env(os.path.join(root, "envs", f"env{i:03d}"), i, records)
    print(f"{envs} environments x {records} records under {root}")


if __name__ == "__main__":
    main()
