"""Codex CLI's own findings (FT321 upward); filled in by the findings step."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from forge_tools.report.findings import Finding
    from forge_tools.runtimes.codex.config import CodexSettings


def codex_findings(settings: CodexSettings) -> list[Finding]:
    return []
