"""`forge-tools config` end to end: bad input gives `path:line:col: message` and exit 3; origins shown."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

Cli = Callable[..., tuple[int, str, str]]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def assert_config_error(cli, path: Path, line: int, col: int, *words: str) -> str:
    code, out, err = cli("config")
    assert code == 3, err
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"forge-tools: error: {path.resolve()}:{line}:{col}: "), err
    for word in words:
        assert word in lines[0]
    return lines[0]


@pytest.mark.parametrize(
    "name,text,line,col,words",
    [
        ("forge.json", '{\n  "model": "a",\n  "permission" {}\n}\n', 3, 16, ("invalid JSON",)),
        ("forge.jsonc", '{\n  // c\n  "model": "a",,\n}\n', 3, 15, ("invalid JSON", "trailing comma")),
        ("forge.yaml", "model: a\npermission: [ask\n", 3, 1, ("invalid YAML",)),
        ("forge.toml", 'model = "a"\npermission = {\n', 2, 15, ("invalid TOML",)),
    ],
)
def test_syntax_error_in_each_format(cli: Cli, project: Path, name: str, text: str, line: int, col: int,
                                     words: tuple[str, ...]) -> None:
    assert_config_error(cli, write(project / name, text), line, col, *words)


def test_wrong_type(cli: Cli, project: Path) -> None:
    path = write(project / "forge.json", '{\n  "agent": {\n    "plan": {"hidden": "yes"}\n  }\n}\n')
    assert_config_error(cli, path, 3, 24, "agent.plan.hidden", "expected true or false", "'yes'")


@pytest.mark.parametrize("name,text,line,col", [
    ("forge.json", '{"permission": {\n  "bash": {"git *": "allwo"}\n}}\n', 2, 21),
    ("forge.yaml", "permission:\n  bash:\n    git *: allwo\n", 3, 12),
    ("forge.toml", '[permission.bash]\n"git *" = "allwo"\n', 2, 11),
    ("forge.json", '{"permission": "allwo"}', 1, 16),
])
def test_unknown_action_has_did_you_mean(cli: Cli, project: Path, name: str, text: str, line: int,
                                         col: int) -> None:
    message = assert_config_error(cli, write(project / name, text), line, col, "unknown action 'allwo'")
    assert "did you mean 'allow'" in message


def test_unknown_top_level_key_in_forges_own_file_is_an_error(cli: Cli, project: Path) -> None:
    path = write(project / "forge.json", '{\n  "$schema": "https://opencode.ai/config.json",\n'
                                          '  "permisions": {}\n}\n')
    assert_config_error(cli, path, 3, 3, "unknown top-level key 'permisions'",
                        "did you mean 'permission'")


def test_unknown_key_in_opencode_json_is_dropped_as_opencode_drops_it(cli: Cli, project: Path) -> None:
    """issue 17: opencode 1.18.33 drops unknown keys of its files silently (tests/compat/layouts/
    config-keys); forge-tools loads the file the same way and `check` names the key (FT117)."""
    write(project / "opencode.json", '{\n  "permisions": {"bash": "deny"},\n'
                                      '  "permission": {"webfetch": "ask"}\n}\n')
    code, out, err = cli("config", "--format", "json")
    assert code == 0, err
    assert "permisions" not in json.loads(out) and json.loads(out)["permission"] == {"webfetch": "ask"}
    code, out, _ = cli("check", "--format", "json")
    found = [f for f in json.loads(out)["findings"] if f["code"] == "FT117"]
    assert len(found) == 1 and "did you mean 'permission'" in found[0]["message"]
    assert found[0]["level"] == "warning" and found[0]["location"]["line"] == 2


def test_unknown_agent_key_is_a_model_option_as_in_opencode(cli: Cli, project: Path) -> None:
    """opencode passes unknown agent keys to the model as options; an opencode.json using one loads."""
    from forge_tools.config import load_project
    from forge_tools.config.schema import agent_option_keys

    write(project / "forge.yaml", "agent:\n  review:\n    descripton: x\n    reasoningEffort: high\n")
    code, out, err = cli("agents")
    assert code == 0, err
    assert "review" in out
    found = agent_option_keys(load_project(cwd=project).tree)
    assert [(a, k, o.line, o.column, hint) for a, k, o, hint in found] == [
        ("review", "descripton", 3, 5, "description"), ("review", "reasoningEffort", 4, 5, None)]


def test_agent_settings_keep_their_types(cli: Cli, project: Path) -> None:
    path = write(project / "forge.yaml", "agent:\n  review:\n    mode: sub\n    reasoningEffort: high\n")
    assert_config_error(cli, path, 3, 11, "agent.review.mode", "'sub'")


def test_opencode_json_as_users_write_it_loads(cli: Cli, project: Path) -> None:
    write(project / "prompts" / "review.txt", "Review the change.\n")
    write(project / "opencode.json", json.dumps({
        "$schema": "https://opencode.ai/config.json",
        "model": "anthropic/claude-sonnet-4-5",
        "small_model": "anthropic/claude-haiku-4-5",
        "provider": {"anthropic": {"options": {"apiKey": "{env:ANTHROPIC_API_KEY}"}}},
        "mcp": {"docs": {"type": "remote", "url": "https://example.invalid/mcp", "enabled": True}},
        "instructions": ["CONTRIBUTING.md"],
        "permission": {
            "edit": "ask",
            "bash": {"*": "ask", "git status": "allow", "git diff *": "allow", "rm *": "deny"},
            "webfetch": "deny",
            "external_directory": {"~/src/**": "allow"},
            "doom_loop": "deny",
        },
        "tools": {"write": False},
        "agent": {
            "review": {
                "description": "Reviews code", "mode": "subagent", "model": "anthropic/claude-haiku-4-5",
                "prompt": "{file:./prompts/review.txt}", "tools": {"bash": False},
                "permission": {"edit": "deny"}, "temperature": 0.1, "color": "#FF5733",
                "reasoningEffort": "high", "textVerbosity": "low",
            },
            "plan": {"permission": {"bash": {"ls *": "allow"}}},
        },
    }, indent=2))
    for command in (("config", "--show-origin"), ("agents",), ("rules", "--agent", "review")):
        code, out, err = cli(*command)
        assert code == 0, (command, err)
    code, out, _ = cli("rules", "--agent", "review", "--format", "json")
    rules = [(r["permission"], r["pattern"], r["action"]) for r in json.loads(out)["rules"]]
    # top-level permission (its `edit` replaces the one `tools.write` gave), then the agent's, then the tail
    assert ("edit", "*", "ask") in rules and rules.count(("edit", "*", "deny")) == 1
    assert rules[-3:-1] == [("bash", "*", "deny"), ("edit", "*", "deny")]
    assert rules[-1][0] == "external_directory" and rules[-1][2] == "allow"


def test_missing_file_substitution(cli: Cli, project: Path) -> None:
    text = '{\n  "agent": {"plan": {"prompt": "{file:./prompts/plan.md}"}}\n}\n'
    path = write(project / "forge.json", text)
    assert_config_error(cli, path, 2, 33, "{file:./prompts/plan.md}", "no such file")


def test_unreadable_file_directory(cli: Cli, project: Path) -> None:
    (project / "forge.json").mkdir()
    assert_config_error(cli, project / "forge.json", 1, 1, "cannot read config file", "directory")


def test_unreadable_file_permission(cli: Cli, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(project / "forge.json", '{"model": "a"}')
    if os.geteuid() != 0:
        path.chmod(0)
    else:  # root reads anything: make the read fail the way a mode-000 file does for a user
        from forge_tools.config import files

        real = files.os.open

        def denied(name: Any, *args: Any, **kwargs: Any) -> int:
            if str(name).endswith("forge.json"):
                raise PermissionError(13, "Permission denied", str(name))
            return real(name, *args, **kwargs)

        monkeypatch.setattr(files.os, "open", denied)
    try:
        assert_config_error(cli, path, 1, 1, "cannot read config file: Permission denied")
    finally:
        path.chmod(0o644)


@pytest.mark.parametrize("name,text,line,col", [
    ("forge.json", '{\n  "permission": {\n    "bash": "ask",\n    "bash": "allow"\n  }\n}\n', 4, 5),
    ("forge.yaml", "permission:\n  bash: ask\n  edit: deny\n  bash: allow\n", 4, 3),
])
def test_duplicate_key(cli: Cli, project: Path, name: str, text: str, line: int, col: int) -> None:
    assert_config_error(cli, write(project / name, text), line, col, "duplicate key 'bash'",
                        "first at line")


def test_bad_overlay_stops_everything(cli: Cli, project: Path) -> None:
    write(project / "forge.json", '{"model": "a/b"}')
    bad = write(project / "over.yaml", "model: [1\n")
    code, out, err = cli("config", "--config", str(bad))
    assert code == 3 and out == ""
    assert f"{bad.resolve()}:2:1: invalid YAML" in err


def test_env_source_error_names_the_variable(cli: Cli, project: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORGE_PERMISSION", '{"bash": "allwo"}')
    code, _, err = cli("config")
    assert code == 3
    assert err.startswith("forge-tools: error: env FORGE_PERMISSION: ")
    assert "did you mean 'allow'" in err and "1:10" in err


def test_unknown_format_is_a_usage_error(cli: Cli, project: Path) -> None:
    code, _, err = cli("config", "--format", "xml")
    assert code == 2 and "--format" in err


# ------------------------------------------------------------------------------------ show-origin

TOML_PROJECT = """model = "anthropic/claude"

[permission]
"*" = "ask"
edit = "deny"

[permission.bash]
"git *" = "allow"
"rm *" = "deny"

[agent.plan]
mode = "primary"
"""

YAML_PROJECT = """model: anthropic/claude
permission:
  "*": ask
  edit: deny
  bash:
    "git *": allow
    "rm *": deny
agent:
  plan:
    mode: primary
"""

OPENCODE_PROJECT = """{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude",
  "permission": {
    "*": "ask",
    "edit": "deny",
    "bash": {"git *": "allow", "rm *": "deny"}
  },
  "agent": {"plan": {"mode": "primary"}}
}
"""

#: key path -> (line, the value as written there); the column is found in the text, the line is known
EXPECTED = {
    "forge.toml": {"model": (1, '"anthropic'), 'permission."*"': (4, '"ask"'),
                   "permission.edit": (5, '"deny"'),
                   'permission.bash."git *"': (8, '"allow"'), 'permission.bash."rm *"': (9, '"deny"'),
                   "agent.plan.mode": (12, '"primary"')},
    "forge.yaml": {"model": (1, "anthropic"), 'permission."*"': (3, "ask"), "permission.edit": (4, "deny"),
                   'permission.bash."git *"': (6, "allow"), 'permission.bash."rm *"': (7, "deny"),
                   "agent.plan.mode": (10, "primary")},
    "opencode.json": {"model": (3, '"anthropic'), 'permission."*"': (5, '"ask"'),
                      "permission.edit": (6, '"deny"'),
                      'permission.bash."git *"': (7, '"allow"'), 'permission.bash."rm *"': (7, '"deny"'),
                      "agent.plan.mode": (9, '"primary"')},
}
TEXTS = {"forge.toml": TOML_PROJECT, "forge.yaml": YAML_PROJECT, "opencode.json": OPENCODE_PROJECT}


def expected_at(name: str, key: str) -> tuple[int, int]:
    line, written = EXPECTED[name][key]
    return line, TEXTS[name].splitlines()[line - 1].index(written) + 1


@pytest.mark.parametrize("name,text", [("forge.toml", TOML_PROJECT), ("forge.yaml", YAML_PROJECT),
                                       ("opencode.json", OPENCODE_PROJECT)])
def test_show_origin_text(cli: Cli, project: Path, name: str, text: str) -> None:
    path = write(project / name, text).resolve()
    code, out, err = cli("config", "--show-origin")
    assert code == 0, err
    assert f"1. project: {path}" in out
    values = {}
    for line in out.splitlines():
        if line.startswith("#"):
            continue
        left, origin = line.rsplit("  # ", 1)
        key, value = left.split(" = ", 1)
        values[key] = (json.loads(value), origin)
    for key in EXPECTED[name]:
        ln, col = expected_at(name, key)
        assert values[key][1] == f"{path}:{ln}:{col}", key
    order = [k for k in values if k.startswith("permission")]
    assert order == ['permission."*"', "permission.edit", 'permission.bash."git *"', 'permission.bash."rm *"']
    assert values["permission.edit"][0] == "deny"


@pytest.mark.parametrize("name,text", [("forge.toml", TOML_PROJECT), ("forge.yaml", YAML_PROJECT),
                                       ("opencode.json", OPENCODE_PROJECT)])
def test_show_origin_json(cli: Cli, project: Path, name: str, text: str) -> None:
    path = write(project / name, text).resolve()
    code, out, _ = cli("config", "--show-origin", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["sources"] == [{"step": "project", "source": str(path)}]
    rm = data["config"]["permission"]["bash"]["rm *"]
    assert rm["value"] == "deny"
    assert (rm["origin"]["path"], rm["origin"]["line"], rm["origin"]["column"]) == (
        str(path), *expected_at(name, 'permission.bash."rm *"'))
    assert list(data["config"]["permission"]) == ["*", "edit", "bash"]


@pytest.mark.parametrize("fmt", ["json", "yaml", "toml"])
def test_plain_formats_round_trip_in_order(cli: Cli, project: Path, fmt: str) -> None:
    write(project / "forge.json", '{"permission": {"bash": {"git *": "allow"}, "*": "deny", "read": "ask"},'
                                  ' "experimental": {"x": null}, "model": "a/b"}')
    code, out, _ = cli("config", "--format", fmt)
    assert code == 0
    readers: dict[str, Callable[[str], Any]] = {
        "json": json.loads, "yaml": yaml.safe_load, "toml": tomllib.loads}
    data = readers[fmt](out)
    assert list(data["permission"]) == ["bash", "*", "read"]
    assert data["model"] == "a/b"
    if fmt == "toml":
        assert "x" not in data["experimental"] and "# experimental.x = null" in out
    else:
        assert data["experimental"]["x"] is None


def test_no_config_says_so(cli: Cli, project: Path) -> None:
    code, out, _ = cli("config")
    assert code == 0
    assert "built-in defaults apply" in out


def test_overlays_apply_in_order_and_are_listed(cli: Cli, project: Path) -> None:
    write(project / "forge.json", '{"model": "p/base"}')
    a = write(project / "a.toml", 'model = "p/a"\n')
    b = write(project / "b.yaml", "model: p/b\n")
    code, out, _ = cli("config", "-c", str(a), "--config", str(b), "--show-origin")
    assert code == 0
    assert f'model = "p/b"  # {b.resolve()}:1:8' in out
    assert out.index(f"--config: {a.resolve()}") < out.index(f"--config: {b.resolve()}")


def test_same_config_in_every_format_loads_the_same(cli: Cli, project: Path) -> None:
    results = []
    for name, text in TEXTS.items():
        path = write(project / name, text)
        code, out, _ = cli("config", "--format", "json")
        assert code == 0
        data = json.loads(out)
        data.pop("$schema", None)
        results.append(data)
        path.unlink()
    assert results[0] == results[1] == results[2]
    assert list(results[0]["permission"]) == ["*", "edit", "bash"]


def test_project_that_is_not_a_directory_is_a_usage_error(cli: Cli, project: Path) -> None:
    code, out, err = cli("config", "--project", str(project / "missing"))
    assert code == 2 and out == ""
    assert "--project" in err and "Traceback" not in err


def test_non_utf8_byte_is_located(cli: Cli, project: Path) -> None:
    path = project / "forge.json"
    path.write_bytes('{\n  "model": "naïve \xe9"}'.encode().replace(b"\xc3\xa9", b"\xe9"))
    assert_config_error(cli, path, 2, 19, "not UTF-8 text", "0xe9")  # ï is one column


@pytest.mark.parametrize("name,data,line,col", [
    ("forge.json", b'\xef\xbb\xbf{\r\n\t"permission": {\r\n\t\t"bash": "alow"}}', 3, 11),
    ("forge.yaml", b"\xef\xbb\xbfpermission:\r\n\tbash: alow\r\n", 2, 1),
    ("forge.yaml", b"permission:\r\n  bash:   alow\r\n", 2, 11),
    ("forge.toml", b'\xef\xbb\xbf[permission]\r\n\tbash = "alow"\r\n', 2, 9),
])
def test_bom_crlf_and_tabs_keep_columns(cli: Cli, project: Path, name: str, data: bytes, line: int,
                                        col: int) -> None:
    """A tab is one column, CRLF is one line end, a byte-order mark takes no column."""
    path = project / name
    path.write_bytes(data)
    assert_config_error(cli, path, line, col)


@pytest.mark.parametrize("name,text", [
    ("forge.json", "[]"), ("forge.json", '"allow"'), ("forge.yaml", "- a\n"), ("forge.json", "5"),
])
def test_top_level_must_be_a_mapping(cli: Cli, project: Path, name: str, text: str) -> None:
    assert_config_error(cli, write(project / name, text), 1, 1, "must be a mapping")


def test_permission_as_a_number(cli: Cli, project: Path) -> None:
    path = write(project / "forge.json", '{\n\t"permission": 5\n}')
    assert_config_error(cli, path, 2, 16, "permission: expected an action")


@pytest.mark.parametrize("var,value,words", [
    ("FORGE_CONFIG_CONTENT", "{bad", ("env FORGE_CONFIG_CONTENT", "invalid JSON", "1:5 of the value")),
    ("FORGE_CONFIG_CONTENT", "[1]", ("env FORGE_CONFIG_CONTENT", "must be a mapping")),
    ("FORGE_PERMISSION", '{"bash": "nope"}', ("env FORGE_PERMISSION", "unknown action 'nope'")),
    ("FORGE_PERMISSION", "5", ("env FORGE_PERMISSION", "expected an action")),
])
def test_bad_inline_json_in_environment(cli: Cli, project: Path, monkeypatch: pytest.MonkeyPatch, var: str,
                                        value: str, words: tuple[str, ...]) -> None:
    monkeypatch.setenv(var, value)
    code, out, err = cli("rules")
    assert (code, out) == (3, ""), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    for word in words:
        assert word in err


@pytest.mark.parametrize("fmt", ["text", "json", "yaml", "toml"])
@pytest.mark.parametrize("show_origin", [False, True])
def test_config_never_prints_substituted_values(cli: Cli, project: Path, monkeypatch: pytest.MonkeyPatch,
                                                fmt: str, show_origin: bool) -> None:
    """`{env:}` and `{file:}` are how API keys get into a config; `config` output often lands in logs."""
    monkeypatch.setenv("SECRET_KEY", "sk-live-123")
    write(project / "key.txt", "file-secret-456\n")
    write(project / "forge.json", json.dumps({
        "provider": {"x": {"options": {"apiKey": "{env:SECRET_KEY}", "other": "{file:key.txt}"}}},
        "model": "x/{env:SECRET_KEY}",
    }))
    code, out, err = cli("config", "--format", fmt, *(["--show-origin"] if show_origin else []))
    assert code == 0, err
    assert "sk-live-123" not in out and "file-secret-456" not in out
    assert "{env:SECRET_KEY}" in out and "{file:key.txt}" in out
    if fmt == "text":
        assert "substituted from env SECRET_KEY; value not shown" in out
    # the value itself is what the engine uses
    from forge_tools.config import load_project

    assert load_project(cwd=project).data.model == "x/sk-live-123"


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="POSIX only")
@pytest.mark.parametrize("kind", ["config-is-device", "config-is-pipe", "file-is-device", "file-is-pipe"])
def test_devices_and_pipes_are_refused_not_read(cli: Cli, project: Path, kind: str) -> None:
    """A cloned project must not make `config` hang on a pipe or read /dev/zero until memory runs out."""
    target = project / "pipe"
    if kind.endswith("pipe"):
        os.mkfifo(target)
    else:
        target = Path("/dev/zero")
    if kind.startswith("config"):
        (project / "forge.json").symlink_to(target)
        code, out, err = cli("config")
        assert (code, out) == (3, ""), err
        assert err.startswith(f"forge-tools: error: {project.resolve() / 'forge.json'}:1:1: ")
        assert "not a regular file" in err and len(err.strip().splitlines()) == 1
    else:
        path = write(project / "forge.json", json.dumps({"model": f"{{file:{target}}}"}))
        assert_config_error(cli, path, 1, 12, "not a regular file")


def test_toml_refuses_a_null_inside_a_list_naming_its_key_path(cli: Cli, project: Path) -> None:
    write(project / "forge.json", '{"provider": {"my server": {"command": [1, "b", null]}}}')
    code, out, err = cli("config", "--format", "toml")
    assert code == 2 and out == ""
    assert 'provider."my server".command[2] is null' in err and "TOML has no null" in err
    assert "Traceback" not in err
    code, out, _ = cli("config", "--format", "json")
    assert code == 0 and json.loads(out)["provider"]["my server"]["command"] == [1, "b", None]


def test_key_paths_are_quoted_the_same_in_errors_and_in_config(cli: Cli, project: Path) -> None:
    write(project / "forge.json", '{"permission": {"bash": {"rm *": "allow"}}}')
    code, out, _ = cli("config")
    assert code == 0 and 'permission.bash."rm *" = "allow"' in out
    write(project / "forge.json", '{"permission": {"bash": {"rm *": "dney"}}}')
    code, _, err = cli("config")
    assert code == 3 and 'permission.bash."rm *": unknown action' in err
    write(project / "forge.json", '{"agent": {"my agent": {"mode": "sideways"}}}')
    code, _, err = cli("config")
    assert code == 3 and 'agent."my agent".mode' in err
    (project / "forge.json").unlink()
    write(project / "forge.toml", '[permission.bash]\n"rm *" = "dney"\n')
    code, _, err = cli("config")
    assert code == 3 and 'permission.bash."rm *"' in err


def test_a_misspelt_choice_gets_a_did_you_mean(project, cli) -> None:
    (project / "opencode.json").write_text('{"agent": {"x": {"mode": "primry"}}}')
    code, _, err = cli("agents")
    assert code == 3
    assert "opencode.json:1:26" in err and "(did you mean 'primary'?)" in err


def test_a_bad_substituted_value_is_reported_without_showing_it(project, cli, monkeypatch) -> None:
    monkeypatch.setenv("MYSECRET", "TOPSECRET")
    (project / "opencode.json").write_text('{"permission": {"bash": "{env:MYSECRET}"}}')
    code, _, err = cli("rules")
    assert code == 3
    assert "TOPSECRET" not in err
    assert "{env:MYSECRET}" in err and "unknown action" in err and "opencode.json:1:25" in err


# every number setting of the schema; JSON5, YAML and TOML can each write a NaN or an infinity, which
# no setting means (opencode's JSONC reader refuses them outright)
NUMBER_SETTINGS = [
    (("tool_output", "max_lines"), "1"), (("tool_output", "max_bytes"), "1"),
    (("tool_output", "retention_days"), "1"),
    (("agent", "build", "temperature"), "0.5"), (("agent", "build", "top_p"), "0.5"),
    (("agent", "build", "steps"), "1"), (("agent", "build", "maxSteps"), "1"),
    (("mode", "build", "temperature"), "0.5"),
    (("mcp", "x", "timeout"), "1000"), (("subagent_depth",), "1"),
]


def _json_with(keys: tuple[str, ...], value: str) -> str:
    extra = {"mcp": '"type": "local", "command": ["true"], '}.get(keys[0], "")
    inner = f'"{keys[-1]}": {value}'
    for depth, key in enumerate(reversed(keys[:-1])):
        inner = f'"{key}": {{{extra if depth == 0 else ""}{inner}}}'
    return "{\n  " + inner + "\n}\n"


@pytest.mark.parametrize("keys,fine", NUMBER_SETTINGS,
                         ids=lambda v: ".".join(v) if isinstance(v, tuple) else v)
@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "+Infinity", "1e999"])
def test_nan_and_infinity_are_a_located_config_error_for_every_number_setting(
        cli: Cli, project: Path, keys: tuple[str, ...], fine: str, bad: str) -> None:
    path = write(project / "forge.json", _json_with(keys, fine))
    code, _out, err = cli("config")
    assert code == 0, err
    text = _json_with(keys, bad)
    write(path, text)
    col = text.splitlines()[1].index(bad) + 1
    line = assert_config_error(cli, path, 2, col, ".".join(keys))
    assert "finite" in line or "integer" in line, line


@pytest.mark.parametrize("name,text,col", [
    ("forge.yaml", "agent:\n  build:\n    temperature: .nan\n", 18),
    ("forge.yaml", "agent:\n  build:\n    top_p: -.inf\n", 12),
    ("forge.toml", "[agent.build]\ntemperature = nan\n", 15),
    ("forge.toml", "[agent.build]\ntemperature = +inf\n", 15),
])
def test_nan_and_infinity_in_yaml_and_toml_are_refused_too(cli: Cli, project: Path, name: str, text: str,
                                                           col: int) -> None:
    path = write(project / name, text)
    line_no = len(text.splitlines())
    assert "finite" in assert_config_error(cli, path, line_no, col, "agent.build.")
