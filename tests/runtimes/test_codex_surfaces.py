"""Codex CLI on forge-tools' surfaces: a project whose only agent config is Codex's (`.codex/rules`,
trusted in the user's `~/.codex/config.toml`) gets Codex's answers from `explain --call` (in
forge-tools' words or Codex's), `check --expect` (`runtime: codex`), `layers --matrix --runtimes`,
`explain --runtime all` and `agents --runtimes`; real files, the real readers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import forge_tools
from forge_tools.runtimes import runtime_for

RULES = """# the repository's exec policy
prefix_rule(pattern=["git", "push"], decision="forbidden", justification="CI pushes")
prefix_rule(pattern=["git", ["status", "log"]])
prefix_rule(pattern=["npm", "run", "test*"])
"""


@pytest.fixture
def repo(project: Path, isolated_env: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    home = isolated_env["home"]
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (project / ".codex" / "rules").mkdir(parents=True)
    (project / ".codex" / "rules" / "default.rules").write_text(RULES)
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    return project


def test_a_codex_only_project_is_codex_s(repo: Path) -> None:
    chosen = runtime_for(forge_tools.load_project(repo))
    assert chosen.runtime.name == "codex" and "default.rules" in chosen.chosen_by


def test_explain_call_is_codex_s_answer_at_the_rule(cli, repo: Path) -> None:
    code, out, err = cli("explain", "bash", "--call", '{"command": "git push origin main"}')
    assert code == 0, err
    assert out.startswith("Answering: Codex CLI 0.171.0 (config: Codex CLI files only")
    assert "\nCall: DENY (Codex CLI 0.171.0's answer)" in out
    assert "default.rules:2:1" in out and "modelled" in out  # the lowering of the line is modelled
    code, out, _ = cli("explain", "exec_command", "--call", '{"cmd": "git status"}', "--format", "json")
    data = json.loads(out)
    assert data["runtime"]["name"] == "codex" and data["call"]["runtime"]["action"] == "allow"
    code, out, _ = cli("explain", "bash", "--call", '{"command": "npm run test:unit"}', "--runtime", "codex")
    assert "no rule" in out and "note: modelled" in out  # `test*` is literal: the fallback decides


def test_untrusted_project_rules_are_not_codex_s(cli, repo: Path, isolated_env: dict[str, Path]) -> None:
    (isolated_env["home"] / ".codex" / "config.toml").write_text(
        f'[projects."{repo}"]\ntrust_level = "untrusted"\n')
    _, out, _ = cli("explain", "bash", "--call", '{"command": "git push"}', "--runtime", "codex")
    # the forbidden rule is not loaded; an untrusted project's default approval asks (modelled)
    assert "\nCall: ASK (Codex CLI" in out and "unless-trusted" in out
    assert "ignored: Codex CLI does not read" in out and "default.rules" in out
    _, out, _ = cli("agents", "--runtimes", "--format", "json")
    codex = next(r for r in json.loads(out)["runtimes"] if r["name"] == "codex")
    rules = next(f for f in codex["file_scopes"] if f["path"].endswith("default.rules"))
    assert rules["what"].startswith("rules file (not read: the project") and "untrusted" in rules["what"]


def test_across_agents_names_codex_and_its_tools(cli, repo: Path) -> None:
    code, out, err = cli("explain", "bash", "--call", '{"command": "git push"}', "--runtime", "all")
    assert code == 0, err
    assert "Codex CLI deny" in out and "[as exec_command]" in out
    code, out, _ = cli("explain", "read", "--call", '{"filePath": "a.txt"}', "--runtime", "all")
    assert "Codex CLI: no such tool" in out
    edit = '{"filePath": "a.txt", "oldString": "a", "newString": "b"}'
    code, out, _ = cli("explain", "edit", "--call", edit, "--runtime", "all")
    assert "Codex CLI: no such tool" not in out and "[as apply_patch]" in out


def test_matrix_has_a_codex_column(cli, repo: Path) -> None:
    code, out, err = cli("layers", "--matrix", "--runtimes")
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("TOOL"))
    assert header.rstrip().endswith("Codex CLI 0.171.0")
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()}
    assert rows["bash"][-1] == "limited" and rows["read"][-1] == "-" and rows["edit"][-1] != "-"


def test_expect_runtime_codex(cli, repo: Path) -> None:
    (repo / "expect.yaml").write_text(
        '- {runtime: codex, call: {tool: bash, args: {command: "git push origin main"}}, expect: deny}\n'
        '- {call: {tool: exec_command, args: {cmd: "git log -1"}}, expect: allow}\n'
        '- {runtime: codex, call: {tool: bash, args: {command: "git push"}}, expect: allow}\n')
    code, out, _ = cli("check", "--expect", "expect.yaml", "--format", "json")
    results = json.loads(out)["expectations"]["results"]
    assert [r["passed"] for r in results] == [True, True, False]
    assert "got deny: codex 0.171.0: prefix_rule" in results[2]["explanation"]
    assert code == 1


def _codes(cli) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    _, out, _ = cli("check", "--format", "json")
    return [(f["code"], Path(f["location"]["path"]).name, f["location"]["line"])
            for f in json.loads(out)["findings"] if f["code"].startswith("FT32")]


def test_check_reports_literal_stars_and_rules_that_never_decide(cli, repo: Path) -> None:
    (repo / ".codex" / "rules" / "more.rules").write_text(
        'prefix_rule(pattern=["git"], decision="prompt")\n')
    codes = [c for c in _codes(cli) if c[0] != "FT327"]
    assert sorted(codes) == [("FT322", "default.rules", 4), ("FT324", "default.rules", 3)]


def test_check_reports_a_refused_file_at_its_example(cli, repo: Path) -> None:
    (repo / ".codex" / "rules" / "bad.rules").write_text(
        'prefix_rule(\n    pattern=["rm"],\n    decision="forbidden",\n'
        '    not_match=["ls", "rm -rf x"],\n)\n')
    codes = _codes(cli)
    assert ("FT321", "bad.rules", 4) in codes
    _, out, _ = cli("explain", "bash", "--call", '{"command": "git push"}', "--runtime", "codex")
    # Codex does not start while a file it reads is refused (exec-bad-* records): every call is refused
    assert "\nCall: DENY" in out and "Error loading rules" in out
    assert ("FT325", "bad.rules", 4) not in codes  # said once, by FT321 at the example


def test_check_reports_untrusted_project_files_and_values_that_stop_codex(
        cli, repo: Path, isolated_env: dict[str, Path]) -> None:
    config = isolated_env["home"] / ".codex" / "config.toml"
    config.write_text(f'[projects."{repo}"]\ntrust_level = "untrusted"\n')
    assert _codes(cli) == [("FT323", "default.rules", 1)]
    config.write_text(f'sandbox_mode = "none"\n[projects."{repo}"]\ntrust_level = "trusted"\n')
    assert _codes(cli) == [("FT325", "config.toml", 1)]


def test_agents_disagree_names_codex_s_forbidden_rule(cli, repo: Path) -> None:
    (repo / "opencode.json").write_text('{"permission": {"bash": {"*": "allow"}}}')
    _, out, _ = cli("check", "--format", "json")
    ft118 = [f for f in json.loads(out)["findings"] if f["code"] == "FT118"]
    assert any(f["data"]["denied_by"] == "codex" and f["data"]["allowed_by"] == "opencode"
               and f["location"]["line"] == 2 for f in ft118), ft118


def test_check_says_which_rules_files_it_does_not_evaluate(cli, repo: Path) -> None:
    (repo / ".codex" / "rules" / "loop.rules").write_text(
        'for p in ["git", "hg"]:\n    prefix_rule(pattern=[p, "push"], decision="forbidden")\n')
    assert ("FT326", "loop.rules", 1) in _codes(cli)


def test_rules_and_layers_answer_for_codex(cli, repo: Path) -> None:
    code, out, err = cli("rules")
    assert code == 0, err
    assert out.splitlines()[1].startswith("Codex CLI 0.171.0")
    assert "default.rules:2:1" in out and "forbidden" in out
    code, out, _ = cli("rules", "--runtime", "codex", "--format", "json")
    files = json.loads(out)["files"]
    assert [r["decision"] for r in files[0]["rules"]] == ["forbidden", "allow", "allow"]
    code, out, _ = cli("layers", "--format", "json")
    tools = {t["tool"]: t["state"] for t in json.loads(out)["tools"]}
    assert tools["exec_command"] == "limited" and tools["write_stdin"] == "allow"


def test_ft116_is_not_asked_of_codex_about_opencode_s_rules(cli, repo: Path) -> None:
    """Codex does not read opencode.json: its answers say nothing of that file's deny rules."""
    (repo / "opencode.json").write_text('{"permission": {"bash": {"*": "allow", "git push *": "deny"}}}')
    _, out, _ = cli("check", "--runtime", "codex", "--format", "json")
    assert [f for f in json.loads(out)["findings"] if f["code"] == "FT116"] == []


def test_library_call_answers_in_codex_s_words(repo: Path) -> None:
    both = forge_tools.call_answers(repo, "exec_command", {"cmd": "git push origin main"})
    assert both.chosen.runtime.name == "codex" and both.runtime.action == "deny"
    assert both.gate.refused is None  # the gate decided the same call as bash {"command"}
    assert both.runtime.to_json()["fidelity"] == "modelled"


def test_check_lists_spellings_that_get_around_a_forbidden_rule(cli, repo: Path) -> None:
    _, out, _ = cli("check", "--format", "json")
    ft327 = [f for f in json.loads(out)["findings"] if f["code"] == "FT327"]
    assert [f["location"]["line"] for f in ft327] == [2]
    forms = ft327[0]["data"]["forms"]
    assert "FOO=1 git push" in forms and "'git' push" in forms  # both recorded to run in exec-lowering
    assert "/usr/bin/git push" not in forms  # host executables are resolved: the rule matches
