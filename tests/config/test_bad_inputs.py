"""Every bad config input is one located line and exit 3 (issue 9, "Store and input faults"), for the
commands that load the config; `check` reports the same problem as a finding at the same place, and
every report format is written whole."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.config.test_config_cli import Cli, assert_config_error

DIGITS = sys.get_int_max_str_digits() + 700  # more digits than Python converts to an int


def write_bytes(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def assert_loop_error(cli: Cli, project: Path) -> None:
    """`config` names the link itself (resolving it is what fails)."""
    code, out, err = cli("config")
    assert (code, out) == (3, "") and err.count("\n") == 1, err
    assert err.startswith(f"forge-tools: error: {project.resolve() / 'forge.json'}:1:1: "), err
    assert "symlink loop" in err


def check_finds(cli: Cli, path: Path, line: int, col: int, *words: str) -> None:
    """`check` reports the problem at `path:line:col` and writes every format whole."""
    code, out, err = cli("check", "--format", "json")
    assert code == 1 and "Traceback" not in err, err
    findings = json.loads(out)["findings"]
    located = [f for f in findings if f["location"]["line"] == line and f["location"]["column"] == col]
    assert located and Path(located[0]["location"]["path"]).name == path.name, findings
    for word in words:
        assert word in located[0]["message"]
    code, out, err = cli("check", "--format", "sarif")
    assert code == 1 and err == ""
    sarif = json.loads(out)  # the whole document, not 0 bytes
    assert sarif["runs"][0]["results"]
    code, out, _ = cli("check")
    assert code == 1 and f"{line}:{col}" in out


@pytest.mark.parametrize("name,text,line,col", [
    ("forge.toml", 'model = "a/b"\n[tool_output]\nmax_lines = ' + "9" * DIGITS + "\n", 3, 13),
    ("forge.toml", 'model = "a/b"\nx = { y = [1, -' + "1" * DIGITS + "] }\n", 2, 15),
    ("forge.yaml", "model: a/b\ntool_output:\n  max_lines: " + "9" * DIGITS + "\n", 3, 14),
    ("forge.yaml", "model: a/b\nx: [1, " + "1" * DIGITS + "]\n", 2, 8),
    ("forge.json", '{"model": "a/b",\n "x": ' + "7" * DIGITS + "}\n", 2, 7),
])
def test_an_integer_with_thousands_of_digits_is_located(cli: Cli, project: Path, name: str, text: str,
                                                         line: int, col: int) -> None:
    path = write_bytes(project / name, text.encode())
    message = assert_config_error(cli, path, line, col, "digits", "too large")
    assert str(DIGITS) in message
    check_finds(cli, path, line, col, "too large")


@pytest.mark.parametrize("text,line,col", [
    (b'permission:\n  bash: "a\x00b"\n', 2, 11),
    (b"model: a/b\n\x00\n", 2, 1),
    (b"# \x00 in a comment\nmodel: a/b\n", 1, 3),
    (b"model: a/\x1bb\n", 1, 10),  # an escape character, as in a terminal control sequence
])
def test_a_nul_or_control_byte_in_yaml_is_located(cli: Cli, project: Path, text: bytes, line: int,
                                                   col: int) -> None:
    path = write_bytes(project / "forge.yaml", text)
    assert_config_error(cli, path, line, col, "invalid YAML", "does not allow")
    check_finds(cli, path, line, col, "invalid YAML")


def test_a_nul_byte_in_agent_frontmatter_is_located(cli: Cli, project: Path) -> None:
    path = write_bytes(project / ".forge" / "agent" / "review.md",
                       b'---\ndescription: reviews\nmode: "sub\x00agent"\n---\nYou review code.\n')
    assert_config_error(cli, path, 3, 11, "NUL byte")
    code, out, err = cli("check")
    assert code == 1 and "3:11" in out and "NUL byte" in out, (out, err)
    code, out, err = cli("agents")
    assert code == 3 and err.count("\n") == 1 and "review.md:3:11" in err


@pytest.mark.parametrize("text,line,col,what", [
    (b'{"permission": {"bash": {"a\x01b": "allow"}}}', 1, 28, "key"),
    (b'{\n  "permission": {\n    "\x1b[2Kedit": "deny"}}', 3, 6, "key"),
    (b'{"model": "a/b\tc"}', 1, 15, "string"),
    (b'// jsonc\n{"permission": {"bash": {"x": "allow", "y\x7f\x02": "deny",}}}', 2, 43, "key"),
])
def test_a_raw_control_character_in_a_json_string_is_located(cli: Cli, project: Path, text: bytes,
                                                             line: int, col: int, what: str) -> None:
    path = write_bytes(project / "forge.json", text)
    assert_config_error(cli, path, line, col, "raw control character", f"inside a {what}")
    check_finds(cli, path, line, col, "raw control character")


def test_json5_huge_integers_and_control_characters(cli: Cli, project: Path) -> None:
    text = "{model: 'a/b', // '9999'\n x: " + "7" * DIGITS + "}\n"
    path = write_bytes(project / "extra.json5", text.encode())
    code, _, err = cli("config", "--config", str(path))
    assert code == 3 and err.startswith(f"forge-tools: error: {path.resolve()}:2:5: invalid JSON: an integer")
    write_bytes(path, b"{model: 'a/\x01b'}\n")
    code, _, err = cli("config", "--config", str(path))
    assert code == 3 and err.startswith(f"forge-tools: error: {path.resolve()}:1:12: invalid JSON: a raw")
    write_bytes(path, b"{model: 'a/\\\nb'}\n")  # a line continuation is no raw control character
    code, out, err = cli("config", "--config", str(path), "--format", "json")
    assert code == 0, err
    assert json.loads(out)["model"] == "a/b"


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_a_config_that_is_a_symlink_loop_is_one_finding(cli: Cli, project: Path, fmt: str) -> None:
    (project / "forge.json").symlink_to("forge.json")
    assert_loop_error(cli, project)
    code, out, err = cli("check", "--format", fmt)
    assert code == 1 and "Traceback" not in err and "internal error" not in err, err
    assert "symlink loop" in out
    if fmt in ("json", "sarif"):
        json.loads(out)


def test_a_two_link_loop_is_one_finding(cli: Cli, project: Path) -> None:
    (project / "a.json").symlink_to("forge.json")
    (project / "forge.json").symlink_to("a.json")
    assert_loop_error(cli, project)
    code, out, _ = cli("check")
    assert code == 1 and "forge.json" in out and "symlink loop" in out


@pytest.mark.parametrize("kind", ["file", "missing", "broken-link"])
@pytest.mark.parametrize("command", [("config",), ("check",), ("explain", "bash"), ("layers",)])
def test_forge_config_dir_that_is_no_directory(cli: Cli, project: Path, monkeypatch: pytest.MonkeyPatch,
                                               kind: str, command: tuple[str, ...]) -> None:
    target = project / "extra"
    if kind == "file":
        target.write_text('{"permission": {"bash": "deny"}}')
    elif kind == "broken-link":
        target.symlink_to(project / "gone")
    monkeypatch.setenv("FORGE_CONFIG_DIR", os.fspath(target))
    code, out, err = cli(*command)
    assert (code, out) == (3, ""), (code, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"forge-tools: error: env FORGE_CONFIG_DIR: {target}")
    assert ("is not a directory" if kind == "file" else "does not exist") in err


def test_an_empty_forge_config_dir_is_unset(cli: Cli, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORGE_CONFIG_DIR", "")
    code, _, err = cli("config")
    assert code == 0, err
