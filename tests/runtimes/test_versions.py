"""Issue 29 item 3: the installed version is read from files beside the program on PATH (nothing is
run), said in `agents --runtimes` and on the answer's first line; one not modelled is one warning line
naming both; `--runtime NAME@VERSION` pins a kept version. Fake PATH dirs with npm layouts, never the
real agents."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from forge_tools.errors import UsageError
from forge_tools.runtimes import get_runtime
from forge_tools.runtimes.versions import MODELLED, installed, version_note


def _npm(root: Path, package: str, version: str, program: str, entry: str) -> Path:
    """`root/node_modules/<package>/package.json` and `root/node_modules/.bin/<program>` -> its entry."""
    pkg = root / "node_modules" / package
    (pkg / Path(entry).parent).mkdir(parents=True, exist_ok=True)
    (pkg / "package.json").write_text(json.dumps({"name": package, "version": version}))
    (pkg / entry).write_text("#!/bin/sh\nexit 99\n")  # never run: running it would fail the test
    (pkg / entry).chmod(0o755)
    bin_dir = root / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(pkg / entry, bin_dir), bin_dir / program)
    return bin_dir


def test_installed_reads_package_json_through_symlinks(tmp_path: Path) -> None:
    bin_dir = _npm(tmp_path, "@openai/codex", "0.171.0", "codex", "bin/codex.js")
    found = installed("codex", {"PATH": str(bin_dir)})
    assert found is not None and found.version == "0.171.0"
    assert found.source.endswith("node_modules/@openai/codex/package.json")
    assert installed("codex", {"PATH": str(tmp_path / "nowhere")}) is None


def test_a_version_named_file_is_the_version(tmp_path: Path) -> None:
    """Claude Code's native installer: ~/.local/bin/claude -> ~/.local/share/claude/versions/2.1.400."""
    versions = tmp_path / "share" / "claude" / "versions"
    versions.mkdir(parents=True)
    (versions / "2.1.400").write_text("")
    (versions / "2.1.400").chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(versions / "2.1.400", bin_dir / "claude")
    found = installed("claude", {"PATH": str(bin_dir)})
    assert found is not None and found.version == "2.1.400"


def test_a_package_of_another_name_is_not_the_agent(tmp_path: Path) -> None:
    bin_dir = _npm(tmp_path, "not-gemini", "9.9.9", "gemini", "bin/gemini.js")
    assert installed("gemini", {"PATH": str(bin_dir)}) is None


def test_not_modelled_is_one_warning_naming_both(tmp_path: Path) -> None:
    runtime = get_runtime("gemini")
    bin_dir = _npm(tmp_path, "@google/gemini-cli", "0.62.1", "gemini", "bundle/gemini.js")
    note, warning = version_note(runtime, {"PATH": str(bin_dir)})
    assert note == "installed: 0.62.1, not modelled"
    assert warning is not None and "0.62.1" in warning and runtime.version in warning
    assert "\n" not in warning
    same = _npm(tmp_path / "b", "@google/gemini-cli", runtime.version, "gemini", "bundle/gemini.js")
    assert version_note(runtime, {"PATH": str(same)}) == (f"installed: {runtime.version}", None)


def test_every_runtime_models_its_own_version() -> None:
    for name in ("opencode", "claude", "codex", "gemini"):
        assert get_runtime(name).version in MODELLED[name]


def test_a_pin_selects_a_kept_version_and_refuses_others() -> None:
    assert get_runtime("codex@0.169.0").version == "0.169.0"
    assert get_runtime("codex").version == MODELLED["codex"][0]  # the pin changed no shared runtime
    with pytest.raises(UsageError, match=r"codex 0\.150\.0 is not modelled; modelled: 0\.171\.0, 0\.169\.0"):
        get_runtime("codex@0.150.0")


def test_first_line_and_agents_name_both_versions(cli, project: Path, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                  isolated_env, monkeypatch) -> None:
    home = isolated_env["home"]
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    (project / ".codex").mkdir()
    (project / ".codex" / "config.toml").write_text('approval_policy = "on-request"\n')
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    bin_dir = _npm(tmp_path / "agents", "@openai/codex", "0.172.3", "codex", "bin/codex.js")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    code, out, _ = cli("explain", "bash", "--call", json.dumps({"command": "ls"}))
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("Answering: Codex CLI 0.171.0 (config:")
    assert lines[0].endswith("; installed: 0.172.3, not modelled")
    assert lines[1].startswith("warning: Codex CLI 0.172.3 is installed") and "answers as 0.171.0" in lines[1]
    code, out, _ = cli("agents", "--runtimes")
    row = next(line for line in out.splitlines() if line.startswith("Codex CLI 0.171.0"))
    assert "0.169.0" in row and "0.172.3" in row
    assert any(line.startswith("warning: Codex CLI 0.172.3") for line in out.splitlines())
    ls = json.dumps({"command": "ls"})
    code, out, _ = cli("explain", "bash", "--call", ls, "--runtime", "codex@0.169.0")
    assert out.splitlines()[0].startswith("Answering: Codex CLI 0.169.0 (--runtime)")
    data = json.loads(cli("agents", "--runtimes", "--format", "json")[1])
    codex = next(r for r in data["runtimes"] if r["name"] == "codex")
    assert codex["modelled"] == ["0.171.0", "0.169.0"] and codex["installed"] == "0.172.3"


def test_a_pinned_claude_names_its_version_in_the_answer(cli, project: Path, isolated_env,  # type: ignore[no-untyped-def]
                                                          monkeypatch) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}}))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(isolated_env["home"] / ".claude"))
    rm = json.dumps({"command": "rm -rf x"})
    for version in MODELLED["claude"]:
        pin = f"claude@{version}"
        code, out, _ = cli("explain", "Bash", "--call", rm, "--format", "json", "--runtime", pin)
        data = json.loads(out)
        assert code == 0 and data["runtime"]["version"] == version
        assert data["call"]["runtime"]["version"] == version and data["call"]["action"] == "deny"
