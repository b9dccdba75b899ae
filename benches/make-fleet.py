#!/usr/bin/env python3
"""Write a realistic fleet for benches/audit-fleet.sh and benches/audit-syscalls.sh.

    benches/make-fleet.py DIR [ENVS] [RECORDS]     (default 200 envs x 300 records)

DIR/miniconda3 is a root prefix with ENVS environments under envs/, shaped
like real ones: RECORDS conda-meta records per environment as conda writes
PrefixRecords (every key, `files`, `paths_data` with sha256 and sizes, `link`),
with every file on disk (about 16 per record, ~4,800 per environment), and
in turn:

  0: CUDA 11 from conda: cudatoolkit (its libraries and their soname links
     in lib/) and cudnn 8, PaddlePaddle from pip;
  1: CUDA 12 split packages with conda-forge's layout (the libraries in
     targets/x86_64-linux/lib, links from lib/), libcudnn 9, nccl, PyTorch;
  2: pip's nvidia wheels under site-packages/nvidia/*/lib with their
     dist-info (RECORD, METADATA with Requires-Dist), torch from pip;
  3: CPU only;
  4: CUDA 11 again, with the hand-written env_vars.sh pair of the field notes.

Library files start with an ELF magic and are small (the audit reads ELF
headers, not sizes; benches/hook-cost.sh and the real-wheel tier cover real
ELF sizes).
"""
import hashlib
import json
import os
import sys

ELF = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 56


def digest(text, n=64):
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def touch(path, data=b""):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def record(prefix, name, version, build, files, links=(), depends=(), channel="conda-forge"):
    """One PrefixRecord as conda writes it, and its files on disk: `files`
    are regular files (ELF for .so names), `links` are (path, target)."""
    fn = f"{name}-{version}-{build}"
    paths = []
    for rel in files:
        data = ELF if ".so" in rel else b"# " + rel.encode() + b"\n"
        touch(os.path.join(prefix, rel), data)
        paths.append({"_path": rel, "path_type": "hardlink", "sha256": digest(rel),
                      "sha256_in_prefix": digest(rel), "size_in_bytes": 1000 + len(rel) * 37})
    for rel, target in links:
        path = os.path.join(prefix, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.lexists(path):
            os.symlink(target, path)
        paths.append({"_path": rel, "path_type": "softlink", "sha256": digest(target),
                      "size_in_bytes": len(target)})
    url = f"https://conda.anaconda.org/{channel}/linux-64/{fn}.conda"
    rec = {
        "arch": "x86_64", "build": build, "build_number": 0,
        "channel": f"https://conda.anaconda.org/{channel}/linux-64", "constrains": [],
        "depends": list(depends), "extracted_package_dir": f"/home/u/miniforge3/pkgs/{fn}",
        "features": "", "files": sorted([p["_path"] for p in paths]), "fn": f"{fn}.conda",
        "license": "BSD-3-Clause", "license_family": "BSD",
        "link": {"source": f"/home/u/miniforge3/pkgs/{fn}", "type": 1}, "md5": digest(fn, 32),
        "name": name, "package_tarball_full_path": f"/home/u/miniforge3/pkgs/{fn}.conda",
        "paths_data": {"paths": paths, "paths_version": 1}, "platform": "linux",
        "requested_spec": "", "sha256": digest(url), "size": 123456 + len(paths) * 4096,
        "subdir": "linux-64", "timestamp": 1718000000000, "track_features": "",
        "url": url, "version": version,
    }
    with open(os.path.join(prefix, "conda-meta", fn + ".json"), "w") as f:
        json.dump(rec, f, indent=2, sort_keys=True)
    return len(paths)


def lib_set(dirname, soname, real):
    """A library as conda packages ship it: the real file and its links."""
    return [f"{dirname}/{real}"], [(f"{dirname}/{soname}", real), (f"{dirname}/{soname.split('.so')[0]}.so", soname)]


def cuda11(prefix):
    n = 0
    files, links = [], []
    for soname, real in [("libcudart.so.11.0", "libcudart.so.11.8.89"), ("libcublas.so.11", "libcublas.so.11.11.3.6"),
                         ("libcublasLt.so.11", "libcublasLt.so.11.11.3.6"), ("libcufft.so.10", "libcufft.so.10.9.0.58"),
                         ("libcurand.so.10", "libcurand.so.10.3.0.86"), ("libcusolver.so.11", "libcusolver.so.11.4.1.48"),
                         ("libcusparse.so.11", "libcusparse.so.11.7.5.86"), ("libnvrtc.so.11.2", "libnvrtc.so.11.8.89"),
                         ("libnvToolsExt.so.1", "libnvToolsExt.so.1.0.0"), ("libnvjpeg.so.11", "libnvjpeg.so.11.9.0.86")]:
        f, l = lib_set("lib", soname, real)
        files += f
        links += l
    files += [f"lib/libnpp{x}.so.11.8.0.86" for x in ["c", "ial", "icc", "idei", "if", "ig", "im", "ist", "isu", "itc", "s"]]
    n += record(prefix, "cudatoolkit", "11.8.0", "h4ba93d1_13", files, links, ["__glibc >=2.17,<3.0.a0"])
    files, links = [], []
    for part in ["", "_adv_infer", "_adv_train", "_cnn_infer", "_cnn_train", "_ops_infer", "_ops_train"]:
        f, l = lib_set("lib", f"libcudnn{part}.so.8", f"libcudnn{part}.so.8.9.2")
        files += f
        links += l
    files += ["include/cudnn.h", "include/cudnn_version.h"]
    n += record(prefix, "cudnn", "8.9.2.26", "cuda11_0", files, links, ["cudatoolkit 11.*"])
    return n


def cuda12(prefix):
    n = record(prefix, "cuda-version", "12.6", "h7480c83_3", [])
    t = "targets/x86_64-linux/lib"
    for name, version, build, soname, real in [
        ("cuda-cudart", "12.6.77", "h5888daf_0", "libcudart.so.12", "libcudart.so.12.6.77"),
        ("libcublas", "12.6.4.1", "hbd13f7d_0", "libcublas.so.12", "libcublas.so.12.6.4.1"),
        ("libcufft", "11.3.0.4", "hbd13f7d_0", "libcufft.so.11", "libcufft.so.11.3.0.4"),
        ("libcurand", "10.3.7.77", "hbd13f7d_0", "libcurand.so.10", "libcurand.so.10.3.7.77"),
        ("libcusolver", "11.7.1.2", "hbd13f7d_0", "libcusolver.so.11", "libcusolver.so.11.7.1.2"),
        ("libcusparse", "12.5.4.2", "hbd13f7d_0", "libcusparse.so.12", "libcusparse.so.12.5.4.2"),
        ("libnvjitlink", "12.6.85", "hbd13f7d_0", "libnvJitLink.so.12", "libnvJitLink.so.12.6.85"),
        ("cuda-nvrtc", "12.6.85", "hbd13f7d_0", "libnvrtc.so.12", "libnvrtc.so.12.6.85"),
    ]:
        files = [f"{t}/{real}"]
        links = [(f"{t}/{soname}", real), (f"lib/{soname}", f"../{t}/{soname}"), (f"lib/{real}", f"../{t}/{real}")]
        n += record(prefix, name, version, build, files, links, ["cuda-version >=12.6,<12.7.0a0"])
    files, links = [], []
    for part in ["", "_adv", "_cnn", "_ops", "_graph", "_engines_precompiled", "_engines_runtime_compiled", "_heuristic"]:
        f, l = lib_set("lib", f"libcudnn{part}.so.9", f"libcudnn{part}.so.9.3.0")
        files += f
        links += l
    n += record(prefix, "libcudnn", "9.3.0.75", "h0a7ce49_0", files, links, ["cuda-version >=12,<13.0a0"])
    f, l = lib_set("lib", "libnccl.so.2", "libnccl.so.2.23.4")
    n += record(prefix, "nccl", "2.23.4.1", "h52f6c39_0", f, l, ["cuda-version >=12.6,<13.0a0"])
    files = [f"lib/python3.11/site-packages/torch/lib/lib{x}.so" for x in ["torch", "torch_cpu", "torch_cuda", "c10", "c10_cuda", "shm"]]
    files += [f"lib/python3.11/site-packages/torch/{m}.py" for m in range(400) for m in [f"mod{m}"]]
    n += record(prefix, "pytorch", "2.4.1", "cuda126_py311h3bd3e4b_300", files, (), ["cuda-cudart >=12.6", "libcudnn >=9.3"])
    return n


def dist(site, name, version, files, requires=()):
    info = f"{site}/{name.replace('-', '_')}-{version}.dist-info"
    os.makedirs(info, exist_ok=True)
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires)
    touch(f"{info}/METADATA", meta.encode())
    touch(f"{info}/INSTALLER", b"pip\n")
    touch(f"{info}/WHEEL", b"Wheel-Version: 1.0\nTag: py3-none-manylinux2014_x86_64\n")
    for rel in files:
        touch(f"{site}/{rel}", ELF if ".so" in rel else b"#\n")
    rows = "".join(f"{rel},sha256={digest(rel, 43)},1234\n" for rel in files)
    touch(f"{info}/RECORD", rows.encode())
    return len(files) + 4


def pip_nvidia(prefix):
    site = f"{prefix}/lib/python3.11/site-packages"
    n = 0
    wheels = [("nvidia-cuda-runtime-cu12", "12.1.105", "cuda_runtime", ["libcudart.so.12"]),
              ("nvidia-cublas-cu12", "12.1.3.1", "cublas", ["libcublas.so.12", "libcublasLt.so.12"]),
              ("nvidia-cudnn-cu12", "8.9.2.26", "cudnn", ["libcudnn.so.8", "libcudnn_ops_infer.so.8", "libcudnn_cnn_infer.so.8"]),
              ("nvidia-nccl-cu12", "2.20.5", "nccl", ["libnccl.so.2"]),
              ("nvidia-cufft-cu12", "11.0.2.54", "cufft", ["libcufft.so.11"]),
              ("nvidia-curand-cu12", "10.3.2.106", "curand", ["libcurand.so.10"])]
    for name, version, mod, libs in wheels:
        n += dist(site, name, version, [f"nvidia/{mod}/lib/{lib}" for lib in libs] + [f"nvidia/{mod}/__init__.py"])
    files = [f"torch/lib/lib{x}.so" for x in ["torch", "torch_cpu", "torch_cuda", "c10", "c10_cuda"]]
    files += [f"torch/mod{m}.py" for m in range(300)]
    n += dist(site, "torch", "2.3.1", files, [f"{w[0]}=={w[1]}" for w in wheels])
    return n


def paddle(prefix):
    site = f"{prefix}/lib/python3.11/site-packages"
    files = ["paddle/base/libpaddle.so", "paddle/libs/libwarpctc.so", "paddle/libs/libdnnl.so.3"]
    files += [f"paddle/mod{m}.py" for m in range(300)]
    n = dist(site, "paddlepaddle-gpu", "2.6.2", files)
    touch(f"{site}/paddle/version/__init__.py", b"full_version = '2.6.2'\ncuda_version = '11.8'\ncudnn_version = '8.6.0'\nwith_mkl = 'ON'\n")
    return n + 1


def env(prefix, i, records):
    os.makedirs(os.path.join(prefix, "conda-meta"), exist_ok=True)
    with open(os.path.join(prefix, "conda-meta", "history"), "w") as f:
        f.write("==> 2024-06-01 10:00:00 <==\n# cmd: conda create -n x python=3.11\n")
    n_records = 0
    kind = i % 5
    if kind in (0, 4):
        cuda11(prefix)
        paddle(prefix)
        n_records = 2
    elif kind == 1:
        cuda12(prefix)
        n_records = 12
    elif kind == 2:
        pip_nvidia(prefix)
    if kind == 4:
        for phase, text in [("activate", "export LD_LIBRARY_PATH_BACKUP=$LD_LIBRARY_PATH\nexport LD_LIBRARY_PATH=$CONDA_PREFIX/lib:$LD_LIBRARY_PATH\n"),
                            ("deactivate", "export LD_LIBRARY_PATH=$LD_LIBRARY_PATH_BACKUP\nunset LD_LIBRARY_PATH_BACKUP\n")]:
            touch(f"{prefix}/etc/conda/{phase}.d/env_vars.sh", text.encode())
    record(prefix, "python", "3.11.9", "hb806964_0_cpython",
           ["bin/python3.11", "lib/libpython3.11.so.1.0"] + [f"lib/python3.11/{m}.py" for m in range(60) for m in [f"std{m}"]],
           [("bin/python", "python3.11"), ("bin/python3", "python3.11")])
    n_records += 1
    for j in range(records - n_records):
        name = f"pkg{j:03d}-lib"
        files = [f"lib/python3.11/site-packages/{name}/mod{k}.py" for k in range(15)]
        files.append(f"lib/lib{name}.so.{j % 7}")
        record(prefix, name, f"1.{j}.0", f"py311h{j:07x}_0", files, (), ["python >=3.11,<3.12.0a0"])


def main():
    out = sys.argv[1]
    envs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    records = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    root = os.path.join(out, "miniconda3")
    env(root, 3, 20)
    for i in range(envs):
        env(os.path.join(root, "envs", f"env{i:03d}"), i, records)
    files = sum(len(fs) for _, _, fs in os.walk(out))
    print(f"{envs} environments x {records} records, {files} files under {root}")


if __name__ == "__main__":
    main()
