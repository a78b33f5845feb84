"""Paths in GitHub annotations and SARIF are what GitHub resolves: relative to the repository root (also
for a project in a subdirectory), absolute `file:` URIs outside it; SARIF results carry fingerprints
that survive lines moving."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema

from forge_tools.check.codes import CODES
from forge_tools.origin import Origin
from forge_tools.report.findings import REPORTER_BY_NAME, CheckReport, Finding

SCHEMA = Path(__file__).parent / "fixtures" / "sarif-schema-2.1.0.json"


def sarif_results(out: str) -> list[dict]:
    log = json.loads(out)
    jsonschema.validate(log, json.loads(SCHEMA.read_text()), cls=jsonschema.Draft4Validator)
    return log["runs"][0]["results"]


def uri_of(result: dict) -> str:
    return result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]


def test_project_in_a_subdirectory_of_the_repository(project: Path, cli) -> None:
    sub = project / "services" / "api"
    sub.mkdir(parents=True)
    (sub / "forge.json").write_text('{"permission": {"bsh": "deny"}}')
    code, out, _ = cli("check", "services/api", "--format", "github")
    assert code == 1
    assert "::error file=services/api/forge.json,line=1," in out
    _code, out, _ = cli("check", "services/api", "--format", "sarif")
    [result] = [r for r in sarif_results(out) if r["ruleId"] == "FT101"]
    assert uri_of(result) == "services/api/forge.json"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    log = json.loads(out)
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"


def test_file_outside_the_repository_is_an_absolute_file_uri(project: Path, cli,
                                                              isolated_env: dict[str, Path]) -> None:
    global_dir = isolated_env["home"] / ".config" / "forge"
    global_dir.mkdir(parents=True)
    (global_dir / "forge.json").write_text('{"permission": {"bsh": "deny"}}')
    _code, out, _ = cli("check", "--format", "sarif")
    [result] = [r for r in sarif_results(out) if r["ruleId"] == "FT101"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (global_dir / "forge.json").resolve().as_uri()}


def test_fingerprints_survive_moved_lines(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"permission": {"bsh": "deny", "grpe": "ask"}}')
    _code, before, _ = cli("check", "--format", "sarif")
    (project / "forge.json").write_text(
        '{\n\n  "permission": {\n    "bsh": "deny",\n    "grpe": "ask"\n  }\n}\n')
    _code, after, _ = cli("check", "--format", "sarif")

    def prints(out: str) -> list[str]:
        return [r["partialFingerprints"]["forgeToolsFinding/v1"] for r in sarif_results(out)
                if r["ruleId"] == "FT101"]

    assert len(set(prints(before))) == 2
    assert prints(before) == prints(after)
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in sarif_results(after)
            if r["ruleId"] == "FT101"] == [4, 5]


def test_github_properties_escape_colon_and_comma(tmp_path: Path) -> None:
    cfg = tmp_path / "a,b:c" / "forge.json"
    report = CheckReport(project_root=tmp_path, codes=dict(CODES), findings=[
        Finding("FT101", "error", "50% bad\r\nsecond: line, here", None, Origin("file", str(cfg), 2, 3))])
    out = io.StringIO()
    REPORTER_BY_NAME["github"](report, out)
    line = out.getvalue().splitlines()[0]
    assert line == ("::error file=a%2Cb%3Ac/forge.json,line=2,col=3,title=FT101 unknown permission::"
                    "50%25 bad%0D%0Asecond: line, here")
