"""Issue 19 item 2: one record per finding code. Each code is one module of forge_tools/check/rules/
holding its record (code, name, level, default, title, docs with an example, the function producing
it and the one fixing it); `rule`, SARIF rules, the docs pages, `--select` validation, `check`'s
analysis and `--fix` read the records; config errors carry their code from where they are raised;
the reporters get the records from the report and never import `check`."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from forge_tools.check.codes import CODES, markdown_table, rules_page
from forge_tools.check.rules import registry, resolve
from forge_tools.report.codeinfo import CodeInfo
from forge_tools.report.findings import Finding

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "forge_tools" / "check" / "rules"


def test_every_code_is_one_module_named_after_it() -> None:
    modules = sorted(p.stem for p in RULES_DIR.glob("ft*.py"))
    assert modules == [f"{c.lower()}_{i.name.replace('-', '_')}" for c, i in CODES.items()]
    assert list(CODES) == sorted(CODES) and registry() == CODES
    for info in CODES.values():
        assert info.summary and info.help and info.level in ("error", "warning", "info")


def test_each_record_names_a_real_producer_and_fixer() -> None:
    for code, info in CODES.items():
        if info.kind == "retired":
            assert not info.check and not info.fixer, code
            continue
        assert callable(resolve(info.check)), code
        if info.fixer:
            assert callable(resolve(info.fixer)), code
    from forge_tools.check.fix import fixable

    assert fixable() == {"FT101", "FT104", "FT107", "FT110"}


def test_the_analysis_runs_exactly_the_context_records() -> None:
    from forge_tools.check.analysis import context_checks

    expected = {resolve(i.check) for i in CODES.values() if i.kind == "context"}
    assert set(context_checks()) == expected and len(context_checks()) == len(expected)


def test_docs_table_and_rules_page_are_generated_from_the_records() -> None:
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert page == rules_page(), "docs/rules.md is stale: run `python -m forge_tools.check.codes`"
    assert markdown_table() in (ROOT / "docs" / "check-and-diff.md").read_text(encoding="utf-8")
    assert "| [FT105](rules.md#ft105) | info | off |" in markdown_table()
    assert "| [FT104](rules.md#ft104) | warning | on |" in markdown_table()


def test_reporters_never_import_check() -> None:
    """report sits below check: not even an import inside a function reaches forge_tools.check."""
    offenders = []
    for path in (ROOT / "forge_tools" / "report").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.name}: {n}" for n in names if n.startswith("forge_tools.check")]
    assert offenders == []


def test_config_errors_carry_their_code_from_where_they_are_raised(project: Path, cli) -> None:
    from forge_tools.check import config_errors
    from forge_tools.errors import ConfigError, ConfigProblem

    assert not hasattr(config_errors, "classify")  # no reading of message text
    # the message would once have been read as FT007 ("duplicate key"); the raise site decides
    error = ConfigError("duplicate key 'x' somewhere", code=ConfigProblem.TYPE)
    assert config_errors.finding_for(error).code == "FT002"
    assert ConfigError("anything").code == "FT008"
    for problem in ConfigProblem:
        assert CODES[problem.value].kind == "config"
    (project / "forge.json").write_text('{"permission": {"bash": "alow", "bash": "ask"}}')
    (project / "forge.yaml").write_text("permission: {edit: [1\n")
    (project / "forge.toml").write_text('model = "{file:./nope.txt}"\n')
    _, out, _ = cli("check", "--format", "json")
    found = {(f["code"], Path(f["location"]["path"]).name) for f in json.loads(out)["findings"]}
    assert {("FT007", "forge.json"), ("FT001", "forge.yaml"), ("FT005", "forge.toml")} <= found


def check_ft199(ctx: object) -> list[Finding]:
    """The producer of the made-up FT199 below: one finding at the project's first config file."""
    from forge_tools.origin import Origin

    files = [s for s in ctx.loaded.sources if s.path is not None]  # type: ignore[attr-defined]
    return [Finding("FT199", "warning", "a made-up finding", "nothing to do",
                    Origin("file", str(files[0].path), 1, 1) if files else None)]


def test_adding_a_finding_is_one_record(project: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new record with its producer: check runs it, --select knows it, rule and SARIF show it, and
    the docs table lists it, with no other change."""
    record = CodeInfo("FT199", "made-up-finding", "warning", "A made-up finding for this test.",
                      "Nothing to do.", why="It shows that one record is enough.", example="{}",
                      kind="context", check=f"{__name__}:check_ft199")
    monkeypatch.setitem(CODES, "FT199", record)
    (project / "forge.json").write_text('{"permission": {"bash": "ask"}}')
    code, out, err = cli("check", "--select", "FT199", "--format", "json")
    assert code == 0, err
    assert [f["code"] for f in json.loads(out)["findings"]] == ["FT199"]
    _, out, _ = cli("check", "--format", "sarif")
    rules = {r["id"]: r for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["FT199"]["help"]["text"] == record.render()
    assert "FT199 made-up-finding (warning)" in cli("rule", "FT199")[1]
    assert "| [FT199](rules.md#ft199) | warning | on |" in markdown_table()


def test_every_finding_made_names_a_record_at_its_level() -> None:
    """Each `Finding("FTnnn", level, ...)` in the package names a code that has a record, at the
    record's level (FT106 documents its warning for `task` patterns; FT101's level is computed)."""
    mismatched = []
    for path in (ROOT / "forge_tools").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding" and node.args):
                continue
            code = node.args[0]
            if not isinstance(code, ast.Constant):
                continue
            level = node.args[1] if len(node.args) > 1 else None
            info = CODES.get(code.value)
            if info is None or (isinstance(level, ast.Constant) and level.value != info.level
                                and code.value != "FT106"):
                mismatched.append(f"{path.name}:{node.lineno}: {code.value}")
    assert mismatched == []


def test_the_docs_writer_refuses_an_option_or_a_folder_without_docs(tmp_path: Path) -> None:
    """`python -m forge_tools.check.codes --help` prints its usage and writes nothing (it once wrote
    `--help/docs/rules.md`); a folder that is no checkout is an error, not a new docs/."""
    import subprocess
    import sys

    here = tmp_path / "not-a-checkout"
    here.mkdir()
    run = [sys.executable, "-m", "forge_tools.check.codes"]
    shown = subprocess.run([*run, "--help"], cwd=here, capture_output=True, text=True)
    assert shown.returncode == 0 and "usage:" in shown.stdout
    refused = subprocess.run([*run, str(here)], capture_output=True, text=True)
    assert refused.returncode == 2 and "no docs/ folder" in refused.stderr
    assert list(here.iterdir()) == []


def test_the_shipped_records_are_the_modules_and_are_used_only_while_current(tmp_path: Path) -> None:
    """`check/rules/records.json` holds exactly what the modules define (regenerate it with `python -m
    forge_tools.check.codes`); a copy whose module checksums no longer match, or whose folder gained
    a module, is not read (the modules are imported instead)."""
    from forge_tools.check.codes import records_text
    from forge_tools.check.rules import SHIPPED, imported, shipped

    assert SHIPPED.read_text(encoding="utf-8") == records_text(), \
        "check/rules/records.json is stale: run `python -m forge_tools.check.codes`"
    assert shipped() == imported() == CODES
    folder = tmp_path / "rules"
    folder.mkdir()
    for module in RULES_DIR.glob("ft*.py"):
        (folder / module.name).write_bytes(module.read_bytes())
    copy = tmp_path / "records.json"
    copy.write_text(SHIPPED.read_text(encoding="utf-8"), encoding="utf-8")
    assert shipped(copy, folder) == CODES
    first = sorted(folder.glob("ft*.py"))[0]
    first.write_text(first.read_text(encoding="utf-8").replace('"error"', '"warning"'), encoding="utf-8")
    assert shipped(copy, folder) is None  # an edited module
    first.write_bytes((RULES_DIR / first.name).read_bytes())
    (folder / "ft198_made_up.py").write_text("RULE = None\n", encoding="utf-8")
    assert shipped(copy, folder) is None  # a module the file does not know
    (folder / "ft198_made_up.py").unlink()
    copy.write_text("{", encoding="utf-8")
    assert shipped(copy, folder) is None  # unreadable
