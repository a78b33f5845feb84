"""`{env:}` and `{file:}` substituted in the raw text (issue 10, SPEC 6.1), as opencode does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def rules(cli) -> list[tuple[str, str, str]]:
    code, out, err = cli("rules", "--format", "json")
    assert code == 0, err
    return [(r["permission"], r["pattern"], r["action"]) for r in json.loads(out)["rules"]]


def test_tokens_work_in_keys_and_patterns(cli, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_DIR", "secrets")
    monkeypatch.setenv("TOOL", "webfetch")
    write(project / "cmd.txt", 'rm "-rf" *\n')
    write(project / "opencode.jsonc", '{"permission": {"read": {"{env:SECRET_DIR}/*": "deny"},\n'
                                      ' "{env:TOOL}": "deny", "bash": {"{file:cmd.txt}": "deny"},\n'
                                      ' // {file:missing.txt} on a comment line is left alone\n'
                                      ' "glob": "{env:UNSET_VAR}ask"}}')
    got = rules(cli)
    assert ("read", "secrets/*", "deny") in got and ("webfetch", "*", "deny") in got
    # the file's quotes are escaped into the JSON string (opencode does the same)
    assert ("bash", 'rm "-rf" *', "deny") in got and ("glob", "*", "ask") in got


def test_tokens_outside_strings_and_in_toml(cli, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINES", "10")
    monkeypatch.setenv("NAME", "bash")
    write(project / "forge.toml",
          '[permission]\n"{env:NAME}" = "deny"\n[tool_output]\nmax_lines = {env:LINES}\n')
    assert ("bash", "*", "deny") in rules(cli)
    code, out, err = cli("config", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["tool_output"]["max_lines"] in (10, "{env:LINES}")  # shown as written


def test_config_shows_templates_not_values(cli, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_KEY", "sk-very-secret")
    write(project / "opencode.json", '{"provider": {"x": {"options": {"apiKey": "{env:API_KEY}"}}}}')
    code, out, err = cli("config")
    assert code == 0, err
    assert "sk-very-secret" not in out and "{env:API_KEY}" in out


def test_a_substitution_that_breaks_the_syntax_is_reported_without_its_content(
        cli, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / "key.txt", "not json at all")
    monkeypatch.setenv("BROKEN", '"secret-token-123')
    write(project / "opencode.json", '{"model": "a/b", "x": {env:BROKEN}}')
    code, out, err = cli("config")
    assert code == 3 and out == ""
    assert "secret-token-123" not in err and "{env:BROKEN}" in err and "not shown" in err
    assert len(err.strip().splitlines()) == 1
    code, out, _ = cli("check", "--format", "json")
    assert code != 0 and "secret-token-123" not in out


def test_a_missing_file_is_located_at_its_token(cli, project: Path) -> None:
    path = write(project / "opencode.json", '{\n  "permission": {"read": {"{file:nope.txt}": "deny"}}\n}')
    code, _, err = cli("config")
    assert code == 3
    assert err.startswith(f"forge-tools: error: {path.resolve()}:2:28: {{file:nope.txt}}: no such file")


@pytest.mark.parametrize(("make", "reason"), [
    (lambda p: p.write_bytes(b"ok \xff\n"), "not UTF-8 text (byte 0xff); save it as UTF-8"),
    (lambda p: p.mkdir(), "it is a directory"),
    (lambda p: p.symlink_to(p), "it is a symlink loop"),
    (lambda p: p.symlink_to(p.parent / "gone.txt"), "it is a broken symlink to"),
])
def test_a_file_that_cannot_be_read_says_why_as_a_config_file_would(cli, project: Path, make,
                                                                      reason: str) -> None:
    """A `{file:}` reference and a config file are read by one reader and their failures worded by one
    function (config/files.read_failure): located at the token, one line."""
    make(project / "part.txt")
    path = write(project / "opencode.json", '{\n  "permission": {"read": {"{file:part.txt}": "deny"}}\n}')
    code, out, err = cli("config")
    assert code == 3 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"forge-tools: error: {path.resolve()}:2:28: {{file:part.txt}}: cannot read "), err
    assert reason in err, err
    (project / "opencode.json").unlink()
    (project / "opencode.json").symlink_to(project / "part.txt")
    code, _, err = cli("config")  # the config file itself, through a link to the same file: same words
    assert code == 3 and reason in err and "cannot read config file" in err, err
