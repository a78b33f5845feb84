"""`check` and `diff` run on untrusted pull requests: a config must not be able to make them print the
content of a runner's files or environment variables through `{file:}` / `{env:}` substitutions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SECRET = "s3cr3t-t0ken-value"


@pytest.fixture
def secret_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "runner-secret.txt"
    path.write_text(SECRET + "\n")
    monkeypatch.setenv("RUNNER_SECRET", SECRET)
    return path


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_check_never_prints_a_substituted_value(project: Path, cli, secret_file: Path, fmt: str) -> None:
    (project / "forge.json").write_text(json.dumps({
        "default_agent": f"{{file:{secret_file}}}",
        "permission": {"bash": "{env:RUNNER_SECRET}"}}))
    code, out, err = cli("check", "--format", fmt)
    assert code == 1
    assert SECRET not in out + err
    assert "{env:RUNNER_SECRET}" in out


def test_check_findings_after_loading_do_not_print_it(project: Path, cli, secret_file: Path) -> None:
    (project / "forge.json").write_text(json.dumps({
        "default_agent": f"{{file:{secret_file}}}", "model": "acme/{env:RUNNER_SECRET}"}))
    (project / "expect.yaml").write_text('- agent: "*"\n  visible: [websearch]\n')
    code, out, err = cli("check", "--expect", "expect.yaml", "--format", "json")
    data = json.loads(out)
    assert code == 1 and SECRET not in out + err
    assert [f["code"] for f in data["findings"] if f["code"] == "FT106"] == ["FT106"]
    assert "here: model acme/{env:RUNNER_SECRET}" in data["expectations"]["results"][0]["explanation"]


def test_diff_never_prints_a_substituted_value(tmp_path: Path, cli, secret_file: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for d in (old, new):
        (d / ".git").mkdir(parents=True)
    (old / "forge.json").write_text("{}")
    (new / "forge.json").write_text(json.dumps({"agent": {"build": {"model": "acme/{env:RUNNER_SECRET}"}}}))
    code, out, err = cli("diff", str(old), str(new))
    assert code == 0 and SECRET not in out + err and "{env:RUNNER_SECRET}" in out
    (new / "forge.json").write_text(json.dumps({"permission": {"edit": f"{{file:{secret_file}}}"}}))
    code, out, err = cli("diff", str(old), str(new))
    assert code == 3 and SECRET not in out + err and "not shown" in err
