"""The record of one finding code, and how it reads (`forge-tools rule`, SARIF rules, the docs pages).

A record is data: `check` builds one per code (one module each under `forge_tools/check/rules/`) and
hands them to the reporters in `CheckReport.codes`, so nothing here knows how a finding is produced.
"""

from __future__ import annotations

from typing import Literal

from forge_tools.named_tuple import NamedTuple

Level = Literal["error", "warning", "info"]

#: where each code is documented at length: a page of the MkDocs site under docs/, in the repository.
#: forge-tools has no public docs host, so this is a path inside the repository, never a made-up URL
#: (SARIF's `helpUri` must be an absolute URI, so SARIF rules carry the whole text in `help` instead).
DOCS_PAGE = "docs/rules.md"

#: what produces a finding of the code (`check` in the record names the function)
Kind = Literal[
    "config",  # raised as a ConfigError carrying the code while a config source is read or loaded
    "source",  # a scan of one config file or config directory before the config is loaded
    "context",  # a function CheckContext -> list[Finding], run by check.analysis.analyse
    "code",  # a problem found while loading project code (--load-code)
    "suppression",  # the inline `forge-tools: ignore` comments
    "expect",  # the --expect file
    "retired",  # no longer produced; the code keeps its meaning and is never reused
]


class CodeInfo(NamedTuple):
    """One stable finding code: what it means, how to fix it, an example, whether it is on by default,
    and which function produces it and which fixes it (`module:function` references)."""

    code: str
    name: str  # a slug: unreachable-rule
    level: Level
    summary: str  # the one-line title
    help: str  # the fix, in a sentence
    why: str = ""  # why it matters (the long description)
    example: str = ""  # a config (JSONC) that triggers it
    fixed: str = ""  # the same config fixed
    default: bool = True  # reported unless deselected; False: only when selected (an informational hint)
    kind: Kind = "context"
    check: str = ""  # `module:function` that produces the finding
    fixer: str = ""  # `module:function` Finding -> Edit | None for `check --fix`; "" when not fixable

    @property
    def autofix(self) -> bool:
        return bool(self.fixer)

    @property
    def title(self) -> str:
        """`FT104 trailing deny hides tool`: the code with words, for annotation titles."""
        return f"{self.code} {self.name.replace('-', ' ')}"

    @property
    def docs(self) -> str:
        """The repository path of the code's documentation (a heading of docs/rules.md)."""
        return f"{DOCS_PAGE}#{self.code.lower()}"

    @property
    def full_description(self) -> str:
        return f"{self.summary} {self.why}" if self.why else self.summary

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "name": self.name, "level": self.level, "default": self.default,
                "summary": self.summary, "description": self.full_description, "fix": self.help,
                "example": self.example or None, "fixed": self.fixed or None, "autofix": self.autofix,
                "docs": self.docs}

    def render(self, markdown: bool = False) -> str:
        """The whole text of the code (`forge-tools rule`, SARIF help, docs/rules.md)."""

        def block(text: str) -> str:
            return f"```jsonc\n{text}\n```" if markdown else "    " + text.replace("\n", "\n    ")

        head = f"{self.code} {self.name} ({self.level}{'' if self.default else ', off by default'})"
        lines = [f"## {head}" if markdown else head, "", self.summary]
        if self.why:
            lines += ["", f"{'**Why it matters.** ' if markdown else 'Why it matters: '}{self.why}"]
        if self.example:
            lines += ["", "**Example.**" if markdown else "Example that triggers it:", block(self.example)]
        lines += ["", f"{'**Fix.** ' if markdown else 'Fix: '}{self.help}"]
        if self.fixed:
            lines += ["", "**Fixed.**" if markdown else "Fixed:", block(self.fixed)]
        if not self.default:
            lines += ["", f"Off by default: reported only when selected (`--extend-select {self.code}` adds "
                          "it to the default set; `select` or `extend_select` in the check settings)."]
        if self.autofix:
            lines += ["", "`forge-tools check --fix` applies this fix where it is safe."]
        return "\n".join(lines) + "\n"
