"""The plugin's hooks, against conda's documented signatures, calling the
real envhook binary on environments laid out like conda's."""

import inspect
import json
import os
from pathlib import Path

import pytest

from conda.base.context import context
from conda_envhook import plugin

FIXTURE_SO = Path(__file__).resolve().parents[3] / "tests" / "it" / "support" / "fixture.so"


def make_env(prefix: Path, with_cudnn_file=True) -> Path:
    """A CUDA 11 environment: cudatoolkit and cudnn records with their files."""
    meta = prefix / "conda-meta"
    meta.mkdir(parents=True)
    (meta / "history").write_text("==> 2024-06-01 10:00:00 <==\n")
    packages = [
        ("cudatoolkit", "11.8.0", "h4ba93d1_13", ["lib/libcudart.so.11.0"]),
        ("cudnn", "8.9.2.26", "cuda11_0", ["lib/libcudnn.so.8"]),
    ]
    for name, version, build, files in packages:
        for rel in files:
            if name == "cudnn" and not with_cudnn_file:
                continue
            path = prefix / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(FIXTURE_SO.read_bytes())
        fn = f"{name}-{version}-{build}"
        record = {
            "name": name, "version": version, "build": build, "build_number": 0,
            "channel": "https://conda.anaconda.org/conda-forge/", "subdir": "linux-64",
            "fn": f"{fn}.conda", "url": f"https://conda.anaconda.org/conda-forge/linux-64/{fn}.conda",
            "depends": [], "files": files, "paths_data": {"paths": [], "paths_version": 1},
        }
        (meta / f"{fn}.json").write_text(json.dumps(record))
    return prefix


@pytest.fixture
def env(tmp_path, monkeypatch):
    prefix = make_env(tmp_path / "envs" / "cuda11")
    monkeypatch.setattr(context, "target_prefix", str(prefix))
    return prefix


def envhook(*args):
    import subprocess

    return subprocess.run([os.environ["ENVHOOK_BIN"], *args], capture_output=True, text=True)


def test_hooks_have_the_documented_shapes():
    (sub,) = list(plugin.conda_subcommands())
    assert sub.name == "envhook" and sub.summary
    # No configure_parser: conda passes the remaining argv as a tuple.
    assert sub.configure_parser is None
    assert list(inspect.signature(sub.action).parameters) == ["args"]
    (post,) = list(plugin.conda_post_commands())
    assert {"install", "update", "remove"} <= post.run_for
    assert list(inspect.signature(post.action).parameters) == ["command"]
    (check,) = list(plugin.conda_health_checks())
    assert list(inspect.signature(check.action).parameters) == ["prefix", "verbose"]


def test_refresh_only_where_envhook_installed_hooks(env):
    hook = env / "etc" / "conda" / "activate.d" / "envhook.sh"
    plugin.refresh_after("install")
    assert not hook.exists(), "the plugin never installs hooks on its own"
    assert envhook("install", "-p", str(env)).returncode == 0
    first = hook.read_text()
    # `conda install nccl` in the environment, then the post-command hook.
    (env / "lib" / "libnccl.so.2").write_bytes(FIXTURE_SO.read_bytes())
    record = {
        "name": "nccl", "version": "2.18.3.1", "build": "h12f7317_0", "build_number": 0,
        "channel": "https://conda.anaconda.org/conda-forge/", "subdir": "linux-64",
        "fn": "nccl-2.18.3.1-h12f7317_0.conda",
        "url": "https://conda.anaconda.org/conda-forge/linux-64/nccl-2.18.3.1-h12f7317_0.conda",
        "files": ["lib/libnccl.so.2"],
    }
    (env / "conda-meta" / "nccl-2.18.3.1-h12f7317_0.json").write_text(json.dumps(record))
    plugin.refresh_after("list")
    assert hook.read_text() == first, "commands that change nothing do nothing"
    plugin.refresh_after("install")
    assert hook.read_text() != first
    assert (env / "lib" / "envhook" / "cuda" / "libnccl.so.2").exists()


def test_health_check_reports(env, capsys):
    plugin.health_check(str(env), False)
    out = capsys.readouterr().out
    assert out.startswith("✅ envhook: no problems found"), out
    # No driver here: said, not passed off as checked.
    assert "the driver was not checked" in out
    assert out.endswith("\n\n"), "a blank line after, as conda's own checks"
    (env / "lib" / "libcudnn.so.8").unlink()
    plugin.health_check(str(env), False)
    out = capsys.readouterr().out
    assert out.startswith("❌ envhook: problems with the CUDA stack:"), out
    assert "broken-install" in out
    # Without -v, an info's fix line is not shown under another finding.
    assert "info[" not in out and "--driver-version" not in out, out
    plugin.health_check(str(env), True)
    assert "info[no-driver]" in capsys.readouterr().out


def test_doctor_keeps_each_fix_with_its_finding():
    text = (
        "environment  x\n"
        "\n"
        "warning[stale-hook]: the packages changed\n"
        "    fix: envhook install -p x\n"
        "info[no-driver]: no NVIDIA driver\n"
        "    fix: to check for another machine, pass --driver-version\n"
        "error[broken-install]: files missing\n"
        "    fix: conda install --force-reinstall cudnn\n"
    )
    assert plugin._shown_findings(text, False) == [
        "warning[stale-hook]: the packages changed",
        "    fix: envhook install -p x",
        "error[broken-install]: files missing",
        "    fix: conda install --force-reinstall cudnn",
    ]
    assert plugin._shown_findings(text, True) == text.splitlines()


def test_subcommand_targets_condas_environment(env, capfd):
    assert plugin.envhook_subcommand(("show", "--json")) == 0
    out = capfd.readouterr().out
    assert json.loads(out)["prefix"] == str(env)
    # An explicit -p wins.
    other = make_env(env.parent / "other")
    assert plugin.envhook_subcommand(("show", "--json", "-p", str(other))) == 0
    assert json.loads(capfd.readouterr().out)["prefix"] == str(other)
    # `run`: the prefix goes before `--`, the command stays as given.
    assert plugin._with_target(["run", "--", "python", "-p", "x"]) == [
        "run", "-p", str(env), "--", "python", "-p", "x"]
    assert plugin._with_target(["run", "-n", "a", "--", "x"]) == ["run", "-n", "a", "--", "x"]
    assert envhook("install", "-p", str(env)).returncode == 0
    assert plugin.envhook_subcommand(("run", "--", "sh", "-c", 'printf %s "$CONDA_PREFIX"')) == 0
    assert capfd.readouterr().out == str(env)


def test_unrunnable_envhook_bin_is_reported(env, monkeypatch, capsys):
    monkeypatch.setenv("ENVHOOK_BIN", "/nonexistent/envhook")
    assert plugin.envhook_subcommand(("show",)) == 2
    assert "cannot run /nonexistent/envhook" in capsys.readouterr().err


def test_binary_beside_condas_python_is_found(tmp_path, monkeypatch):
    # `pip install envhook` into conda's base: bin/envhook beside bin/python,
    # with that bin/ not on PATH.
    scripts = tmp_path / "base" / "bin"
    scripts.mkdir(parents=True)
    (scripts / "envhook").symlink_to(os.environ["ENVHOOK_BIN"])
    monkeypatch.delenv("ENVHOOK_BIN")
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(plugin.sysconfig, "get_path", lambda name: str(scripts))
    assert plugin.envhook_binary() == str(scripts / "envhook")
    # A file that is not executable there is not taken for it.
    (scripts / "envhook").unlink()
    (scripts / "envhook").write_text("")
    assert plugin.envhook_binary() is None


def test_missing_binary_is_reported(env, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ENVHOOK_BIN")
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(plugin.sysconfig, "get_path", lambda name: str(tmp_path / "nowhere"))
    assert plugin.envhook_subcommand(("show",)) == 2
    err = capsys.readouterr().err
    assert "envhook is not installed: pip install envhook" in err
    plugin.health_check(str(env), False)
    assert "envhook is not installed" in capsys.readouterr().out


def test_main_says_conda_loads_the_plugin(monkeypatch, capsys):
    from conda_envhook import __main__ as check

    monkeypatch.setattr(check, "_registered", lambda: True)
    assert check.main() == 0
    out = capsys.readouterr().out
    assert "loads conda-envhook" in out
    assert f"envhook: {os.environ['ENVHOOK_BIN']}" in out
    # Installed, but not where this Python's conda reads entry points.
    monkeypatch.setattr(check, "_registered", lambda: False)
    assert check.main() == 1
    assert "-m pip install --force-reinstall conda-envhook" in capsys.readouterr().err


def test_main_without_conda_names_where_to_install(tmp_path, monkeypatch, capsys):
    import sys

    from conda_envhook import __main__ as check

    # No conda in this Python, as after `pip install conda-envhook` into a
    # venv: the plugin API cannot be imported.
    for name in [m for m in sys.modules if m == "conda" or m.startswith("conda.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "conda", None)
    base = tmp_path / "miniconda3"
    monkeypatch.setenv("CONDA_EXE", str(base / "bin" / "conda"))
    assert check.main() == 1
    err = capsys.readouterr().err
    assert "has no conda with plugins" in err
    assert f"{base / 'bin' / 'python'} -m pip install conda-envhook" in err
    monkeypatch.delenv("CONDA_EXE")
    assert check.main() == 1
    assert '"$(conda info --base)/bin/python" -m pip install conda-envhook' in capsys.readouterr().err
