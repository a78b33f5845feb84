"""Issue 18, "check fails closed on its own settings": an unknown check setting or an unknown code in
the settings is a config error (exit 3) at its file:line:col with did-you-mean, wherever the settings
are read; informational hints (FT105) are off unless selected; FT103 says what "later" means; a
suppression's reason written without `--` is one clear message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TRIGGERS_FT105 = '{"permission": {"bash": {"rm *": "deny"}}}'


def codes(cli, *args: str) -> list[str]:
    code, out, err = cli("check", "--format", "json", *args)
    assert code in (0, 1), err
    return [f["code"] for f in json.loads(out)["findings"]]


def test_a_misspelt_setting_in_pyproject_is_a_config_error(project: Path, cli) -> None:
    (project / "forge.json").write_text(TRIGGERS_FT105)
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.forge-tools.check]\n'
                                            'ignor = ["FT104"]\n')
    code, out, err = cli("check")
    assert code == 3, (out, err)
    assert f"{project / 'pyproject.toml'}:5:1" in err
    assert "unknown setting 'ignor' in [tool.forge-tools.check] (did you mean 'ignore'?)" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize(("body", "where", "words"), [
    ('[tool.forge-tools.check]\nselect = ["FT1O5"]\n', "2:11", "'FT1O5' is not a finding code or prefix"),
    ('[tool.forge-tools.check]\nignore = ["FT999"]\n', "2:11", "no finding code is or starts with 'FT999'"),
    ('[tool.forge-tools.check]\nignore = ["E501"]\n', "2:11", "'E501' is not a finding code or prefix"),
    ('[tool.forge-tools.check]\nignore = "FT105"\n', "2:10", "must be a list of finding codes"),
    ('[tool.forge-tools.chek]\nignore = ["FT105"]\n', "1:", "unknown setting 'chek' in [tool.forge-tools]"),
])
def test_unknown_codes_and_places_in_pyproject_are_config_errors(project: Path, cli, body: str, where: str,
                                                                 words: str) -> None:
    (project / "forge.json").write_text(TRIGGERS_FT105)
    (project / "pyproject.toml").write_text(body)
    code, _, err = cli("check")
    assert code == 3, err
    assert f"pyproject.toml:{where}" in err and words in err


def test_a_pyproject_without_our_section_is_not_ours(project: Path, cli) -> None:
    (project / "forge.json").write_text(TRIGGERS_FT105)
    (project / "pyproject.toml").write_text('[tool.ruff]\nignor = ["E501"]\n')
    assert cli("check")[0] == 0


def test_the_same_settings_in_a_forge_file_fail_closed_too(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"check": {"ignor": ["FT105"]}}')
    code, out, _ = cli("check", "--format", "json")
    [finding] = json.loads(out)["findings"]
    assert code == 1 and finding["code"] == "FT004" and "did you mean 'ignore'" in finding["message"]
    (project / "forge.json").write_text('{\n  "check": {"select": ["FT103", "FT198"]}\n}\n')
    code, _, err = cli("check")
    assert code == 3 and "forge.json:2:33" in err and "'FT198'" in err and "did you mean" in err


def test_informational_hints_are_off_unless_selected(project: Path, cli) -> None:
    (project / "forge.json").write_text(TRIGGERS_FT105)
    assert "FT105" not in codes(cli)
    assert codes(cli, "--select", "FT105") == ["FT105"]
    assert "FT105" in codes(cli, "--select", "FT1")  # a prefix covering it turns it on, as in ruff
    assert "FT105" not in codes(cli, "--select", "FT1", "--ignore", "FT105")
    (project / "pyproject.toml").write_text('[tool.forge-tools.check]\nselect = ["FT105"]\n')
    assert codes(cli) == ["FT105"]  # the settings turn it on as well


def test_extend_select_adds_a_hint_to_the_default_set(project: Path, cli) -> None:
    (project / "forge.json").write_text('{"permission": {"grpe": "deny", "bash": {"rm *": "deny"}}}')
    assert sorted(codes(cli)) == ["FT101"]
    assert sorted(codes(cli, "--extend-select", "FT105")) == ["FT101", "FT105"]
    assert sorted(codes(cli, "--extend-select", "FT105", "--ignore", "FT1")) == ["FT105"]  # longest wins
    (project / "pyproject.toml").write_text('[tool.forge-tools.check]\nextend_select = ["FT105"]\n')
    assert sorted(codes(cli)) == ["FT101", "FT105"]
    assert codes(cli, "--select", "FT101") == ["FT101"]  # a later select starts over
    (project / "pyproject.toml").write_text('[tool.forge-tools.check]\nextend-select = ["FT105"]\n')
    code, _, err = cli("check")
    assert code == 3 and "did you mean 'extend_select'?" in err


def test_ft103_says_later_in_merge_order_not_in_the_file(project: Path, cli) -> None:
    """The covering rule is on line 1 of forge.json, the dead one on line 3 of opencode.json: later
    means later in the merged rules (forge.json loads after opencode.json)."""
    (project / "opencode.json").write_text(
        '{\n  "permission": {\n    "bash": {"git push *": "ask"}\n  }\n}\n')
    (project / "forge.json").write_text('{"permission": {"bash": {"git *": "deny"}}}')
    _, out, _ = cli("check", "--format", "json")
    [finding] = [f for f in json.loads(out)["findings"] if f["code"] == "FT103"]
    assert finding["location"]["line"] == 3
    assert "comes after it in merge order (forge.json loads after opencode.json)" in finding["message"]
    assert "the later rule" not in finding["message"]
    assert "comes after it in merge order" in finding["related"][0]["label"]


def test_a_reason_without_the_dashes_is_one_clear_message(project: Path, cli) -> None:
    (project / "forge.jsonc").write_text(
        '{\n  "permission": {\n    "bash": {"rm *": "deny"} // forge-tools: ignore FT105 because reasons\n'
        '  }\n}\n')
    _, out, _ = cli("check", "--select", "FT", "--format", "json")
    data = json.loads(out)
    [ft114] = [f for f in data["findings"] if f["code"] == "FT114"]
    assert (ft114["location"]["line"], ft114["location"]["column"]) == (3, 30)
    assert "write `forge-tools: ignore FT105 -- because reasons`" in ft114["message"]
    assert "BECAUSE" not in ft114["message"] and "REASONS" not in ft114["message"]
    assert "` -- `" in ft114["hint"]
    # until it is written right it suppresses nothing (fail closed)
    assert "FT105" in [f["code"] for f in data["findings"]] and data["suppressed"] == []
