"""Gemini CLI 0.61's policy engine (`PolicyEngine.check`), reproduced: rules by priority, highest first,
the first that matches decides (ties in load order, not deny-wins); a shell call's command is then cut
into its parts and each part is checked again (any deny denies, any ask asks); a redirection turns an
allow into an ask unless the rule says `allowRedirection`; with no `argsPattern` the shell heuristics
apply (git in an untrusted folder asks, dangerous commands ask, known-safe ones are allowed); nothing
matched: ask interactively, deny headless (`gemini -p`), allow in yolo mode. An allowed edit of a
build file (Makefile, package.json, ...) asks (denies headless).

Not reproduced (modelled as absent): safety checkers (`allowed-path` in autoEdit, conseca), the
"always allow" answers a person gives in a session, extension policies, IDE trust.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from forge_tools.runtimes.gemini.policy import (
    MCP_PREFIX,
    SHELL_TOOLS,
    GeminiRule,
    js_test,
    mcp_tool_name,
    parse_mcp_name,
    stable_stringify,
)
from forge_tools.runtimes.gemini.settings import GeminiSettings

ALIASES = {"search_file_content": "grep_search"}
EDIT_TOOLS = frozenset({"replace", "write_file"})
_EDIT_WORDS = frozenset({"write", "edit", "replace", "patch", "update", "create", "append", "save"})
BUILD_FILES = frozenset({"BUILD", "BUILD.bazel", "WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel", ".bazelrc",
                         ".blazerc", "Makefile", "makefile", "GNUmakefile", "CMakeLists.txt", "package.json",
                         "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lockb", "setup.py",
                         "setup.cfg", "pyproject.toml", "go.mod", "go.sum", "Cargo.toml", "Cargo.lock",
                         "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle",
                         "settings.gradle.kts", "Dockerfile", "Containerfile"})
BUILD_EXTENSIONS = frozenset({".bzl", ".bazel", ".bzlmod", ".mk", ".cmake"})
BUILD_FILE_RULE = GeminiRule("*", "ask_user", float(2**53 - 1), "Build File Protection",
                             text="build file protection")
ALWAYS_ALLOW_FRACTION = 950


@dataclass
class Step:
    """One thing the engine did on the way to its answer, for `explain`."""

    subject: str
    decision: str
    rule: GeminiRule | None
    why: str


@dataclass
class GeminiDecision:
    """Gemini's answer to one call: allow, ask_user or deny, the rule Gemini names, and the steps."""

    decision: str
    rule: GeminiRule | None
    steps: list[Step] = field(default_factory=list)

    @property
    def action(self) -> str:
        return {"ask_user": "ask"}.get(self.decision, self.decision)


class Engine:
    """The policy engine over one `GeminiSettings` (its rules, mode, interactivity, trust)."""

    def __init__(self, settings: GeminiSettings, workspace: Path | None = None) -> None:
        self.settings = settings
        self.rules = settings.rules
        self.mode = settings.mode
        self.non_interactive = not settings.interactive
        self.default = settings.default_decision
        self.trusted = settings.trusted
        self.workspace = Path(workspace or settings.cwd)
        self.any_pattern = any(r.args_pattern for r in self.rules)
        self.disable_always_allow = settings.disable_always_allow

    def _always_allow(self, rule: GeminiRule) -> bool:
        return round((rule.priority % 1) * 1000) == ALWAYS_ALLOW_FRACTION

    def matches(self, rule: GeminiRule, name: str, stringified: str | None, server: str | None,
                has_args: bool, annotations: dict[str, Any] | None = None) -> bool:
        """Gemini's `ruleMatches` for one candidate tool name."""
        if rule.modes and self.mode not in rule.modes:
            return False
        if rule.subagent is not None:
            return False
        if rule.mcp_name is not None:
            if rule.mcp_name == "*":
                if server is None:
                    return False
            elif server != rule.mcp_name:
                return False
        if not _tool_matches(rule, name, server):
            return False
        if rule.tool_annotations and (not annotations or any(
                annotations.get(k) != v for k, v in rule.tool_annotations.items())):
            return False
        if rule.args_pattern and (not has_args or stringified is None
                                  or not js_test(rule.args_pattern, stringified)):
            return False
        if rule.interactive is not None:
            if rule.interactive and self.non_interactive:
                return False
            if not rule.interactive and not self.non_interactive:
                return False
        return True

    def check(self, name: str, args: dict[str, Any] | None, server: str | None = None,
              steps: list[Step] | None = None, skip_heuristics: bool = False) -> GeminiDecision:
        """`PolicyEngine.check` of one call (`steps` collects what was decided on the way)."""
        steps = steps if steps is not None else []
        if server is None:
            parsed = parse_mcp_name(name)
            server = parsed[0] if parsed else None
        annotations = {"_serverName": server} if server else None
        stringified = stable_stringify(args) if args is not None and self.any_pattern else None
        shell = name in SHELL_TOOLS
        command = (args or {}).get("command") if shell else None
        dir_path = (args or {}).get("dir_path") if shell else None
        canonical = ALIASES.get(name, name)
        names = [name, canonical, *[k for k, v in ALIASES.items() if v == canonical]]
        names = list(dict.fromkeys(names))
        if name == "invoke_agent" and isinstance((args or {}).get("agent_name"), str):
            names.append(args["agent_name"])  # type: ignore[index]
        decision: str | None = None
        rule: GeminiRule | None = None
        for candidate in self.rules:
            if self.disable_always_allow and self._always_allow(candidate):
                continue
            if not any(self.matches(candidate, n, stringified, server, args is not None, annotations)
                       for n in names):
                continue
            verdict = candidate.decision
            subject = command if shell and command else name
            steps.append(Step(subject, verdict, candidate, f"first matching rule: {candidate.describe()}"))
            if not skip_heuristics and shell and command and not candidate.args_pattern:
                verdict = self.heuristics(command, verdict, dir_path, steps)
            if shell:
                decision, rule = self.check_shell(name, command, verdict, server, dir_path,
                                                  candidate.allow_redirection, candidate, steps)
            else:
                decision, rule = verdict, candidate
            break
        if decision is None:
            if self.mode == "yolo":
                decision = "allow"
                steps.append(Step(name, "allow", None, "no rule matches; yolo mode allows"))
            else:
                steps.append(Step(command or name, self.default, None,
                                  f"no rule matches; the default is {self.default}"
                                  + (" (headless)" if self.non_interactive else "")))
                if shell:
                    verdict = self.default
                    if not skip_heuristics and command:
                        verdict = self.heuristics(command, verdict, dir_path, steps)
                    decision, rule = self.check_shell(name, command, verdict, server, dir_path, False, None,
                                                      steps)
                else:
                    decision = self.default
        if decision == "allow" and any(n in EDIT_TOOLS or _edit_like(n) for n in names):
            target = _file_path(args)
            if target and is_build_file(target.strip()):
                decision = "deny" if self.non_interactive else "ask_user"
                rule = BUILD_FILE_RULE
                steps.append(Step(target, decision, None, "an edit of a build file needs confirmation"))
        return GeminiDecision(decision, rule, steps)

    def heuristics(self, command: str, decision: str, dir_path: Any, steps: list[Step]) -> str:
        """Gemini's `applyShellHeuristics` over the whole command line."""
        from forge_tools.runtimes.gemini.safety import contains_git, is_dangerous, is_known_safe
        from forge_tools.runtimes.gemini.shell import words

        if decision == "deny":
            return decision
        try:
            args = words(command)
        except Exception:
            return decision
        workspace = self.workspace
        cwd = (Path(os.path.normpath(workspace / dir_path)) if isinstance(dir_path, str) and dir_path
               else workspace)
        outside = cwd != workspace and workspace not in cwd.parents
        if outside and self.mode != "yolo":
            steps.append(Step(command, "ask_user", None, f"dir_path {dir_path} is outside the workspace"))
            return "ask_user"
        if contains_git(args) and not self.trusted:
            steps.append(Step(command, "ask_user", None, "a git command in an untrusted folder"))
            return "ask_user"
        if is_dangerous(args):
            if self.mode == "yolo":
                return decision
            steps.append(Step(command, "ask_user", None, "Gemini counts this command as dangerous"))
            return "ask_user"
        if decision == "ask_user" and is_known_safe(args, cwd, workspace):
            steps.append(Step(command, "allow", None, "Gemini counts this command as known safe"))
            return "allow"
        return decision

    def check_shell(self, name: str, command: Any, verdict: str, server: str | None, dir_path: Any,
                    allow_redirection: bool | None, rule: GeminiRule | None,
                    steps: list[Step]) -> tuple[str, GeminiRule | None]:
        """Gemini's `checkShellCommand`: every part of the line checked again, redirections downgraded."""
        from forge_tools.runtimes.gemini.shell import REDIRECTION_NAMES, parse_details, strip_wrapper

        if not command:
            return verdict, rule
        parsed = parse_details(command)
        details = parsed.details if parsed is not None else ()
        if not details or (parsed is not None and parsed.has_error):
            if verdict == "deny":
                return "deny", rule
            if self.mode == "yolo":
                if rule is not None and rule.args_pattern:
                    steps.append(Step(command, "deny", rule,
                                      "the line does not parse and the rule has a pattern"))
                    return "deny", rule
                return "allow", rule
            steps.append(Step(command, self.default, rule, "the line does not parse; the default decides"))
            return self.default, rule
        if verdict == "deny":
            return "deny", rule
        aggregate = verdict
        responsible = rule if rule is not None and verdict == rule.decision else None
        if self._downgrade(command, allow_redirection) and aggregate == "allow":
            steps.append(Step(command, "ask_user", None, "the line redirects; an allow becomes an ask"))
            aggregate, responsible = "ask_user", None
        for detail in details:
            if detail.name in REDIRECTION_NAMES:
                continue
            sub = detail.text.strip()
            atomic = sub == command or (detail.start == 0 and len(detail.text) == len(command))
            stripped = strip_wrapper(sub)
            again = [*([stripped] if stripped != sub else []), *([] if atomic else [sub])]
            for part in again:  # the unwrapped `bash -c` text, then the part itself
                result = self.check(name, {"command": part, "dir_path": dir_path}, server, steps, True)
                if result.decision == "deny":
                    return "deny", result.rule
                if result.decision == "ask_user":
                    responsible = result.rule if aggregate == "allow" else (responsible or result.rule)
                    aggregate = "ask_user"
                if (part is sub and result.decision == "allow" and aggregate == "allow"
                        and self._downgrade(sub, allow_redirection)):
                    aggregate, responsible = "ask_user", None
        return aggregate, (rule if aggregate == verdict else responsible)

    def _downgrade(self, command: str, allow_redirection: bool | None) -> bool:
        from forge_tools.runtimes.gemini.shell import has_redirection

        if allow_redirection or not has_redirection(command):
            return False
        return self.mode not in ("autoEdit", "yolo")

    def excluded_tools(self, tools: list[str], servers: dict[str, str]) -> list[str]:
        """Gemini's `getExcludedTools`: the tools a rule without argsPattern denies outright (or the
        default denies: headless), which the model is never offered."""
        out = []
        for tool in tools:
            server = servers.get(tool)
            annotations = {"_serverName": server} if server else None
            excluded, found = False, False
            for rule in self.rules:
                if self.disable_always_allow and self._always_allow(rule):
                    continue
                if not self.matches(replace(rule, args_pattern=None), tool, None, server, True, annotations):
                    continue
                if rule.args_pattern:
                    if rule.decision != "deny":
                        excluded, found = False, True
                        break
                    continue
                excluded, found = rule.decision == "deny", True
                break
            if not found and self.default == "deny":
                excluded = True
            if excluded:
                out.append(tool)
        return out


def _tool_matches(rule: GeminiRule, name: str, server: str | None) -> bool:
    pattern = rule.tool_name
    if pattern == "*":
        return True
    if "*" in pattern:
        if pattern == f"{MCP_PREFIX}*":
            return server is not None
        if pattern.startswith(MCP_PREFIX) and pattern.endswith("_*"):
            expected = pattern[len(MCP_PREFIX):-2]
            return server is not None and server == expected and name.startswith(f"{MCP_PREFIX}{expected}_")
        return name == pattern
    if name == pattern:
        return True
    if server and name:
        if (rule.mcp_name and not rule.tool_name.startswith(MCP_PREFIX)
                and name == mcp_tool_name(rule.mcp_name, rule.tool_name)):
            return True
        if rule.tool_name.startswith(MCP_PREFIX) and rule.tool_name == mcp_tool_name(server, name):
            return True
    return False


def _edit_like(name: str) -> bool:
    import re

    return any(token in _EDIT_WORDS for token in re.split(r"[^a-z0-9]+", name.lower()))


def _file_path(args: dict[str, Any] | None) -> str | None:
    if not isinstance(args, dict):
        return None
    keys = ("file_path", "path", "filePath", "file")
    target = next((args[k] for k in keys if args.get(k) is not None), None)
    return target if isinstance(target, str) else None


def is_build_file(path: str) -> bool:
    """Gemini's `isBuildFile`: Makefile, package.json, Cargo.toml, *.bzl, Dockerfile.x, ..."""
    base = os.path.basename(os.path.realpath(path.replace("\0", "").replace("\\", "/")))
    if base in BUILD_FILES or base.startswith(("Dockerfile.", "Containerfile.")):
        return True
    return os.path.splitext(base)[1].lower() in BUILD_EXTENSIONS
