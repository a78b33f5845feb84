"""The sandbox plan (tools/sandbox.py) from rules and a real project tree, and the `run` options.

The plan is pure apart from reading the tree, so these need no bubblewrap; what the mounts do to real
commands is tests/security/test_sandbox_differential.py.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forge_tools.origin import Origin
from forge_tools.rule import Rule
from forge_tools.tools import sandbox
from forge_tools.tools.sandbox import bwrap_argv, plan_sandbox

CLI = Callable[..., tuple[int, str, str]]


def rules(*specs: tuple[str, str, str]) -> tuple[Rule, ...]:
    return tuple(Rule(p, pattern, action, Origin("test")) for p, pattern, action in specs)  # type: ignore[arg-type]


BASE = rules(("*", "*", "allow"), ("external_directory", "*", "ask"))


def modes(plan: sandbox.SandboxPlan, root: Path) -> dict[str, tuple[str, str]]:
    real = os.path.realpath(root)
    return {os.path.relpath(m.path, real) if m.path.startswith(real) else m.path: (m.mode, m.why)
            for m in plan.mounts}


@pytest.fixture
def tree(project: Path) -> Path:
    for rel in ("src/a.py", "src/deep/er/canary.txt", "secrets/key", "docs/x.md", ".env"):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text("x")
    (project / "opencode.json").write_text("{}")
    return project


def test_the_default_rules_keep_what_decides_read_only_and_the_rest_writable(tree: Path) -> None:
    (tree / ".git" / "hooks").mkdir(exist_ok=True)
    (tree / ".git" / "config").write_text("[core]\n")
    plan = plan_sandbox(BASE, tree, decides=[tree / "src" / "a.py", "/elsewhere/plug.py"])
    got = modes(plan, tree)
    assert got["."] == ("rw", "project")  # a new top-level file (node_modules/) can be made
    for rel in ("src", "docs", "secrets", ".git", "src/deep"):
        assert rel not in got or got[rel][1] == "pin"  # the root's mode, not mounted again
    assert got["opencode.json"] == ("ro", "config")
    assert got["src/a.py"] == ("ro", "config")  # a file the config names as code
    assert got[".git/hooks"] == got[".git/config"] == ("ro", "config")
    assert "/elsewhere/plug.py" not in got  # outside the project: not mounted at all
    assert "opencode.jsonc" in plan.reserved and ".claude" in plan.reserved and ".mcp.json" in plan.reserved
    assert "opencode.json" not in plan.reserved  # it exists: a read-only bind
    assert "/" not in got  # `* allow` before `external_directory * ask`: outside is asked, not mounted
    assert got["/usr"] == ("ro", "system")
    assert got["/tmp"] == ("scratch", "private")
    assert got[os.path.realpath(os.environ["HOME"])] == ("scratch", "private home")  # caches, discarded


def test_a_worktree_git_file_is_read_only(tree: Path) -> None:
    import shutil

    shutil.rmtree(tree / ".git")
    (tree / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")
    assert modes(plan_sandbox(BASE, tree), tree)[".git"] == ("ro", "config")


def test_an_edit_deny_is_a_read_only_bind_and_its_parents_are_pinned(tree: Path) -> None:
    plan = plan_sandbox((*BASE, *rules(("edit", "src/deep/er/canary.txt", "deny"))), tree)
    got = modes(plan, tree)
    assert got["src/deep/er/canary.txt"] == ("ro", "rule")
    assert got["src/deep"] == ("rw", "pin") and got["src/deep/er"] == ("rw", "pin")
    assert "src/a.py" not in got
    paths = [m.path for m in plan.mounts]
    assert paths.index(os.path.realpath(tree / "src/deep")) < paths.index(
        os.path.realpath(tree / "src/deep/er/canary.txt"))  # parents first: bwrap applies them in order


def test_a_read_deny_hides_files_and_directories(tree: Path) -> None:
    got = modes(plan_sandbox((*BASE, *rules(("read", "*.env", "deny"), ("read", "secrets/*", "deny"))), tree),
                tree)
    assert got[".env"][0] == "hidden"
    assert got["secrets"][0] == "hidden"
    assert "secrets/key" not in got  # masked with its directory


def test_a_catch_all_edit_deny_with_allowed_files_below(tree: Path) -> None:
    plan = plan_sandbox((*BASE, *rules(("edit", "*", "deny"), ("edit", "docs/*", "allow"))), tree)
    got = modes(plan, tree)
    assert got["."][0] == "ro" and "src" not in got  # src keeps the root's mode
    assert got["docs"][0] == "rw"
    assert got["opencode.json"][0] == "ro"
    assert plan.reserved == ()  # nothing can be made at the top level: no placeholder is needed


def test_forge_tools_data_dir_is_read_only_wherever_a_call_can_reach_it(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The data dir holds what the next forge-tools process trusts (the class code the console keeps
    and runs, the hook's memo): read-only inside the project whatever edit allows, and in an external
    dir the rules let the call write."""
    inside = tree / ".forge-data"
    (inside / "cache").mkdir(parents=True)
    got = modes(plan_sandbox(BASE, tree, own_dirs=[inside]), tree)
    assert got["."][0] == "rw" and got[".forge-data"][0] == "ro"
    outside = tmp_path / "elsewhere"
    (outside / "data" / "cache").mkdir(parents=True)
    writable = (*BASE, *rules(("external_directory", f"{outside}/*", "allow"),
                              ("edit", "../elsewhere/*", "allow")))
    got = modes(plan_sandbox(writable, tree, own_dirs=[outside / "data"]), tree)
    assert got[os.path.realpath(outside)][0] == "rw" and got[os.path.realpath(outside / "data")][0] == "ro"
    monkeypatch.setenv("FORGE_DATA_DIR", str(inside))
    assert modes(sandbox.call_plan({"ruleset": writable}, tree), tree)[".forge-data"][0] == "ro"  # `run`'s


def test_external_directories_are_mounted_as_the_rules_and_the_call_allow(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "out").mkdir(parents=True)
    allow = rules(("external_directory", f"{outside}/*", "allow"), ("edit", "../*", "ask"))
    assert modes(plan_sandbox((*BASE, *allow), tree), tree)[os.path.realpath(outside)] == \
        ("ro", "external_directory")  # read-only unless edit allows
    writable = (*BASE, *allow, *rules(("edit", "../outside/*", "allow")))
    got = modes(plan_sandbox(writable, tree, output_dirs=[outside / "out"]), tree)
    assert got[os.path.realpath(outside)][0] == "rw"
    assert got[os.path.realpath(outside / "out")][0] == "ro"  # the truncation dir: the wrapper writes it
    asked = modes(plan_sandbox(allow[1:], tree, approved_external=[f"{outside}/*"]), tree)
    assert asked[os.path.realpath(outside)][0] == "ro"
    provided = modes(plan_sandbox(BASE, tree, approved_external=["/dev/*", "/proc/self/*"]), tree)
    assert "/dev" not in provided and "/proc/self" not in provided  # bwrap's own /dev and /proc serve those
    taken_back = (*BASE, *allow, *rules(("external_directory", f"{outside}/*", "deny")))
    assert os.path.realpath(outside) not in modes(plan_sandbox(taken_back, tree), tree)


def test_a_link_out_of_the_project_is_not_followed(tree: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tree / "src" / "out").symlink_to(target)
    plan = plan_sandbox((*BASE, *rules(("edit", "src/out", "deny"))), tree)
    assert all(not m.path.startswith(os.path.realpath(target)) for m in plan.mounts)


def test_the_network_follows_webfetch_and_the_commands(tree: Path) -> None:
    assert plan_sandbox(BASE, tree).network
    no_web = (*BASE, *rules(("webfetch", "*", "deny")))
    assert not plan_sandbox(no_web, tree).network
    assert plan_sandbox(no_web, tree, commands=["curl -s example.org"]).network


def test_the_argv(tree: Path) -> None:
    no_web = (*BASE, *rules(("webfetch", "*", "deny"), ("read", ".env", "deny"),
                            ("read", "secrets/*", "deny")))
    argv = bwrap_argv(plan_sandbox(no_web, tree), ["/bin/bash", "-c", "true"], str(tree), bwrap="bwrap")
    text = " ".join(argv)
    for flag in ("--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent", "--disable-userns",
                 "--cap-drop ALL", "--new-session"):
        assert flag in text
    env = os.path.realpath(tree / ".env")
    assert f"--ro-bind /dev/null {env}" in text
    secrets = os.path.realpath(tree / "secrets")
    assert f"--tmpfs {secrets} --remount-ro {secrets}" in text
    assert argv[-4:] == ["--", "/bin/bash", "-c", "true"]
    assert "--unshare-net" not in bwrap_argv(plan_sandbox(BASE, tree), ["true"], str(tree))


def _cli_bash(cli: CLI, *options: str) -> tuple[int, str, str]:
    return cli("run", "bash", *options, "--args", json.dumps({"command": "echo hi"}))


def test_require_refuses_and_auto_says_so_where_bubblewrap_is_missing(
        cli: CLI, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    sandbox.availability.cache_clear()
    try:
        code, out, err = _cli_bash(cli, "--sandbox=require")
        assert code == 1 and "hi" not in out
        assert "the sandbox is required (--sandbox=require) but cannot start: bubblewrap (bwrap) is not " \
               "installed" in err
        code, out, err = _cli_bash(cli)
        assert code == 0 and out.strip() == "hi"
        notes = [line for line in err.splitlines() if "sandbox" in line]
        assert len(notes) == 1 and "ran without the sandbox: bubblewrap (bwrap) is not installed" in notes[0]
    finally:
        sandbox.availability.cache_clear()


def test_no_sandbox_says_what_it_means(cli: CLI, project: Path) -> None:
    code, out, err = _cli_bash(cli, "--no-sandbox")
    assert code == 0 and out.strip() == "hi"
    assert "sandbox off (--no-sandbox): a deny bounds command names only" in err


@pytest.mark.parametrize("options,where", [(("--sandbox=maybe",), "--sandbox"),
                                           (("--no-sandbox", "--sandbox=require"), "--no-sandbox")])
def test_bad_sandbox_options_are_usage_errors(cli: CLI, options: tuple[str, ...], where: str) -> None:
    code, _, err = _cli_bash(cli, *options)
    assert code == 2
    assert where in err and len(err.strip().splitlines()) == 1


def test_library_runs_default_to_auto() -> None:
    from forge_tools.call import RunSpec

    spec: Any = RunSpec("bash", {}, approve=lambda q: "reject")
    assert spec.sandbox == "auto"


def test_a_servers_program_under_a_private_dir_is_mounted_when_external_dirs_are_allowed(
        tree: Path, tmp_path: Path) -> None:
    """With `external_directory: allow` everywhere the host's `/` is bound, but `/tmp` and the home
    folder are still private scratch dirs over it: an MCP server's venv under `/tmp` must be bound
    read-only after them, or the server's program is not there (`bwrap: execvp ...: No such file`)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    allow_all = rules(("*", "*", "allow"), ("external_directory", "*", "allow"))
    plan = plan_sandbox(allow_all, tree, programs=[str(venv)])
    paths = [m.path for m in plan.mounts]
    real = os.path.realpath(venv)
    assert (real, "ro", "the server's program") in [(m.path, m.mode, m.why) for m in plan.mounts]
    hiding = [m.path for m in plan.mounts if m.mode == "scratch" and real.startswith(m.path + "/")]
    assert hiding, "the test's venv should be under a private scratch dir (/tmp)"
    assert all(paths.index(h) < paths.index(real) for h in hiding)  # bound after what would hide it
