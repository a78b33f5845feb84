"""Issue 33 item 6: the papercuts a newcomer meets, each with a test that failed before the change."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


def _commit(project: Path, config: dict[str, object], message: str) -> None:
    (project / "opencode.json").write_text(json.dumps(config))
    subprocess.run([*GIT, "add", "-A"], cwd=project, check=True, capture_output=True)
    subprocess.run([*GIT, "commit", "-qm", message], cwd=project, check=True, capture_output=True)


def test_diff_compares_two_commits(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    import shutil

    shutil.rmtree(project / ".git")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    _commit(project, {"permission": {"bash": "allow"}}, "one")
    _commit(project, {"permission": {"bash": "ask"}}, "two")
    _commit(project, {"permission": {"bash": "deny"}}, "three")
    code, out, err = cli("diff", "HEAD~2", "HEAD", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["old"]["root"] == "git HEAD~2" and data["new"]["root"] == "git HEAD"
    assert '"allow"' in out and '"deny"' in out
    code, _out, err = cli("diff", "HEAD~1", "no-such-ref")
    assert code == 2 and "NEW: 'no-such-ref' is not a commit" in err


def _codex_project(project: Path, config: str, rules: str = "") -> None:
    import os

    home = Path(os.environ["HOME"])
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n')
    (project / ".codex").mkdir(exist_ok=True)
    (project / ".codex" / "config.toml").write_text(config)
    if rules:
        (project / ".codex" / "rules").mkdir(exist_ok=True)
        (project / ".codex" / "rules" / "default.rules").write_text(rules)


def _findings(cli, *args: str) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    _code, out, _err = cli("check", "--format", "json", *args)
    return list(json.loads(out)["findings"])


def test_ft325_names_the_values(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _codex_project(project, 'sandbox_mode = "bogus"\n')
    [finding] = [f for f in _findings(cli) if f["code"] == "FT325"]
    assert finding["hint"] == ("set `sandbox_mode` to one of `read-only`, `workspace-write`, "
                               "`danger-full-access`")


def test_ft327_does_not_suggest_what_is_set(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    rule = 'prefix_rule(pattern=["git", "push"], decision="forbidden")\n'
    _codex_project(project, 'sandbox_mode = "workspace-write"\n', rule)
    fixes = [str(f["hint"]) for f in _findings(cli) if f["code"] == "FT327"]
    assert fixes and all("already workspace-write" in fix for fix in fixes)
    assert not any("sandbox_mode read-only or workspace-write" in fix for fix in fixes)
    _codex_project(project, 'sandbox_mode = "danger-full-access"\n', rule)
    fixes = [str(f["hint"]) for f in _findings(cli) if f["code"] == "FT327"]
    assert fixes and all("sandbox_mode read-only or workspace-write" in fix for fix in fixes)


def test_check_fix_says_when_no_fix_applies(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _codex_project(project, 'sandbox_mode = "bogus"\n')
    _code, _out, err = cli("check", "--fix")
    assert "--fix: no fix applies: none of the findings here (FT325) has a safe fix" in err
    (project / ".codex" / "config.toml").write_text('sandbox_mode = "read-only"\n')
    _code, _out, err = cli("check", "--fix")
    assert "--fix: nothing to fix (no findings)" in err


def test_explain_exit_code_on_deny_is_what_readme_says(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| 4 |"))
    assert "`explain` answers a DENY (or a hidden tool) with 0" in row
    (project / "opencode.json").write_text(
        '{"permission": {"bash": {"*": "allow", "rm *": "deny"}, "edit": "deny"}}')
    code, out, _err = cli("explain", "bash", "--call", json.dumps({"command": "rm -rf build"}))
    assert code == 0 and "DENY" in out
    code, out, _err = cli("explain", "edit")
    assert code == 0 and "HIDDEN" in out
    code, _out, _err = cli("run", "bash", "--yes", "--no-sandbox", "--args", json.dumps({"command": "rm x"}))
    assert code == 4


def test_a_pattern_deny_is_not_said_to_make_the_tool_visible(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (project / "opencode.json").write_text('{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}')
    _code, out, _err = cli("explain", "bash")
    line = next(ln for ln in out.splitlines() if ln.startswith("bash: VISIBLE"))
    assert ", by `bash rm * deny`" not in line
    assert "denies only the calls it matches" in line


def test_the_summary_says_what_was_not_selected(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (project / "opencode.json").write_text('{"permission": {"bsh": "deny", "edt": "deny"}}')
    _code, out, _err = cli("check", "--select", "FT002")
    assert ("2 findings not selected: off by default or left out by --select/--ignore, "
            "`--extend-select CODE` adds one") in out.splitlines()[-1]
    assert "(2 not selected)" not in out


def test_a_rejected_ask_names_its_rule_once_without_ask_asked(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """`run` with no terminal and no --approve: the one line names the asking rule and how to approve,
    not `rule bash '*' ask at ... asked`."""
    (project / "opencode.json").write_text(json.dumps({"permission": {"bash": {"*": "ask"}}}))
    code, _out, err = cli("run", "bash", "--no-sandbox", "--args", json.dumps({"command": "ls"}))
    assert code == 4, err
    line = next(x for x in err.splitlines() if "not approved" in x)
    assert "(no terminal to ask on; rule bash '*' ask at " in line and " asked" not in line, line
    assert "approve it with --approve bash=ls" in line, line
