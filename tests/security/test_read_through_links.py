"""Read through links (issue 9): a read deny holds for a hard link to the denied file, a symlink is
matched by its target as well as its name, and the truncation directory's automatic allow covers only
real files in it, never a symlink out of it.

Each case is decided three ways that must agree, `explain --call`, `check --expect` and `run` (whose
effect is observed: the secret's text is or is not printed), with the real CLI in a scratch project.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "link"), reason="needs hard and symbolic links")

SECRET = "s3cret-value-42"


def write_config(project: Path, permission: dict[str, Any]) -> None:
    (project / "forge.json").write_text(json.dumps({"permission": permission}))


def explain_action(cli: Any, tool: str, args: dict[str, Any]) -> str:
    code, out, err = cli("explain", tool, "--call", json.dumps(args), "--format", "json")
    assert code == 0, err
    return str(json.loads(out)["call"]["gate"]["action"])


def expect_holds(cli: Any, project: Path, tool: str, args: dict[str, Any], action: str) -> bool:
    expect = project / "expect.json"
    # the gate's answer (what run enforces), whatever runtime the config belongs to
    assertion = {"agent": "build", "call": {"tool": tool, "args": args}, "expect": action, "runtime": "forge"}
    expect.write_text(json.dumps([assertion]))
    _, out, err = cli("check", "--expect", str(expect), "--format", "json")
    results = json.loads(out)["expectations"]["results"]
    assert len(results) == 1, err
    return bool(results[0]["passed"])


def run_read(cli: Any, path: str, *extra: str) -> tuple[int, str, str]:
    return cli("run", "read", "--args", json.dumps({"filePath": path}), *extra)


def agree(cli: Any, project: Path, args: dict[str, Any], action: str, tool: str = "read") -> None:
    assert explain_action(cli, tool, args) == action
    assert expect_holds(cli, project, tool, args, action)


# -- hard links --------------------------------------------------------------------------------------


@pytest.mark.parametrize("permission", [
    {"read": {"*secret.txt": "deny"}},
    {"read": {"*": "deny", "*notes*": "allow", "*docs/*": "allow"}},
    {"read": {"*": "allow", "*.txt": "allow", "*secret*": "deny"}},
    {"*": "allow", "read": {"*secret.txt": "deny"}},
])
@pytest.mark.parametrize("link", ["notes.md", "docs/notes.md", "docs/deep/er/x"])
def test_a_hard_link_to_a_denied_file_is_asked(cli: Any, project: Path, permission: dict[str, Any],
                                              link: str) -> None:
    write_config(project, permission)
    (project / "secret.txt").write_text(SECRET)
    target = project / link
    target.parent.mkdir(parents=True, exist_ok=True)
    os.link(project / "secret.txt", target)
    args = {"filePath": link}
    agree(cli, project, args, "ask")
    code, out, err = run_read(cli, link)
    assert code == 4 and SECRET not in out, err
    assert "hard links" in err
    code, out, err = run_read(cli, link, "--yes")  # a person may still approve it
    assert code == 0 and SECRET in out, err


def test_a_hard_link_is_denied_when_its_own_name_is_denied(cli: Any, project: Path) -> None:
    write_config(project, {"read": {"*secret*": "deny"}})
    (project / "secret.txt").write_text(SECRET)
    os.link(project / "secret.txt", project / "secret-copy")
    agree(cli, project, {"filePath": "secret-copy"}, "deny")
    code, out, _ = run_read(cli, "secret-copy", "--yes")
    assert code == 4 and SECRET not in out


@pytest.mark.parametrize("permission", [
    {},  # the defaults: asks (for .env), but no read deny
    {"read": {"*.env": "ask"}},
    {"bash": {"rm *": "deny"}},  # a deny of another permission
])
def test_without_a_read_deny_a_hard_link_reads_as_usual(cli: Any, project: Path,
                                                       permission: dict[str, Any]) -> None:
    write_config(project, permission)
    (project / "a.txt").write_text(SECRET)
    os.link(project / "a.txt", project / "b.txt")
    agree(cli, project, {"filePath": "b.txt"}, "allow")
    code, out, err = run_read(cli, "b.txt")
    assert code == 0 and SECRET in out, err


def test_a_single_link_file_is_not_asked(cli: Any, project: Path) -> None:
    write_config(project, {"read": {"*secret.txt": "deny"}})
    (project / "notes.md").write_text("plain")
    agree(cli, project, {"filePath": "notes.md"}, "allow")


def test_an_edit_deny_holds_for_a_hard_link(cli: Any, project: Path) -> None:
    write_config(project, {"edit": {"*": "allow", "*protected.cfg": "deny"}})
    (project / "protected.cfg").write_text("keep")
    os.link(project / "protected.cfg", project / "innocent.txt")
    args = {"filePath": "innocent.txt", "content": "changed"}
    agree(cli, project, args, "ask", tool="write")
    code, _, err = cli("run", "write", "--args", json.dumps(args))
    assert code == 4, err
    assert (project / "protected.cfg").read_text() == "keep"


# -- symlinks ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("link", ["notes.txt", "docs/readme.md", "a/b/c"])
@pytest.mark.parametrize("via_dir", [False, True])
def test_a_symlink_meets_the_deny_of_its_target(cli: Any, project: Path, link: str, via_dir: bool) -> None:
    write_config(project, {"read": {"*.key": "deny"}})
    (project / "keys").mkdir()
    (project / "keys" / "id.key").write_text(SECRET)
    if via_dir:  # a symlinked directory on the way: `d/id.key` really is `keys/id.key`
        (project / "d").symlink_to(project / "keys")
        path = "d/id.key"
        # the name itself already ends in .key; the real path is what a `keys/*` deny would need
        write_config(project, {"read": {"*keys/*": "deny"}})
    else:
        target = project / link
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(project / "keys" / "id.key")
        path = link
    agree(cli, project, {"filePath": path}, "deny")
    code, out, _ = run_read(cli, path, "--yes")
    assert code == 4 and SECRET not in out


# -- the truncation directory ------------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A private directory outside the project, with a secret in it."""
    place = tmp_path / "elsewhere"
    place.mkdir()
    (place / "id_rsa").write_text(SECRET)
    return place


def _store_dir(isolated_env: dict[str, Path]) -> Path:
    store = isolated_env["data"] / "tool-output"
    store.mkdir(mode=0o700, exist_ok=True)
    return store


def test_a_real_output_file_reads_without_an_ask(cli: Any, isolated_env: dict[str, Path]) -> None:
    from forge_tools.tools.outputs import OutputStore

    _store_dir(isolated_env)
    real = OutputStore.from_env().write_text("bash", "full output\n").path  # one the store wrote
    agree(cli, isolated_env["project"], {"filePath": str(real)}, "allow")
    code, out, err = run_read(cli, str(real))
    assert code == 0 and "full output" in out, err


@pytest.mark.parametrize("name", ["tool_0123456789abcdefghijklmnop-bash.txt", "x", "sub/y"])
def test_a_symlink_in_the_truncation_dir_asks_for_where_it_points(
    cli: Any, isolated_env: dict[str, Path], outside: Path, name: str
) -> None:
    store = _store_dir(isolated_env)
    link = store / name
    if "/" in name:  # a symlinked directory inside the store
        (store / "sub").symlink_to(outside)
        link = store / "sub" / "id_rsa"
    else:
        link.symlink_to(outside / "id_rsa")
    args = {"filePath": str(link)}
    agree(cli, isolated_env["project"], args, "ask")
    code, out, err = run_read(cli, str(link))
    assert code == 4 and SECRET not in out, err
    assert f"{outside.as_posix()}/*" in err  # the question names where the file really is


def test_a_symlinked_truncation_dir_does_not_carry_the_allow(
    cli: Any, isolated_env: dict[str, Path], outside: Path
) -> None:
    store = isolated_env["data"] / "tool-output"
    store.symlink_to(outside)
    args = {"filePath": str(store / "id_rsa")}
    agree(cli, isolated_env["project"], args, "ask")
    code, out, _ = run_read(cli, str(store / "id_rsa"))
    assert code == 4 and SECRET not in out
