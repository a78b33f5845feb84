"""opencode 1.18.33's decision of one call, without running it.

opencode puts a call's permission requests to its rules one after another (`Permission.ask`): each
pattern is the last matching rule's action (default ask); any deny refuses the call, any ask asks.
What the requests are is the tool's own: for `bash` the lowering of `shell.py` (an
`external_directory` request for the directories of checked arguments and a workdir outside the
project, then one `bash` request with every command's text); for `read`, `edit`/`write`, `glob` and
`grep` the steps below. There is no escalation of what cannot be pinned down: that is the gate's
(`permission.calls.decide_pattern`), not opencode's.

The project is opencode's `worktree` (the git root, forge-tools' project root) and its `directory`
(where it was started, forge-tools' cwd); a path inside either is not external.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.permission.calls import CallDecision, PatternDecision, PermissionRequest
from forge_tools.permission.evaluate import evaluate
from forge_tools.runtimes.opencode.shell import lower, path_of_argument

if TYPE_CHECKING:
    from collections.abc import Sequence

    from forge_tools.permission.evaluate import RulesetLike
    from forge_tools.runtimes.opencode.shell import OpencodeCommand
    from forge_tools.visibility.pipeline import PipelineResult

#: tools whose requests are opencode's own here; any other tool's are forge-tools' (said in the reason)
REPRODUCED = frozenset({"bash", "read", "edit", "write", "glob", "grep"})


def decide(result: PipelineResult, tool_id: str, args: dict[str, Any], project_root: Path,
           cwd: Path) -> tuple[CallDecision, str]:
    """(the decision, why in words)."""
    from forge_tools.visibility.call_decision import refused_call, validated_args

    refusal = refused_call(result, tool_id, args, project_root)
    if refusal is not None:
        return refusal, f"opencode does not offer it: {refusal.refused}"
    _, problem = validated_args(result, tool_id, args)
    if problem is not None:
        return CallDecision(args=args, refused=problem), problem
    worktree, directory = str(project_root), str(cwd)
    note = ""
    if tool_id in REPRODUCED:
        requests = requests_for(tool_id, args, worktree, directory)
    else:
        requests = _forge_requests(result, tool_id, args, project_root)
        note = (f" (opencode's own requests for {tool_id} are not reproduced separately: these are "
                "forge-tools' requests for it, matched as opencode matches them)")
    decision = CallDecision(checks_for(requests, result.ruleset), dict(args))
    return decision, reason(decision, project_root) + note


def checks_for(requests: list[PermissionRequest], *rulesets: RulesetLike) -> tuple[PatternDecision, ...]:
    """Each request's patterns put to the rules in turn (the last matching rule of the rulesets read as
    one, else ask)."""
    return tuple(PatternDecision(req.permission, pattern, *evaluate(req.permission, pattern, *rulesets))
                 for req in requests for pattern in req.patterns)


def reason(decision: CallDecision, project_root: Path | None = None) -> str:
    """What decided, in opencode's terms: which rule matched which text (or that none did)."""
    from forge_tools.report.locations import describe

    check = decision.deciding
    if check is None:
        return "opencode checks nothing for this call"
    rule = check.rule
    if rule is None:
        return f"no rule for {check.permission} matches {check.pattern!r} (opencode's default is ask)"
    return (f"its rule {check.permission} {json.dumps(rule.pattern)} {rule.action} "
            f"({describe(rule.origin, project_root)}) matches {json.dumps(check.pattern)}")


def contained(path: str, worktree: str, directory: str) -> bool:
    """Inside opencode's directory or worktree (lexically, as its `Filesystem.contains`)."""
    def inside(parent: str) -> bool:
        rel = os.path.relpath(path, parent)
        return rel != ".." and not rel.startswith(".." + os.sep)
    return inside(directory) or (worktree != "/" and inside(worktree))


def external(path: str, worktree: str, directory: str, kind: str) -> list[PermissionRequest]:
    """opencode's `assertExternalDirectory`: outside the project, ask for its folder (`kind`
    "directory": the path itself) with `/*`."""
    if contained(path, worktree, directory):
        return []
    folder = path if kind == "directory" else os.path.dirname(path)
    pattern = os.path.join(folder, "*").replace("\\", "/")
    return [PermissionRequest("external_directory", (pattern,), (pattern,))]


def _kind(path: str) -> str:
    return "directory" if os.path.isdir(path) else "file"


def requests_for(tool_id: str, args: dict[str, Any], worktree: str, directory: str
                 ) -> list[PermissionRequest]:
    """The permission requests opencode makes for a call of a tool it has, in its order."""
    if tool_id == "bash":
        return bash_requests(str(args.get("command", "")), args.get("workdir"), worktree, directory)
    if tool_id == "read":
        path = _absolute(str(args.get("filePath", "")), directory, resolve=True)
        return [*external(path, worktree, directory, _kind(path)),
                PermissionRequest("read", (_relative(worktree, path),), ("*",))]
    if tool_id in ("edit", "write"):
        path = _absolute(str(args.get("filePath", "")), directory)
        return [*external(path, worktree, directory, "file"),
                PermissionRequest("edit", (_relative(worktree, path),), ("*",))]
    if tool_id == "glob":
        folder = _absolute(str(args.get("path") or directory), directory, resolve=True)
        return [PermissionRequest("glob", (str(args.get("pattern", "")),), ("*",)),
                *external(folder, worktree, directory, "directory")]
    if tool_id == "grep":
        where = _absolute(str(args.get("path") or "."), directory)
        return [PermissionRequest("grep", (str(args.get("pattern", "")),), ("*",)),
                *external(where, worktree, directory, _kind(where))]
    raise ValueError(f"opencode's requests for {tool_id} are not reproduced")


def bash_requests(command: str, workdir: str | None, worktree: str, directory: str,
                  lowered: Sequence[OpencodeCommand] | None = None) -> list[PermissionRequest]:
    """`external_directory` for the checked arguments' folders and an outside workdir, then `bash`
    (`lowered`: the command's `shell.lower`, when the caller has it)."""
    cwd = os.path.normpath(os.path.join(directory, workdir)) if workdir else directory
    home = ""
    dirs: dict[str, None] = {}
    patterns: dict[str, None] = {}
    for command_ in lower(command) if lowered is None else lowered:
        for arg in command_.path_args:
            home = home or os.path.expanduser("~")
            path = path_of_argument(arg, cwd, home)
            if path is None or contained(path, worktree, directory):
                continue
            dirs[path if os.path.isdir(path) else os.path.dirname(path)] = None
        if command_.text:
            patterns[command_.text] = None
    if workdir and not contained(cwd, worktree, directory):  # no workdir: cwd is the directory
        dirs[cwd] = None
    requests = []
    if dirs:
        globs = tuple(os.path.join(d, "*") for d in dirs)
        requests.append(PermissionRequest("external_directory", globs, globs))
    if patterns:
        requests.append(PermissionRequest("bash", tuple(patterns)))
    return requests


def _absolute(path: str, directory: str, resolve: bool = False) -> str:
    """opencode's absolute path of a tool argument: as given when absolute, else joined to (or, for
    read and glob, resolved against) its directory."""
    if os.path.isabs(path):
        return os.path.normpath(path) if resolve else path
    return os.path.normpath(os.path.join(directory, path))


def _relative(worktree: str, path: str) -> str:
    """Node's `path.relative` (an empty string for the same path)."""
    rel = os.path.relpath(os.path.normpath(path), worktree)
    return "" if rel == "." else rel


def _forge_requests(result: PipelineResult, tool_id: str, args: dict[str, Any], project_root: Path
                    ) -> list[PermissionRequest]:
    """forge-tools' permission requests for a tool this runtime does not reproduce."""
    from forge_tools.tools.arguments import default_permission_requests, permission_requests_for
    from forge_tools.tools.contract import ToolContext
    from forge_tools.visibility.call_decision import validated_args

    verdict = result.get(tool_id)
    tool = verdict.tool if verdict is not None else None
    if tool is None:
        return [PermissionRequest(verdict.permission if verdict else tool_id, ("*",))]
    if tool.permission_requests is None:
        return default_permission_requests(tool)
    value, _ = validated_args(result, tool_id, args)
    try:
        return permission_requests_for(tool, value, ToolContext(agent=result.agent.name,
                                                                project_root=project_root))
    except Exception:  # arguments the tool cannot turn into requests: its `*` is checked
        return default_permission_requests(tool)
