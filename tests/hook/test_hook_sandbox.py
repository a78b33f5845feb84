"""`forge-tools hook --sandbox` (issue 32 item 3): an allowed shell call comes back rewritten to run inside
the bubblewrap sandbox `run` uses, derived from the agent's rules, in each agent's rewrite field; the
rewritten line really runs in bwrap (run here with bash, as the agents run it), and a write the rules
deny fails inside it whatever program makes it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.hook.test_hook_process import (
    claude_payload,
    codex_payload,
    gemini_payload,
    hook,
    opencode_payload,
)

pytestmark = pytest.mark.skipif(
    subprocess.run(["sh", "-c", "command -v bwrap"], capture_output=True).returncode != 0,
    reason="bubblewrap is not installed (apt-get install bubblewrap)")


def bwrap_starts() -> bool:
    from forge_tools.tools.sandbox import availability

    return availability() is None


@pytest.fixture
def repo(project: Path) -> Path:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {
        "deny": ["Bash(rm:*)", "Edit(/secret/**)", "Read(/hidden/**)"]}}, indent=2))
    for folder in ("secret", "hidden", "work"):
        (project / folder).mkdir()
    (project / "hidden" / "key").write_text("s3cret\n")
    # the gate sees `make`; what the Makefile writes only the sandbox can hold
    (project / "Makefile").write_text("all:\n\techo made > secret/made\n\techo ok > work/ok\n")
    return project


def rewritten(answer: str) -> str:
    return str(json.loads(answer)["hookSpecificOutput"]["updatedInput"]["command"])


def run_as_agent(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The rewritten command line, run the way the agents run a shell call."""
    return subprocess.run(["/bin/bash", "-c", line], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_claude_gets_the_whole_input_back_with_the_command_in_bwrap(repo: Path) -> None:
    done = hook("claude", claude_payload(repo, "make"), None, "--sandbox")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    # Claude's own rules do not allow `make`: no decision, so Claude still asks about the sandboxed line
    assert set(answer) == {"hookEventName", "updatedInput"}
    assert answer["updatedInput"]["description"] == "d"
    line = answer["updatedInput"]["command"]
    assert line.split()[0].startswith("/") and line.split()[0].endswith("/bwrap")
    assert line.endswith("-- /bin/bash -c make")


@pytest.mark.skipif(not bwrap_starts(), reason="bubblewrap cannot create its namespaces here")
def test_the_rewritten_line_runs_in_bwrap_and_a_denied_write_fails_inside(repo: Path) -> None:
    line = rewritten(hook("claude", claude_payload(repo, "make"), None, "--sandbox").stdout)
    made = run_as_agent(line, repo)
    assert made.returncode != 0
    assert "Read-only file system" in made.stdout + made.stderr
    assert not (repo / "secret" / "made").exists()  # the edit deny holds for make's child too
    marker = f"forge-hook-sandbox-{os.getpid()}"
    probe = (f"cat hidden/key; echo inside > /tmp/{marker}; test -f /tmp/{marker} && echo private-tmp; "
             "echo ok > work/ok; echo hook >> .claude/settings.json")
    answer = hook("claude", claude_payload(repo, probe), None, "--sandbox")
    assert "updatedInput" in answer.stdout, answer.stdout
    inside = run_as_agent(rewritten(answer.stdout), repo)
    assert "s3cret" not in inside.stdout  # the read deny hides it
    assert "private-tmp" in inside.stdout and not Path(f"/tmp/{marker}").exists()  # bwrap's own /tmp
    assert (repo / "work" / "ok").read_text() == "ok\n"  # what the rules leave writable is
    assert "hook" not in (repo / ".claude" / "settings.json").read_text()  # the agent's config is not


def test_what_claude_itself_allows_is_allowed_with_the_rewrite(repo: Path) -> None:
    # `ls` is among Claude's read-only commands: Claude runs it without asking, so the rewrite may
    # carry an allow (the project's allow rules would not count: the workspace is not trusted)
    answer = json.loads(hook("claude", claude_payload(repo, "ls work"), None, "--sandbox").stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert "bwrap" in answer["hookSpecificOutput"]["updatedInput"]["command"]


def test_a_claude_ask_asks_about_the_sandboxed_line(repo: Path) -> None:
    # Claude Code 2.1.332 takes `updatedInput` beside an ask: the person is asked about the rewritten
    # line and, approved, that runs (tests/compat/hooks/claude-2.1.332.json `ask_rewrite`)
    settings = repo / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace('"deny"', '"ask": ["Bash(make:*)"], "deny"'))
    answer = json.loads(hook("claude", claude_payload(repo, "make all"), None, "--sandbox").stdout)
    inner = answer["hookSpecificOutput"]
    assert inner["permissionDecision"] == "ask" and "make" in inner["permissionDecisionReason"]
    assert inner["updatedInput"]["command"].endswith("-- /bin/bash -c 'make all'")
    assert inner["updatedInput"]["description"] == "d"
    # elsewhere an ask is a deny (no agent but Claude asks from a hook): denied, not rewritten
    (repo / ".codex" / "rules").mkdir(parents=True)
    (repo / ".codex" / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["make"], decision="prompt")\n')
    codex = json.loads(hook("codex", codex_payload(repo, "make all"), None, "--sandbox").stdout)
    assert codex["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "updatedInput" not in codex["hookSpecificOutput"]


def test_a_denied_call_is_denied_not_rewritten(repo: Path) -> None:
    answer = json.loads(hook("claude", claude_payload(repo, "env rm -rf work"), None, "--sandbox").stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "updatedInput" not in answer["hookSpecificOutput"]


def test_codex_gets_the_rewrite_only_with_an_allow_where_codex_would_allow(repo: Path) -> None:
    from forge_tools.hook import codex

    # no rule names `make`: Codex 0.171 runs it (in its own sandbox) without asking
    allowed = json.loads(hook("codex", codex_payload(repo, "make"), None, "--sandbox").stdout)
    # exactly the verified form: Codex throws out an answer with any other field
    assert set(allowed["hookSpecificOutput"]) == {"hookEventName", "permissionDecision", "updatedInput"}
    assert allowed["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert allowed["hookSpecificOutput"]["updatedInput"]["command"].endswith("-- /bin/bash -c make")
    # where Codex would ask, an allow would skip its approval: no rewrite (the hook gives no decision)
    assert codex.rewrite({"command": "make"}, "bwrap ... make", allows=False) is None


def test_gemini_and_opencode_take_it_in_their_own_fields(repo: Path) -> None:
    gemini = json.loads(hook("gemini", gemini_payload(repo, "make"), None, "--sandbox").stdout)
    assert gemini["hookSpecificOutput"]["hookEventName"] == "BeforeTool"
    assert set(gemini["hookSpecificOutput"]["tool_input"]) == {"command"}  # merged over the args
    assert "bwrap" in gemini["hookSpecificOutput"]["tool_input"]["command"]
    opencode = json.loads(hook("opencode", opencode_payload(repo, "make"), None, "--sandbox").stdout)
    assert opencode["decision"] == "allow" and "bwrap" in opencode["command"]


def test_the_opencode_shim_puts_the_rewrite_in_place(cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    assert cli("hook", "install", "--runtime", "opencode", "--sandbox")[0] == 0
    text = (repo / ".opencode" / "plugins" / "forge-tools.js").read_text()
    assert "hook --runtime opencode --sandbox" in text
    assert "output.args.command = answer.command" in text


def test_without_bubblewrap_the_sandboxed_call_is_refused(repo: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    done = hook("claude", claude_payload(repo, "make"), {"PATH": str(bare)}, "--sandbox")
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "the sandbox cannot start here (bubblewrap (bwrap) is not installed" in answer[
        "permissionDecisionReason"]


def test_a_write_into_a_slash_anchored_edit_deny_is_denied_by_the_hook(repo: Path) -> None:
    """Claude's `Edit(/secret/**)` is anchored at the project: in the gate's terms `secret/*` (the
    leading `/` kept, it matched nothing and `echo x > secret/y` got no decision)."""
    answer = json.loads(hook("claude", claude_payload(repo, "echo x > secret/y")).stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "rule edit 'secret/*'" in answer["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.skipif(not bwrap_starts(), reason="bubblewrap cannot create its namespaces here")
def test_the_sandboxed_command_starts_where_the_agent_s_shell_is(repo: Path) -> None:
    """The agent runs the line in its own current directory (Claude's after a `cd`, Gemini's `dir_path`,
    opencode's `workdir`): the sandboxed command starts there too, not in the payload's `cwd`."""
    line = rewritten(hook("claude", claude_payload(repo, "pwd"), None, "--sandbox").stdout)
    assert '--chdir "$PWD" --' in line  # not $(pwd -P): Gemini CLI refuses command substitution
    done = run_as_agent(line, repo / "work")
    assert done.stdout.strip() == str((repo / "work").resolve()), done.stderr
