"""The checks of the builtins' argument models that are not types: plain functions, so the shipped
validator of a builtin (`tools/schema_cache.py`) can name them and decide a call without the model.
The models call these same functions; nothing here imports pydantic."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit


def drop_description(cls: Any, value: Any) -> Any:
    """bash's model validator (before): opencode 1.18.33's bash has no `description`; a call that still
    sends one (earlier opencode asked for it, and models still write it) runs as opencode runs it, the
    key dropped. Other unknown keys stay errors, with a did-you-mean."""
    if isinstance(value, dict) and "description" in value:
        return {k: v for k, v in value.items() if k != "description"}
    return value


def command_text(value: str) -> str:
    """bash's `command`: not blank, and no NUL (bash cannot receive one)."""
    if not value.strip():
        raise ValueError("command must not be empty")
    if "\x00" in value:
        raise ValueError("command must not contain a NUL character (bash cannot receive one)")
    return value


def http_url(value: str) -> str:
    """webfetch's `url`: a complete http:// or https:// address (surrounding space dropped)."""
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError("the URL must be a complete http:// or https:// address")
    return value.strip()
