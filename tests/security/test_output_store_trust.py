"""The output store cannot be used to read elsewhere (issue 22): the truncation directory's automatic
allow covers only files forge-tools wrote there (owned by the user, one link, created by the store,
recorded in its index). A hard link planted in the store (by anyone, or by the agent with an allowed
`ln`), a file moved or copied in, is treated like any other path outside the project (asked), and
`outputs` never lists or prints it. Decided by `explain --call`, `check --expect` and `run` alike,
with the secret's text observed."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from forge_tools.tools.outputs import OutputStore

pytestmark = pytest.mark.skipif(not hasattr(os, "link"), reason="needs hard links")

SECRET = "s3cret-outside-77"
NAME = "tool_0123456789abcdef_abcdefgh-bash.txt"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    place = tmp_path / "out"
    place.mkdir()
    path = place / "secret.txt"
    path.write_text(SECRET + "\n")
    return path


@pytest.fixture
def store(isolated_env: dict[str, Path]) -> Path:
    directory = OutputStore.from_env().directory
    OutputStore.from_env().write_text("bash", "a real full output\n")  # the store exists and is used
    return directory


def decided(cli: Any, project: Path, args: dict[str, Any]) -> tuple[str, bool]:
    code, out, err = cli("explain", "read", "--call", json.dumps(args), "--format", "json")
    assert code == 0, err
    action = json.loads(out)["call"]["gate"]["action"]
    expect = project / "expect.json"
    assertion = {"agent": "build", "call": {"tool": "read", "args": args}, "expect": action,
                 "runtime": "forge"}  # the gate's answer, what run enforces
    expect.write_text(json.dumps([assertion]))
    _, out, _ = cli("check", "--expect", str(expect), "--format", "json")
    return action, bool(json.loads(out)["expectations"]["results"][0]["passed"])


def assert_not_readable(cli: Any, project: Path, planted: Path) -> None:
    args = {"filePath": str(planted)}
    action, agrees = decided(cli, project, args)
    assert action == "ask" and agrees
    code, out, err = cli("run", "read", "--args", json.dumps(args))
    assert code == 4 and SECRET not in out + err, out + err
    _, out, err = cli("outputs", "list", "--format", "json")
    assert planted.name not in out
    code, out, err = cli("outputs", "show", planted.name)
    assert code != 0 and SECRET not in out + err
    # a search of the store leaves it out too
    search = {"pattern": "s3cret", "path": str(planted.parent)}
    _, out, _ = cli("run", "grep", "--args", json.dumps(search), "--approve", "external_directory")
    assert SECRET not in out


def test_a_file_the_store_wrote_is_read_without_an_ask(cli: Any, project: Path, store: Path) -> None:
    real = OutputStore.from_env().write_text("bash", "full output here\n").path
    assert decided(cli, project, {"filePath": str(real)}) == ("allow", True)
    code, out, err = cli("run", "read", "--args", json.dumps({"filePath": str(real)}))
    assert code == 0 and "full output here" in out, err
    _, out, _ = cli("outputs", "list", "--format", "json")
    assert real.name in out


def test_a_planted_hard_link_gets_no_allow(cli: Any, project: Path, store: Path, secret: Path) -> None:
    planted = store / NAME
    os.link(secret, planted)
    assert_not_readable(cli, project, planted)


def test_a_hard_link_the_agent_made_with_an_allowed_ln_gets_no_allow(cli: Any, project: Path, store: Path,
                                                                     secret: Path) -> None:
    (project / "forge.json").write_text(json.dumps({"permission": {"bash": {"*": "ask", "ln *": "allow"},
                                                                   "external_directory": "ask"}}))
    planted = store / NAME
    # without run's sandbox (where the store is read-only and the ln fails): the store's own trust rule
    # must hold for a link an agent made where no sandbox stood in the way
    _, _, err = cli("run", "bash", "--args", json.dumps({"command": f"ln {secret} {planted}"}),
                    "--yes", "--no-sandbox")  # ln makes its targets always-asked edits
    assert planted.exists(), err
    assert_not_readable(cli, project, planted)


@pytest.mark.parametrize("how", ["moved", "copied", "renamed store file"])
def test_a_file_put_in_the_store_by_other_means_gets_no_allow(cli: Any, project: Path, store: Path,
                                                              secret: Path, how: str) -> None:
    planted = store / NAME
    if how == "moved":
        os.replace(secret, planted)  # one link, the user's, but not one the store created
    elif how == "copied":
        shutil.copyfile(secret, planted)
    else:  # a file the store wrote, renamed and filled with something else
        real = OutputStore.from_env().write_text("bash", "x").path
        real.write_text(SECRET)
        os.replace(real, planted)
    assert_not_readable(cli, project, planted)
