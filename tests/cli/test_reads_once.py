"""Each command reads the project once: every config file (the person's own included), the session
overlay and pyproject.toml are opened at most once per command (docs/architecture.md, "How a command
reads a project"). Counted by the interpreter's own `open` audit event, which every way of opening a
file raises (`open`, `os.open`, `Path.read_text`), so a second reader cannot hide behind another call."""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_watch: dict[str, str] = {}  # real path -> the name the test knows it by
_opened: Counter[str] = Counter()


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _watch or not isinstance(args[0], str | bytes | os.PathLike):
        return
    name = _watch.get(os.path.realpath(os.fsdecode(args[0])))
    if name is not None:
        _opened[name] += 1


_installed: list[bool] = []


@pytest.fixture
def opened() -> Iterator[Counter[str]]:
    """Counts the opens of the files put in `_watch` (an audit hook cannot be removed: it is added
    once per process and counts only while a test watches)."""
    if not _installed:
        sys.addaudithook(_hook)
        _installed.append(True)
    _opened.clear()
    try:
        yield _opened
    finally:
        _watch.clear()
        _opened.clear()


@pytest.fixture
def layout(project: Path, isolated_env: dict[str, Path], write_file: Any) -> dict[str, Path]:
    """A project with a config of each kind: the person's own (with a deny the project loosens), the
    project's files, a Markdown agent, pyproject.toml check settings and a session overlay file."""
    home = isolated_env["home"]
    files = {
        "global forge.toml": write_file(home / ".config" / "forge" / "forge.toml", """
            [permission.bash]
            "rm *" = "deny"
        """),
        "forge.toml": write_file(project / "forge.toml", """
            model = "anthropic/claude-sonnet-4"

            [permission.bash]
            "git *" = "allow"
            "rm *" = "allow"  # forge-tools: ignore FT112 -- the project's own choice
        """),
        ".forge/forge.json": write_file(project / ".forge" / "forge.json",
                                        '{"agent": {"plan": {"permission": {"edit": "deny"}}}}\n'),
        "agent rev.md": write_file(project / ".forge" / "agents" / "rev.md",
                                   "---\ndescription: reviews\nmode: subagent\n---\nReview.\n"),
        "pyproject.toml": write_file(project / "pyproject.toml", """
            [tool.forge-tools.check]
            ignore = ["FT105"]
        """),
        "session.toml": write_file(project / "session.toml", '[permission]\nwebfetch = "deny"\n'),
    }
    (project / "a.txt").write_text("x\n")
    return files


def watch(files: dict[str, Path]) -> None:
    _watch.update({os.path.realpath(path): name for name, path in files.items()})


CONFIG_FILES = ("global forge.toml", "forge.toml", ".forge/forge.json", "agent rev.md")
SESSION = ("--session-permission", "session.toml")

COMMANDS: list[tuple[str, ...]] = [
    (),  # bare forge-tools: the layers table
    ("config",),
    ("config", "--show-origin"),
    ("agents",),
    ("rules", "--agent", "plan"),
    ("layers",),
    ("layers", *SESSION),
    ("layers", "--matrix", *SESSION),
    ("explain", "bash", *SESSION),
    ("explain", "bash", "--call", '{"command": "rm x"}'),
    ("run", "read", "--args", '{"filePath": "a.txt"}', *SESSION),
    ("outputs", "clean", "--dry-run"),
    ("__complete", "agents"),
    ("__complete", "tools"),
    ("check",),
    ("check", "--format", "json"),
    ("check", "--fix", "--diff"),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a) or "(bare)")
def test_each_file_is_read_once_per_command(args: tuple[str, ...], layout: dict[str, Path], cli: Any,
                                            opened: Counter[str]) -> None:
    watch(layout)
    code, out, err = cli(*args)
    assert code == 0, (out, err)
    assert {name: n for name, n in opened.items() if n > 1} == {}  # nothing read twice
    # and each was read where it matters: the config by every command, the overlay when given,
    # pyproject.toml by check alone (its [tool.forge-tools.check] settings)
    expected_config = [n for n in CONFIG_FILES if not (args[:1] == ("check",) and n == "agent rev.md")]
    for name in expected_config:
        assert opened[name] == 1, (name, dict(opened))
    assert opened["session.toml"] == (1 if "--session-permission" in args else 0)
    assert opened["pyproject.toml"] == (1 if args[:1] == ("check",) else 0)


def test_check_still_sees_the_person_s_deny_it_read_once(layout: dict[str, Path], cli: Any,
                                                         opened: Counter[str]) -> None:
    """FT112 compares the project's rules with the person's own config: from the trees read once."""
    (layout["forge.toml"]).write_text('[permission.bash]\n"*" = "ask"\n"rm *" = "allow"\n')
    watch(layout)
    code, out, _err = cli("check")
    assert "FT112" in out and "rm *" in out
    assert code == 0  # FT112 is a warning
    assert opened["global forge.toml"] == 1
    code, out, _err = cli("explain", "bash")
    assert code == 0
    assert "overrides the global deny bash 'rm *'" in out
    assert opened["global forge.toml"] == 2  # once more for the second command, not twice


def test_a_suppression_comment_is_found_in_the_text_read_once(layout: dict[str, Path], cli: Any,
                                                              opened: Counter[str]) -> None:
    watch(layout)
    code, out, _err = cli("check", "--format", "json")
    assert code == 0
    import json

    report = json.loads(out)
    assert not [f for f in report["findings"] if f["code"] in ("FT112", "FT114")]  # suppressed, and used
    assert [f["code"] for f in report["suppressed"]] == ["FT112"]
    assert opened["forge.toml"] == 1


def test_diff_reads_the_person_s_files_once_for_both_sides(layout: dict[str, Path], project: Path,
                                                           cli: Any, opened: Counter[str],
                                                           tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    (old / "forge.toml").write_text('[permission.bash]\n"*" = "ask"\n')
    overlay = tmp_path / "overlay.toml"
    overlay.write_text('[permission]\nwebfetch = "ask"\n')
    watch({**layout, "old forge.toml": old / "forge.toml", "overlay": overlay})
    code, out, err = cli("diff", str(old), str(project), "--config", str(overlay))
    assert code == 0, err
    assert "rm *" in out  # the change is seen: the new side allows it
    assert opened["global forge.toml"] == 1 and opened["overlay"] == 1
    assert opened["old forge.toml"] == 1 and opened["forge.toml"] == 1
