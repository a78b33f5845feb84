"""Issue 11: `forge-tools rule` (one text for rule docs and SARIF help) and `forge-tools schema` (the
config's JSON Schema, shipped in the package, validating the README's and docs' examples)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

from forge_tools.check.codes import CODES

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_rule_explains_a_code(cli) -> None:
    code, out, _ = cli("rule", "FT104")
    assert code == 0
    assert out.startswith("FT104 trailing-deny-hides-tool (warning)\n")
    assert "Why it matters:" in out and "Example that triggers it:" in out and "Fixed:" in out
    assert CODES["FT104"].help in out
    assert "check --fix" in out  # FT104 is fixed automatically


def test_rule_all_and_json(cli) -> None:
    code, out, _ = cli("rule", "--all")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:] if line.startswith("FT")}
    assert list(rows) == list(CODES)
    # a DEFAULT column says which codes are on without --select (issue 18: FT105 is a hint, off)
    assert out.splitlines()[0].split()[:4] == ["CODE", "NAME", "LEVEL", "DEFAULT"]
    assert {c: r[3] for c, r in rows.items()} == {c: "on" if i.default else "off" for c, i in CODES.items()}
    assert rows["FT105"][3] == "off" and rows["FT101"][3] == "on"
    code, out, _ = cli("rule", "ft101", "--format", "json")
    data = json.loads(out)
    assert data["code"] == "FT101" and data["autofix"] is True and data["default"] is True
    assert data["docs"] == "docs/rules.md#ft101"
    assert json.loads(cli("rule", "FT105", "--format", "json")[1])["default"] is False


def test_rule_errors(cli) -> None:
    code, _, err = cli("rule", "FT14")
    assert code == 2 and "unknown finding code" in err and "did you mean" in err
    assert cli("rule")[0] == 2
    assert cli("rule", "FT104", "--all")[0] == 2


def test_sarif_rules_carry_the_same_text(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"permission": {"grpe": "deny"}}')
    _, out, _ = cli("check", "--format", "sarif")
    rules = {r["id"]: r for r in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]}
    _, text, _ = cli("rule", "FT104")
    assert rules["FT104"]["help"]["text"] == text
    assert rules["FT104"]["fullDescription"]["text"] != rules["FT104"]["shortDescription"]["text"]
    # no helpUri: SARIF wants an absolute URI and there is no public docs host; the docs page is a
    # path of the repository, and its anchor exists (docs/rules.md is generated from the records)
    assert not any("helpUri" in r for r in rules.values())
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for code, rule in rules.items():
        path, _, anchor = rule["properties"]["docs"].partition("#")
        assert (ROOT / path).is_file() and f"{{#{anchor}}}" in page and anchor == code.lower()
        assert rule["defaultConfiguration"]["enabled"] is CODES[code].default


def schema() -> dict:
    return json.loads((Path(__file__).resolve().parents[2] / "forge_tools" / "data"
                       / "forge-config.schema.json").read_text())


def test_shipped_schema_is_the_models(cli) -> None:
    from forge_tools.config.json_schema import build_schema

    code, out, _ = cli("schema")
    assert code == 0
    assert json.loads(out) == build_schema() == schema(), "regenerate: forge-tools schema is stale"


def readme_config_examples() -> list[tuple[str, object]]:
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    found = []
    for match in re.finditer(r"<!-- config example -->\n```(\w+)\n(.*?)```", text, re.S):
        lang, body = match.groups()
        if lang in ("json", "jsonc"):
            import json5

            data = json5.loads(body)
        elif lang == "yaml":
            data = yaml.safe_load(body)
        else:
            data = tomllib.loads(body)
            data = data.get("tool", {}).get("forge-tools", data)  # pyproject.toml's section
        found.append((lang, data))
    return found


def test_readme_examples_validate() -> None:
    examples = readme_config_examples()
    assert {lang for lang, _ in examples} >= {"json", "jsonc", "yaml", "toml"}
    validator = jsonschema.Draft202012Validator(schema())
    for lang, data in examples:
        assert not list(validator.iter_errors(data)), (lang, data)


@pytest.mark.parametrize("bad", [
    {"permission": {"edit": "allwo"}},
    {"permission": {"bash": {"git *": "allwo"}}},
    {"agent": {"plan": {"permission": "allwo"}}},
    {"check": {"ignore": ["E501"]}},
    {"permisson": {"bash": "ask"}},
])
def test_schema_rejects_bad_configs(bad: dict) -> None:
    assert list(jsonschema.Draft202012Validator(schema()).iter_errors(bad))


def test_schema_offers_actions_and_permission_names() -> None:
    defs = schema()["$defs"]
    assert defs["Action"]["enum"] == ["allow", "ask", "deny"]
    names = defs["Permission"]["oneOf"][1]["properties"]
    assert {"bash", "edit", "read", "external_directory", "doom_loop"} <= set(names)
    assert all(v.get("description") for v in names.values())
