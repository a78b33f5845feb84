"""One small error hierarchy; every error knows its exit code so the CLI never guesses."""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from forge_tools.origin import Origin


class ExitCode(IntEnum):
    """Exit codes documented in README.md and used by every command."""

    OK = 0
    FINDINGS = 1  # findings, a failed tool, or an unknown name
    USAGE = 2  # bad option, bad --args
    CONFIG = 3  # config or plugin could not be loaded
    PERMISSION = 4  # permission denied or rejected
    INTERRUPTED = 130


class ConfigProblem(StrEnum):
    """What kind of config problem a ConfigError is: the finding code `check` reports it as, given
    where the error is raised (each code's record is in forge_tools/check/rules/)."""

    SYNTAX = "FT001"  # the text cannot be parsed
    TYPE = "FT002"  # a value of the wrong type or not among the accepted values
    ACTION = "FT003"  # a permission action that is not allow, ask or deny
    UNKNOWN_KEY = "FT004"  # a key (or a check setting, or a finding code in one) that is not known
    FILE_REFERENCE = "FT005"  # a {file:...} substitution that cannot be read
    UNREADABLE = "FT006"  # a config file that cannot be read
    DUPLICATE_KEY = "FT007"  # a key written twice in one mapping
    UNUSABLE = "FT008"  # anything else that makes the config unusable as written


class ForgeToolsError(Exception):
    """Base of every error forge-tools reports to a person (one line, no traceback)."""

    exit_code: ExitCode = ExitCode.FINDINGS

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def one_line(self) -> str:
        return self.message


class UsageError(ForgeToolsError):
    """A bad option or argument value; `where` names the argument."""

    exit_code = ExitCode.USAGE

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.where = where

    def one_line(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class UnknownNameError(ForgeToolsError):
    """An unknown tool or agent name, with did-you-mean suggestions."""

    exit_code = ExitCode.FINDINGS

    def __init__(self, kind: str, name: str, suggestions: list[str] | None = None,
                 why: str | None = None) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = list(suggestions or [])
        hint = f" (did you mean {', '.join(repr(s) for s in self.suggestions)}?)" if self.suggestions else ""
        super().__init__(f"unknown {kind} {name!r}{hint}" + (f": {why}" if why else ""))


class ConfigError(ForgeToolsError):
    """A config file (or env/inline source) that cannot be used; carries its location."""

    exit_code = ExitCode.CONFIG

    def __init__(self, message: str, origin: Origin | None = None,
                 code: ConfigProblem | str = ConfigProblem.UNUSABLE) -> None:
        super().__init__(message)
        self.origin = origin
        self.code = ConfigProblem(code)

    def one_line(self) -> str:
        return f"{self.origin}: {self.message}" if self.origin is not None else self.message


class ConfigWarning(ConfigError):
    """Part of the config that forge-tools leaves out of its answers (an unknown key opencode drops,
    a plugin it does not load, a server name it cannot use), said by every command with its place
    (`sources.config_warnings`). `finding` is the code `check` reports it as, `hint` the fix."""

    def __init__(self, message: str, origin: Origin | None, finding: str, hint: str) -> None:
        super().__init__(message, origin)
        self.finding = finding
        self.hint = hint


class McpServerUnavailable(ConfigError):
    """A well-formed MCP server that could not be started, reached or listed: an outage, not a config
    mistake (`check --load-code` reports it as FT011, a warning that can be ignored)."""


class PluginError(ForgeToolsError):
    """A plugin that could not be loaded or misbehaved; named by plugin and origin."""

    exit_code = ExitCode.CONFIG

    def __init__(self, message: str, plugin: str, origin: Origin | None = None) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.origin = origin

    def one_line(self) -> str:
        where = f" ({self.origin})" if self.origin is not None else ""
        return f"plugin {self.plugin}{where}: {self.message}"


class ToolInputError(ForgeToolsError):
    """Tool input that is not valid JSON or does not fit the tool's schema."""

    exit_code = ExitCode.USAGE


class PermissionDenied(ForgeToolsError):
    """A call rejected by a `deny` rule; the message names the rule(s) and their origin."""

    exit_code = ExitCode.PERMISSION


class PermissionRejected(ForgeToolsError):
    """An `ask` answered with reject (by a person or a non-interactive policy)."""

    exit_code = ExitCode.PERMISSION

    def __init__(self, message: str, feedback: str | None = None) -> None:
        super().__init__(message)
        self.feedback = feedback
