"""`forge-tools hook install | uninstall | status --runtime NAME [--scope project|user]` (issue 32
item 4): the agent's hook entry written with the format-keeping JSON writer (`check/fix/writers.py`:
comments and layout stay), idempotently, with an absolute path to forge-tools. Where each agent
reads it: `runtimes/hooks.py`."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from forge_tools.named_tuple import NamedTuple
from forge_tools.runtimes.hooks import EVENT, MARK, entries, forge_command, hook_file, our_entry

#: the opencode shim: runs the hook with its own deadline and throws on anything but a clear allow
PLUGIN = """// forge-tools hook for opencode: every tool call is put to `forge-tools hook --runtime opencode`
// first; the call runs only on a clear {"decision": "allow"}. Written by `forge-tools hook install`.
// command: %(command)s
const COMMAND = %(argv)s
const DEADLINE_MS = 20000

export const ForgeToolsHook = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const payload = JSON.stringify({ tool: input.tool, args: output.args, cwd: directory })
    let answer
    try {
      const proc = Bun.spawn(COMMAND, { stdin: new Blob([payload]), stdout: "pipe", stderr: "pipe" })
      const timer = setTimeout(() => proc.kill(), DEADLINE_MS)
      const text = await new Response(proc.stdout).text()
      await proc.exited
      clearTimeout(timer)
      answer = JSON.parse(text)
    } catch (error) {
      throw new Error("forge-tools hook refused the call: it could not be asked (" + error + ")")
    }
    if (!answer || answer.decision !== "allow") {
      throw new Error((answer && answer.reason) || "forge-tools hook refused the call")
    }
    if (typeof answer.command === "string") {
      output.args.command = answer.command  // --sandbox: in place (a new output.args is ignored)
    }
  },
})
"""


class Change(NamedTuple):
    path: Path
    changed: bool
    note: str


def _ours(group: Any) -> bool:
    return MARK in json.dumps(group)


def install(agent: str, scope: str, project: Path, sandbox: bool = False) -> Change:
    """Write forge-tools' hook entry for `agent` (nothing when the same entry is there already; an
    older forge-tools entry is replaced)."""
    path = hook_file(agent, scope, project)
    if agent == "opencode":
        command = forge_command(agent, sandbox)
        import shlex

        text = PLUGIN % {"command": command, "argv": json.dumps(shlex.split(command))}
        if path.is_file() and path.read_text(encoding="utf-8", errors="replace") == text:
            return Change(path, False, "already installed")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return Change(path, True, "installed (opencode loads .opencode/plugins/ files with no trust step)")
    from forge_tools.check.fix.writers import json_append, json_remove

    keys = ["hooks", EVENT[agent]]
    entry = our_entry(agent, sandbox)
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    present = [e for e in entries(agent, path) if e.ours]
    if len(present) == 1 and present[0].command == entry["hooks"][0]["command"] and (
            agent != "claude" or present[0].on_failure == "block"):
        return Change(path, False, "already installed" + _codex_note(agent))
    text = json_remove(old, keys, _ours) if present else old
    text = json_append(text, keys, entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return Change(path, True, "installed" + _codex_note(agent))


def _codex_note(agent: str) -> str:
    if agent != "codex":
        return ""
    return ("; Codex CLI skips a hook nobody reviewed: open `/hooks` in Codex and trust it before it "
            "runs (again after any change to its command)")


def uninstall(agent: str, scope: str, project: Path) -> Change:
    path = hook_file(agent, scope, project)
    if agent == "opencode":
        if path.is_file() and MARK in path.read_text(encoding="utf-8", errors="replace"):
            path.unlink()
            return Change(path, True, "removed")
        return Change(path, False, "not installed")
    if not path.is_file() or not any(e.ours for e in entries(agent, path)):
        return Change(path, False, "not installed")
    from forge_tools.check.fix.writers import json_remove

    old = path.read_text(encoding="utf-8")
    path.write_text(json_remove(old, ["hooks", EVENT[agent]], _ours), encoding="utf-8")
    return Change(path, True, "removed")


def status(agent: str, project: Path) -> list[dict[str, Any]]:
    """Per scope: the file, forge-tools' entry (at file:line:col) and what would keep it from running."""
    from forge_tools.runtimes.hooks import SCOPES, switched_off

    out = []
    off = switched_off(agent, project)
    for scope in SCOPES:
        path = hook_file(agent, scope, project)
        found = [e for e in entries(agent, path) if e.ours]
        problems = []
        for e in found:
            if not e.program_exists():
                problems.append(f"its program {e.program} does not exist")
            if agent == "claude" and e.on_failure != "block":
                problems.append('no "onFailure": "block": Claude Code runs the call when the hook fails')
        if found and agent == "codex":
            problems.append("Codex CLI runs it only once reviewed and trusted in /hooks")
        problems += [f"{what} at {origin} turns hooks off" for origin, what in off]
        out.append({"agent": agent, "scope": scope, "file": str(path), "installed": bool(found),
                    "entries": [e.to_json() for e in found], "problems": problems if found else []})
    return out


def render_status(rows: list[dict[str, Any]], cwd: Path | None = None) -> list[str]:
    lines = []
    for row in rows:
        where = row["file"]
        if cwd is not None:
            with contextlib.suppress(ValueError):
                where = os.path.relpath(where, cwd) if Path(where).is_relative_to(cwd) else where
        if not row["installed"]:
            lines.append(f"{row['agent']} {row['scope']}: not installed ({where})")
            continue
        entry = row["entries"][0]
        lines.append(f"{row['agent']} {row['scope']}: installed at {entry['origin']['description']}: "
                     f"{entry['command']}")
        lines += [f"  problem: {p}" for p in row["problems"]]
    return lines
