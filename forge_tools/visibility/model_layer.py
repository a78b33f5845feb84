"""Layer one (SPEC 3.1): which tools the model, provider, client and flags allow.

The rules are a table, not code paths, so `layers` and `explain` can quote the rule that kept or
dropped a tool. `lsp` and `plan_exit` are gated earlier, at registration (SPEC 2); their rows here only
explain that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from forge_tools.named_tuple import NamedTuple

PATCH_PROVIDERS_NOTE = "gpt- in the model id, and neither oss nor gpt-4"


class ModelContext(NamedTuple):
    """What layer one looks at: `provider/model` split, the client name and the flags."""

    provider: str | None
    model_id: str
    client: str
    flags: frozenset[str]

    @classmethod
    def of(cls, model: str | None, client: str, flags: Iterable[str]) -> ModelContext:
        provider, _, model_id = (model or "").partition("/")
        if not model_id:  # "gpt-5" without a provider: the whole string is the model id
            provider, model_id = "", provider
        return cls(provider or None, model_id, client, frozenset(flags))

    @property
    def patch_mode(self) -> bool:
        """SPEC 3.1: `gpt-` in the model id, and neither `oss` nor `gpt-4` (case-sensitive)."""
        m = self.model_id
        return "gpt-" in m and "oss" not in m and "gpt-4" not in m


class ModelRule(NamedTuple):
    """One row of the table: the tools it governs, when they stay, and the sentence to quote."""

    id: str
    tools: tuple[str, ...]
    text: str
    keep: Callable[[ModelContext], bool]
    fix: str  # what a person can do to keep the tool

    def to_json(self) -> dict[str, Any]:
        """The rule shape of `layers --format json` (`permission`, `pattern`, `action`, `origin`), all
        null here since a model rule is no permission rule, plus `kind: "model"`, `id` and `text`."""
        return {
            "permission": None,
            "pattern": None,
            "action": None,
            "kind": "model",
            "id": self.id,
            "text": self.text,
            "origin": {"path": None, "line": None, "column": None,
                       "description": "forge-tools model layer (opencode 1.18.33's model rules)"},
        }

    def __str__(self) -> str:
        return f"model rule {self.id}: {self.text}"


MODEL_RULES: tuple[ModelRule, ...] = (
    ModelRule(
        "websearch-provider", ("websearch",),
        "websearch stays only when the provider is opencode or opencode-go, or flag exa or parallel is on",
        lambda c: c.provider in ("opencode", "opencode-go") or bool({"exa", "parallel"} & c.flags),
        "use --flag exa (or parallel), or a model from provider opencode or opencode-go",
    ),
    ModelRule(
        "patch-mode", ("apply_patch",),
        f"apply_patch stays only in patch mode ({PATCH_PROVIDERS_NOTE})",
        lambda c: c.patch_mode,
        "use a model whose id has gpt- and neither oss nor gpt-4 (e.g. --model openai/gpt-5)",
    ),
    ModelRule(
        "edit-mode", ("edit", "write"),
        f"edit and write stay only outside patch mode (patch mode: {PATCH_PROVIDERS_NOTE})",
        lambda c: not c.patch_mode,
        "use a model outside patch mode (e.g. --model anthropic/claude-sonnet-4); "
        "in patch mode apply_patch edits files",
    ),
    ModelRule(
        "question-client", ("question",),
        "question stays only when the client is app, cli or desktop, or flag question is on",
        lambda c: c.client in ("app", "cli", "desktop") or "question" in c.flags,
        "use --client cli (or app, desktop), or --flag question",
    ),
)

#: Registration-time gates (SPEC 2): the tool is not even a candidate without them.
REGISTRATION_GATES: dict[str, str] = {
    "lsp": "lsp is registered only with flag lsp (use --flag lsp)",
    "plan_exit": "plan_exit is registered only with flag plan and client cli (use --flag plan --client cli)",
}

#: Every flag some rule reads (SPEC 2, 3.1); any other value is a typo, since nothing would read it.
KNOWN_FLAGS: tuple[str, ...] = ("exa", "lsp", "parallel", "plan", "question")
#: The clients SPEC 3.1 names. Clients are open-ended (a new front end may bring its own name), so an
#: unknown one is only noted, with what it changes in layer one.
KNOWN_CLIENTS: tuple[str, ...] = ("app", "cli", "desktop")


def client_note(client: str) -> str | None:
    """One line for a client outside KNOWN_CLIENTS: the layer-one rules that then drop tools."""
    if client in KNOWN_CLIENTS:
        return None
    from difflib import get_close_matches

    close = get_close_matches(client, KNOWN_CLIENTS, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return (f"--client {client!r} is not one of the known clients ({', '.join(KNOWN_CLIENTS)}){hint}; "
            "in layer one it drops question (unless --flag question) and does not register plan_exit "
            "(that needs client cli)")


_RULES_BY_TOOL: dict[str, ModelRule] = {t: rule for rule in MODEL_RULES for t in rule.tools}


class ModelVerdict(NamedTuple):
    """Layer one's answer for one tool, with the table row that gave it (None: no row applies)."""

    kept: bool
    reason: str
    rule: ModelRule | None


_NO_ROW = ModelVerdict(True, "no model/provider/flag rule applies", None)  # most tools': one record


def _situation(ctx: ModelContext) -> str:
    model = f"{ctx.provider}/{ctx.model_id}" if ctx.provider else (ctx.model_id or "no model")
    flags = ", ".join(sorted(ctx.flags)) or "none"
    return f"model {model}, client {ctx.client}, flags {flags}"


def model_verdict(tool_id: str, ctx: ModelContext) -> ModelVerdict:
    """Layer one for one tool: kept unless its table row says otherwise."""
    rule = _RULES_BY_TOOL.get(tool_id)
    if rule is None:
        return _NO_ROW
    if rule.keep(ctx):
        return ModelVerdict(True, f"kept: {rule.text} ({_situation(ctx)})", rule)
    return ModelVerdict(False, f"{rule.text}; here: {_situation(ctx)}", rule)


def model_layer(tool_ids: Iterable[str], ctx: ModelContext) -> dict[str, ModelVerdict]:
    """Layer one for every candidate (pure)."""
    return {tool_id: model_verdict(tool_id, ctx) for tool_id in tool_ids}
