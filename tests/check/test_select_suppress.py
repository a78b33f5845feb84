"""Issue 11: choosing and silencing findings (--select/--ignore, the config's `check` section, inline
suppression comments and FT114), --exit-zero, --output-file, --statistics and --format concise."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import jsonschema
import pytest

SARIF_SCHEMA = Path(__file__).parent / "fixtures" / "sarif-schema-2.1.0.json"

# the check issue's planted problems: FT104 (line 3), FT103 (line 4), FT101 (line 5), and FT105 notes
PLANTED = """{
  "permission": {
    "webfetch": {"https://docs.example.com/*": "allow", "*": "deny"},
    "edit": {"src/generated/*": "deny", "src/*": "deny"},
    "grpe": "deny",
    // forge-tools: ignore FT105 -- rm stays visible on purpose
    "bash": {"rm *": "deny"},
    "read": {"*.env": "deny"}
  }
}
"""


def findings(cli, *args: str) -> set[tuple[str, int]]:
    code, out, err = cli("check", "--format", "json", *args)
    assert code in (0, 1), err
    return {(f["code"], f["location"]["line"]) for f in json.loads(out)["findings"]}


@pytest.fixture
def planted(project: Path) -> Path:
    (project / "forge.jsonc").write_text(PLANTED)
    return project


EXPECT = """\
- agent: build
  call: {tool: bash, args: {command: "rm -rf /"}}
  expect: allow
"""


def test_four_planted_problems_with_expectation_in_every_format(planted: Path, cli) -> None:
    """The check issue's four (unreachable, typo, trailing deny, failing expectation), one suppressed
    line and one --ignore: exactly the rest, in every format."""
    (planted / "expect.yaml").write_text(EXPECT)
    args = ("check", "--expect", "expect.yaml", "--ignore", "FT105")
    expected = {("FT104", 3), ("FT103", 4), ("FT101", 5)}
    code, out, _ = cli(*args, "--format", "json")
    data = json.loads(out)
    assert code == 1
    assert {(f["code"], f["location"]["line"]) for f in data["findings"]} == expected | {("FT201", 1)}
    assert [r["passed"] for r in data["expectations"]["results"]] == [False]
    for fmt in ("concise", "github", "text"):
        _, out, _ = cli(*args, "--format", fmt)
        assert "FT105" not in out and all(c in out for c in ("FT101", "FT103", "FT104", "expect.yaml"))
    _, out, _ = cli(*args, "--format", "sarif")
    assert sorted(r["ruleId"] for r in json.loads(out)["runs"][0]["results"]) == [
        "FT101", "FT103", "FT104", "FT201"]


def test_suppressed_line_and_ignore_give_exactly_the_rest_in_every_format(planted: Path, cli) -> None:
    everything = findings(cli, "--select", "FT")
    assert ("FT105", 7) not in everything  # suppressed by the comment on line 6
    assert ("FT105", 8) in everything  # the other deny is not
    expected = {("FT104", 3), ("FT103", 4), ("FT101", 5)}
    assert findings(cli, "--ignore", "FT105") == expected
    # the same findings, no more, in every other format
    code, out, _ = cli("check", "--ignore", "FT105", "--format", "concise")
    assert code == 1
    lines = [ln for ln in out.splitlines() if ln.startswith("forge.jsonc:")]
    assert {(ln.split()[2], int(ln.split(":")[1])) for ln in lines} == expected
    assert lines[0].startswith("forge.jsonc:3:") and " WARNING FT104 " in lines[0]
    _, out, _ = cli("check", "--ignore", "FT105", "--format", "github")
    annotations = [ln for ln in out.splitlines() if ln.startswith("::")]
    assert len(annotations) == 3 and all("title=FT10" in ln for ln in annotations)
    assert any("title=FT104 trailing deny hides tool::" in ln for ln in annotations)
    _, out, _ = cli("check", "--ignore", "FT105", "--format", "sarif")
    log = json.loads(out)
    jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text()))
    results = log["runs"][0]["results"]
    assert {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for r in results} == expected
    _, out, _ = cli("check", "--ignore", "FT105", "--format", "text")
    assert "FT105" not in out and all(c in out for c in ("FT101", "FT103", "FT104"))
    assert ("1 finding suppressed inline; 2 findings not selected: off by default or left out by "
            "--select/--ignore, `--extend-select CODE` adds one") in out


def test_suppression_is_listed_with_its_reason_in_json(planted: Path, cli) -> None:
    _, out, _ = cli("check", "--format", "json")
    data = json.loads(out)
    (suppressed,) = data["suppressed"]
    assert suppressed["code"] == "FT105" and suppressed["location"]["line"] == 7
    assert suppressed["data"]["reason"] == "rm stays visible on purpose"
    assert suppressed["data"]["suppressed_by"] == "forge.jsonc:6:5"
    assert data["summary"]["suppressed"] == 1


def test_the_first_of_two_covering_suppressions_wins_and_the_other_is_unused(project: Path, cli) -> None:
    """Suppressions are looked up by line: a comment above a line and one after its value both cover
    it; the first in the file suppresses the finding, the other suppressed nothing (FT114)."""
    (project / "forge.jsonc").write_text(
        '{\n  "permission": {\n    // forge-tools: ignore FT105 -- above\n'
        '    "bash": {"rm *": "deny"}, // forge-tools: ignore FT105 -- after\n'
        '    "read": {"*.env": "deny"} // forge-tools: ignore FT105 -- own line\n  }\n}\n')
    _, out, _ = cli("check", "--format", "json")
    data = json.loads(out)
    assert [(f["location"]["line"], f["data"]["reason"]) for f in data["suppressed"]] == [
        (4, "above"), (5, "own line")]
    assert [(f["code"], f["location"]["line"]) for f in data["findings"] if f["code"] == "FT114"] == [
        ("FT114", 4)]


def test_select_and_ignore_by_prefix_longest_wins(planted: Path, cli) -> None:
    assert {c for c, _ in findings(cli, "--select", "FT101")} == {"FT101"}
    assert {c for c, _ in findings(cli, "--select", "FT1", "--ignore", "FT10")} == set()
    assert {c for c, _ in findings(cli, "--select", "FT103,FT104", "--select", "FT101")} == {
        "FT101", "FT103", "FT104"}
    assert {c for c, _ in findings(cli, "--ignore", "FT1", "--select", "FT104")} == {"FT104"}


def test_bad_code_is_a_usage_error(planted: Path, cli) -> None:
    code, _, err = cli("check", "--select", "FT1x")
    assert code == 2 and "--select: 'FT1X' is not a finding code or prefix" in err


@pytest.mark.parametrize("where", ["forge.yaml", "pyproject.toml"])
def test_config_check_section(project: Path, cli, where: str) -> None:
    (project / "forge.jsonc").write_text(PLANTED)
    if where == "forge.yaml":
        (project / "forge.yaml").write_text("check:\n  ignore: [FT105, FT103]\n")
    else:
        (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.forge-tools.check]\n'
                                                'ignore = ["FT105", "FT103"]\n')
    assert {c for c, _ in findings(cli)} == {"FT101", "FT104"}
    # --ignore adds to the config's ignore list; --select starts over
    assert {c for c, _ in findings(cli, "--ignore", "FT104")} == {"FT101"}
    assert {c for c, _ in findings(cli, "--select", "FT103")} == {"FT103"}


def test_bad_check_section_is_a_located_error(project: Path, cli) -> None:
    (project / "forge.yaml").write_text("check:\n  ignore: [FT105, allwo]\n")
    code, out, _ = cli("check", "--format", "concise")
    assert code == 1
    assert "forge.yaml:2:" in out and "'allwo' is not a finding code or prefix" in out


def test_yaml_and_toml_comments_suppress_and_strings_do_not(project: Path, cli) -> None:
    (project / "forge.yaml").write_text(
        "permission:\n"
        "  # forge-tools: ignore FT101 -- alias kept for an old client\n"
        "  grpe: deny\n"
        "  bash: {\"echo '# forge-tools: ignore FT105'\": deny}\n")
    (project / ".forge").mkdir()
    (project / ".forge" / "forge.toml").write_text(
        '[permission.edit]\n"*.lock" = "deny" # forge-tools: ignore FT105\n')
    found = findings(cli, "--select", "FT")
    assert ("FT101", 3) not in found
    assert ("FT105", 4) in found  # the `#` was inside a string, not a comment
    _, out, _ = cli("check", "--format", "json")
    data = json.loads(out)
    suppressed = {(f["code"], Path(f["location"]["path"]).name) for f in data["suppressed"]}
    assert suppressed == {("FT101", "forge.yaml"), ("FT105", "forge.toml")}


def test_unused_and_bad_suppressions_are_ft114(project: Path, cli) -> None:
    (project / "forge.jsonc").write_text(
        '{\n'
        '  "permission": {\n'
        '    "grep": "deny", // forge-tools: ignore FT101 -- was misspelt once\n'
        '    "read": "allow", // forge-tools: ignore\n'
        '    "list": "allow" // forge-tools: ignore FT999\n'
        '  }\n'
        '}\n')
    code, out, _ = cli("check", "--format", "json")
    ft114 = sorted((f["location"]["line"], f["message"]) for f in json.loads(out)["findings"]
                   if f["code"] == "FT114")
    assert [line for line, _ in ft114] == [3, 4, 5]
    assert "suppressed nothing" in ft114[0][1]
    assert "names no code" in ft114[1][1]
    assert "'FT999'" in ft114[2][1]
    assert code == 0  # warnings only
    assert cli("check", "--strict")[0] == 1
    assert cli("check", "--strict", "--ignore", "FT114")[0] == 0


def test_config_errors_are_never_silenced(project: Path, cli) -> None:
    (project / "forge.jsonc").write_text(
        '{\n  "permission": {"edit": "allwo"} // forge-tools: ignore FT003\n}\n')
    code, out, _ = cli("check", "--format", "json", "--ignore", "FT0")
    assert code == 1
    found = json.loads(out)["findings"]
    assert [f["code"] for f in found] == ["FT003", "FT114"]
    assert "FT003 cannot be suppressed" in found[1]["message"]


def test_exit_zero(planted: Path, cli) -> None:
    assert cli("check")[0] == 1
    code, out, _ = cli("check", "--exit-zero")
    assert code == 0 and "FT101" in out


@pytest.mark.parametrize("name, kind", [("out.sarif", "sarif"), ("report.json", "json")])
def test_output_file_is_written_and_text_still_printed(planted: Path, cli, name: str, kind: str) -> None:
    code, out, _ = cli("check", "--format", "text", "--output-file", name)
    assert code == 1 and "FT101" in out and "1 error(s)" in out
    written = planted / name
    data = json.loads(written.read_text())
    assert stat.S_IMODE(os.stat(written).st_mode) == 0o600
    if kind == "sarif":
        jsonschema.validate(data, json.loads(SARIF_SCHEMA.read_text()))
        assert {r["ruleId"] for r in data["runs"][0]["results"]} >= {"FT101", "FT103", "FT104"}
    else:
        assert {f["code"] for f in data["findings"]} >= {"FT101", "FT103", "FT104"}


def test_output_file_needs_a_known_suffix(planted: Path, cli) -> None:
    code, _, err = cli("check", "--output-file", "out.txt")
    assert code == 2 and "--output-file" in err and "*.sarif" in err
    assert not (planted / "out.txt").exists()


def test_statistics(planted: Path, cli) -> None:
    code, out, _ = cli("check", "--statistics", "--select", "FT")
    assert code == 1
    rows = [ln.split() for ln in out.splitlines()[:-1]]
    assert ["1", "FT101", "error", "unknown-permission"] in rows
    assert ["2", "FT105", "info", "deny-does-not-hide"] in rows  # the unsuppressed ones
    code, out, _ = cli("check", "--statistics", "--format", "json")
    assert {r["code"]: r["count"] for r in json.loads(out)}["FT104"] == 1
    assert cli("check", "--statistics", "--format", "sarif")[0] == 2


def test_concise_paths_are_relative_to_the_working_directory(planted: Path, cli,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    sub = planted / "src"
    sub.mkdir()
    monkeypatch.chdir(sub)
    _, out, _ = cli("check", "--format", "concise")
    assert out.splitlines()[0].startswith("../forge.jsonc:3:")


def test_check_takes_project_as_option_or_argument(planted: Path, cli, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    by_option = cli("check", "--project", str(planted), "--format", "json")
    by_argument = cli("check", str(planted), "--format", "json")
    assert by_option[0] == by_argument[0] == 1
    assert json.loads(by_option[1])["findings"] == json.loads(by_argument[1])["findings"]
    assert cli("check", str(planted), "--project", str(tmp_path))[0] == 2


def test_a_code_no_finding_has_is_a_usage_error_with_did_you_mean(project, cli) -> None:
    """`--select FT999` used to report "no findings" and exit 0: a typo silenced the whole check."""
    (project / "forge.json").write_text('{"permission": {"bsh": "deny"}}\n')
    code, out, err = cli("check", "--select", "FT999")
    assert code == 2 and out == ""
    assert "--select" in err and "'FT999'" in err and "FT109" in err
    code, _, err = cli("check", "--ignore", "FT10,FT77")
    assert code == 2 and "'FT77'" in err
    assert cli("check", "--select", "FT10")[0] == 1  # a real prefix still selects (FT101 here)
