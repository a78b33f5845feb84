"""The `codex` runtime: Codex CLI 0.171's config layers and trust (`config.py`), its Starlark
exec-policy rules (`rules.py`), the policy's decision and Codex's fallback (`decide.py`), the shell
lowering before the policy (`shell.py`); checked against its binary in tests/compat/codex."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "RUNTIME":
        from forge_tools.runtimes.codex.runtime import RUNTIME

        return RUNTIME
    raise AttributeError(name)
