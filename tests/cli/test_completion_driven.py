"""Issue 33 item 5: bash completion, driven as bash drives it (COMP_WORDS/COMP_CWORD, then the
completion function), offers each option's values from the registries: runtimes after `--runtime`,
sandbox settings after `--sandbox`, stored output ids after `outputs show`; no value twice, and no
tool names where an option's value goes."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from forge_tools.cli.completion_scripts import render
from forge_tools.runtimes import RUNTIMES
from forge_tools.runtimes.hooks import AGENTS as HOOK_AGENTS
from forge_tools.tools.sandbox import SETTINGS

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")


def complete(line: str, tmp_path: Path) -> list[str]:
    """What bash completion offers for `line` (the cursor after its last word; a trailing space
    starts a new, empty word)."""
    script = tmp_path / "forge-tools.bash"
    script.write_text(render("bash"), encoding="utf-8")
    words = shlex.split(line) + ([""] if line.endswith(" ") else [])
    array = " ".join(shlex.quote(w) for w in words)
    driver = (f"source {shlex.quote(str(script))}; COMP_WORDS=({array}); COMP_CWORD={len(words) - 1}; "
              "_forge_tools; printf '%s\\n' \"${COMPREPLY[@]}\"")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([BASH, "-c", driver], capture_output=True, text=True, timeout=60, env=env,
                          cwd=Path.cwd())
    assert done.returncode == 0, done.stderr
    return [w for w in done.stdout.splitlines() if w]


def test_runtime_takes_the_runtimes(tmp_path: Path) -> None:
    assert complete("forge-tools check --runtime ", tmp_path) == list(RUNTIMES)
    assert complete("forge-tools explain bash --runtime ", tmp_path) == [*RUNTIMES, "all"]
    assert complete("forge-tools hook install --runtime ", tmp_path) == list(HOOK_AGENTS)
    assert complete("forge-tools check --runtime c", tmp_path) == ["claude", "codex"]


def test_sandbox_takes_its_settings(tmp_path: Path) -> None:
    assert complete("forge-tools run bash --sandbox ", tmp_path) == list(SETTINGS)


def test_a_free_value_is_not_offered_tool_names(tmp_path: Path) -> None:
    assert complete("forge-tools run bash --args ", tmp_path) == []  # bash then offers file names
    assert "bash" in complete("forge-tools run ", tmp_path)


def test_no_value_is_offered_twice(tmp_path: Path) -> None:
    for line in ("forge-tools run ", "forge-tools explain ", "forge-tools run bash --", "forge-tools ",
                 "forge-tools check --"):
        offered = complete(line, tmp_path)
        assert offered and len(offered) == len(set(offered)), (line, offered)


def test_outputs_show_takes_the_stored_ids(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    import json

    (Path.cwd() / "opencode.json").write_text('{"permission": {"bash": "allow"}}')
    code, _out, err = cli("run", "bash", "--yes", "--no-sandbox", "--args",
                          json.dumps({"command": "seq 1 100000"}))
    assert code == 0, err
    code, out, _err = cli("outputs", "list", "--format", "json")
    ids = [o["id"] for o in json.loads(out)["outputs"]]
    assert ids
    assert complete("forge-tools outputs show ", tmp_path) == ids
