"""The turn's client and flags as opencode's environment sets them (layer one, SPEC 3.1; issue 10).

opencode reads its layer-one switches from the environment when it starts, so every forge-tools
answer about a turn does too: `layers`, `explain` (with `--call`), `run`, `check` (its findings and
`--expect`) and the library's `resolve`/`decide_call` all take their request's client and flags from
`turn_switches`, and so give the same answer for the same call in the same environment.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

#: opencode 1.18.33's layer-one switches: flag -> the variables that turn it on (any one is enough),
#: and for `lsp` and `plan` the variable that, when set, decides instead of OPENCODE_EXPERIMENTAL
OPENCODE_FLAG_VARS: dict[str, tuple[str, ...]] = {
    "exa": ("OPENCODE_EXPERIMENTAL", "OPENCODE_ENABLE_EXA", "OPENCODE_EXPERIMENTAL_EXA"),
    "parallel": ("OPENCODE_ENABLE_PARALLEL", "OPENCODE_EXPERIMENTAL_PARALLEL"),
    "question": ("OPENCODE_ENABLE_QUESTION_TOOL",),
}
OPENCODE_EXPERIMENTAL_FLAGS: dict[str, str] = {
    "lsp": "OPENCODE_EXPERIMENTAL_LSP_TOOL",
    "plan": "OPENCODE_EXPERIMENTAL_PLAN_MODE",
}
_TRUE, _FALSE = ("true", "yes", "on", "1", "y"), ("false", "no", "off", "0", "n")


def turn_switches(client: str | None = None, flags: Iterable[str] = (),
                  env: Mapping[str, str] | None = None) -> tuple[str, frozenset[str]]:
    """(client, flags) of a turn: `client` when given, else `OPENCODE_CLIENT`, else `cli` (opencode's
    default); `flags` plus every flag the environment turns on. A switch set to a word opencode does
    not take is a UsageError (exit 2): opencode refuses to start with it."""
    env = os.environ if env is None else env
    chosen = client if client is not None else env.get("OPENCODE_CLIENT") or "cli"
    return chosen, frozenset(flags) | opencode_env_flags(env)


def opencode_env_flags(env: Mapping[str, str] | None = None) -> frozenset[str]:
    """The flags opencode's environment turns on; `--flag` adds to them."""
    env = os.environ if env is None else env
    on = {flag for flag, names in OPENCODE_FLAG_VARS.items() if any(_env_bool(env, n) for n in names)}
    experimental = bool(_env_bool(env, "OPENCODE_EXPERIMENTAL"))
    for flag, name in OPENCODE_EXPERIMENTAL_FLAGS.items():
        own = _env_bool(env, name)
        if own if own is not None else experimental:
            on.add(flag)
    return frozenset(on)


def _env_bool(env: Mapping[str, str], name: str) -> bool | None:
    """An opencode switch as opencode reads it (exact, lower-case words); None when unset."""
    from forge_tools.errors import UsageError

    value = env.get(name)
    if value is None:
        return None
    if value in _TRUE or value in _FALSE:
        return value in _TRUE
    raise UsageError(f"{value!r} is not one of {', '.join(_TRUE + _FALSE)} (opencode would not start "
                     "with it either); fix or unset it", where=f"env {name}")
