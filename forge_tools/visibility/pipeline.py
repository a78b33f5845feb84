"""The whole visibility pipeline for one turn (SPEC 2 and 3): sources -> layer 1 -> 2 -> 3.

`resolve` records, for every candidate, every layer's verdict (even after an earlier layer dropped
it), the definition that would be sent and who changed it, and what it shadowed. `layers`, `explain`,
`run`, `check` and `diff` all read this one result, so they can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from forge_tools.errors import ConfigError, ForgeToolsError, PermissionDenied, UnknownNameError
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import EMPTY, Origin

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig
    from forge_tools.permission.agents import Agent
    from forge_tools.rule import Rule, Ruleset
    from forge_tools.sources.candidates import CandidateSet, Shadowing
    from forge_tools.sources.plugins import PluginHooks
    from forge_tools.tools.contract import SourceQuery, Tool, ToolSource, Unlisted
    from forge_tools.visibility.definition_layer import DefinitionChange, DefinitionOutcome, PlainOutcomes
    from forge_tools.visibility.model_layer import ModelRule

LayerName = Literal["model", "definition", "permission", "request"]
LAYERS: tuple[LayerName, ...] = ("model", "definition", "permission", "request")
TOOLS_OPTION = "--tools"
LAYER_THREE: tuple[LayerName, ...] = ("permission", "request")
"""The layers of the agent's rules and the request booleans: a tool hidden there by its permission's
`* deny` gets an ask instead under `run --force-hidden` (`call.call_ruleset`). A tool hidden at
any layer is refused by `run` without `--force-hidden` (`PipelineResult.require`)."""
#: tools a request may carry before many model APIs refuse it (OpenAI's limit; opencode users with
#: several MCP servers hit it without seeing why)
MODEL_TOOL_LIMIT = 128


_NO_OVERRIDES: Mapping[str, bool] = EMPTY  # read-only, shared (copies and pickles as itself)


class Request(NamedTuple):
    """What a turn is asked with; None/empty values mean the config's defaults."""

    agent: str | None = None
    model: str | None = None  # "provider/model"; None -> the agent's model, else config `model`
    client: str = "cli"
    flags: frozenset[str] = frozenset()
    session_permission: Path | None = None
    tool_overrides: Mapping[str, bool] = _NO_OVERRIDES  # read-only: one shared empty default
    pure: bool = False
    no_mcp: bool = False  # `--no-mcp`: start no MCP server (opencode's --pure still starts them)


class McpScope(NamedTuple):
    """How one question uses the MCP servers (`sources.mcp.load_mcp_tools`): the one tool it is about
    (None: every tool, so every server; `resolve`'s `focus` fills it in), how long each server may take
    to start (None: `sources.mcp.start_timeout()`) and what set that limit, and who hears progress."""

    tool_id: str | None = None
    start_s: float | None = None
    start_by: str = ""
    progress: Callable[[str], None] | None = None
    sandbox: str = "off"  # `run`'s setting: a local server it starts to list its tools is sandboxed too


class LayerVerdict(NamedTuple):
    """One layer's answer for one tool: kept or dropped, why, and the rule that decided."""

    layer: LayerName
    kept: bool
    reason: str
    rule: Rule | ModelRule | None = None

    def to_json(self) -> dict[str, Any]:
        return {"layer": self.layer, "kept": self.kept, "reason": self.reason,
                "rule": self.rule.to_json() if self.rule is not None else None}


@dataclass
class ToolVerdict:
    """One candidate's whole story for this turn."""

    id: str
    tool: Tool | None
    source: ToolSource
    shadowed: list[ToolSource]
    permission: str
    layers: list[LayerVerdict]
    visible: bool
    hidden_at: LayerName | None
    reason: str | None
    definition_outcome: DefinitionOutcome
    definition_changes: list[DefinitionChange] = field(default_factory=list)

    @property
    def definition(self) -> dict[str, Any] | None:
        """What the model is sent: `{"description", "parameters"}` (None when the code was not loaded)."""
        return self.definition_outcome.definition

    def layer(self, name: str) -> LayerVerdict:
        return next(v for v in self.layers if v.layer == name)

    @cached_property
    def tokens(self) -> int | None:
        """The estimated size of the definition the model is sent (None: hidden, or not loaded); computed
        once (`layers` shows it per row and sums it)."""
        from forge_tools.visibility.definition_layer import estimated_tokens

        definition = self.definition if self.visible else None
        return estimated_tokens(definition) if definition is not None else None

    @property
    def deciding(self) -> LayerVerdict | None:
        """The verdict that hid the tool (None when visible)."""
        return self.layer(self.hidden_at) if self.hidden_at else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source.to_json(),
            "shadowed": [s.to_json() for s in self.shadowed],
            "permission": self.permission,
            "visible": self.visible,
            "hidden_at": self.hidden_at,
            "reason": self.reason,
            "layers": [v.to_json() for v in self.layers],
            "tokens": self.tokens,
        }


class Sources(NamedTuple):
    """The loaded candidates and plugins, reusable across agents (for `layers --matrix`)."""

    candidates: CandidateSet
    hooks: PluginHooks | None
    problems: list[ForgeToolsError]
    notes: list[str]
    unlisted: Mapping[str, str]  # why MCP tools of `<server>_` are unknown (no code, ...)
    parts_unlisted: Sequence[Unlisted] = ()  # every part whose tools are not listed (plugins, servers)


class ToolHidden(PermissionDenied):
    """The tool is not in this agent's table: layer three (or a request boolean) hides it."""


@dataclass(eq=False)
class PipelineResult:
    """One agent's turn: every candidate's verdicts, the turn's ruleset, problems and notes."""

    request: Request
    agent: Agent
    agents: dict[str, Agent]
    model: str | None
    client: str
    flags: frozenset[str]
    ruleset: Ruleset
    tools: list[ToolVerdict]
    problems: list[ForgeToolsError]
    notes: list[str]
    shadowings: list[Shadowing]
    hooks: PluginHooks | None  # for the tool wrapper's before/after hooks (`run`)
    session_rules: tuple[Rule, ...] = ()
    request_rules: tuple[Rule, ...] = ()
    unlisted: Mapping[str, str] = field(default_factory=dict)  # see `Sources.unlisted`
    parts_unlisted: list[Unlisted] = field(default_factory=list)  # see `Sources.parts_unlisted`

    @property
    def disabled_note(self) -> str | None:
        """Said plainly when the agent asked for is disabled: its answers describe a turn that never runs."""
        if not self.agent.disabled:
            return None
        return (f"agent {self.agent.name} is disabled in the config (agent.{self.agent.name}.disable): "
                "it would not be used; this shows what it would get if it were enabled")

    def get(self, tool_id: str) -> ToolVerdict | None:
        return self._by_id.get(tool_id)

    @cached_property
    def _by_id(self) -> dict[str, ToolVerdict]:
        """Each id's verdict (the first, were an id listed twice), built once: `check`, `diff` and
        `run` ask for one tool per finding, call or change."""
        by_id: dict[str, ToolVerdict] = {}
        for t in self.tools:
            by_id.setdefault(t.id, t)
        return by_id

    def require(self, tool_id: str, allow_hidden: bool = False) -> ToolVerdict:
        """The one way `explain` and `run` pick a tool: its verdict, or a one-line refusal (unknown with
        did-you-mean, not registered without a flag, or hidden at any layer unless `allow_hidden`: the
        model is not offered a hidden tool, so `check --expect` and `explain --call` decide its calls as
        denied, and `run` refuses them too)."""
        from difflib import get_close_matches

        from forge_tools.visibility.model_layer import REGISTRATION_GATES

        verdict = self.get(tool_id)
        if verdict is None and tool_id in REGISTRATION_GATES:
            # a real builtin that needs a flag to be registered at all: say which, not "did you mean"
            raise ForgeToolsError(f"tool {tool_id!r} is not a candidate for this turn: "
                                  f"{REGISTRATION_GATES[tool_id]}")
        if verdict is None:
            why = next((text for prefix, text in self.unlisted.items() if tool_id.startswith(prefix)), None)
            raise UnknownNameError("tool", tool_id, get_close_matches(tool_id, self.ids, n=3, cutoff=0.5),
                                   why=why)
        if not verdict.visible and not allow_hidden:
            raise ToolHidden(self._hidden_message(verdict))
        return verdict

    def _hidden_message(self, verdict: ToolVerdict) -> str:
        from forge_tools.rule import Rule

        layer = verdict.hidden_at or "a layer"
        rule = next((lv.rule for lv in verdict.layers
                     if lv.layer in LAYER_THREE and not lv.kept and lv.rule is not None), None)
        reason = verdict.reason or "hidden"
        where = ""
        if isinstance(rule, Rule) and str(rule.origin) not in reason:
            where = f"; rule {rule.permission} {rule.pattern!r} {rule.action} at {rule.origin}"
        return (f"tool {verdict.id!r} is hidden from agent {self.agent.name!r} by the {layer} layer: "
                f"{reason}{where} (use --force-hidden to run it anyway)")

    @property
    def visible_ids(self) -> list[str]:
        return [t.id for t in self.tools if t.visible]

    @property
    def ids(self) -> list[str]:
        return [t.id for t in self.tools]

    @property
    def definition_tokens(self) -> int:
        """The estimated tokens of every visible tool's definition: what each request carries."""
        return sum(t.tokens or 0 for t in self.tools)

    @property
    def warnings(self) -> list[str]:
        visible = len(self.visible_ids)
        if visible <= MODEL_TOOL_LIMIT:
            return []
        return [f"agent {self.agent.name} would be sent {visible} tools; many models accept at most "
                f"{MODEL_TOOL_LIMIT} and refuse the request (hide some, e.g. a server's tools with "
                '`"<server>_*": "deny"` in the agent\'s permission)']

    def to_json(self) -> dict[str, Any]:
        """The `layers --format json` document."""
        return {
            "agent": self.agent.name,
            "agent_disabled": self.agent.disabled,
            "model": self.model,
            "client": self.client,
            "flags": sorted(self.flags),
            "tools": [t.to_json() for t in self.tools],
            "shadowed": [s.to_json() for s in self.shadowings],
            "problems": problems_json(self.problems),
            "notes": list(self.notes),
            "definition_tokens": self.definition_tokens,
            "warnings": self.warnings,
        }


def problems_json(problems: list[ForgeToolsError]) -> list[dict[str, Any]]:
    """The `problems` list of `layers`/`explain` JSON: objects, each problem once (see
    `sources.candidates.problem_to_json`)."""
    import json

    from forge_tools.sources.candidates import problem_to_json

    out: list[dict[str, Any]] = []
    seen: set[str] = set()  # each item's JSON text: equal items, equal texts (a plugin may add thousands)
    for problem in problems:
        item = problem_to_json(problem)
        key = json.dumps(item, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


# ------------------------------------------------------------------------------------------- inputs


#: the model opencode 1.18.33 uses when none is configured, with no provider credentials and its
#: bundled model list: the first available provider (`opencode`, free) and, by its priority list, its
#: `big-pickle` (tests/compat/layouts/no-model: it keeps `websearch`, `edit` and `write`)
OPENCODE_DEFAULT_MODEL = "opencode/big-pickle"


def config_model(loaded: LoadedConfig | None) -> str | None:
    """The config's `model`; in an opencode project without one, the model opencode itself falls back
    to (`OPENCODE_DEFAULT_MODEL`: what opencode picks where no provider is logged in)."""
    node = loaded.tree.get("model") if loaded is not None else None
    if node is not None and isinstance(node.value, str):
        return node.value
    if loaded is not None:
        from forge_tools.permission.agents import is_opencode_project

        if is_opencode_project(loaded):
            return OPENCODE_DEFAULT_MODEL
    return None


SESSION_OPTION = "--session-permission"
#: what a session file might hold by mistake, and where that setting goes instead
_SESSION_ELSEWHERE = {"model": "--model", "tools": "--tools", "agent": "--agent",
                      "default_agent": "--agent"}


def load_session_overlay(path: Path, home: Path) -> list[Rule]:
    """The `permission` map of a session overlay file (any config format), with file:line origins.

    The file holds a `permission` map and nothing else: any other key (a misspelling, or a setting
    such as `model` that a session file cannot change) is a located error, never silently ignored.
    """
    from difflib import get_close_matches

    from forge_tools.config.reader import parse_file
    from forge_tools.config.validation import config_keys, validation_errors
    from forge_tools.origin import Node
    from forge_tools.permission.rules import rules_from_config

    tree = parse_file(path, f"session permission file ({SESSION_OPTION})")
    if not tree.is_map:
        raise ConfigError(f"a session permission file ({SESSION_OPTION}) needs a top-level `permission` "
                          "map", tree.origin)
    known = set(config_keys())
    for key, node in tree.items():
        if key in ("permission", "$schema"):
            continue
        where = _with_line(node)
        only = f"a session permission file ({SESSION_OPTION}) holds only a `permission` map"
        if key in known:  # a real config key, but not one a session overlay can change
            elsewhere = _SESSION_ELSEWHERE.get(key)
            also = f"; set {key} with {elsewhere} instead" if elsewhere else ""
            raise ConfigError(f"{key!r} is not read from here: {only}{also}", where)
        close = get_close_matches(key, ["permission", *_SESSION_ELSEWHERE], n=1, cutoff=0.6)
        guess = close[0] if close else None
        hint = f" (did you mean {guess!r}?)" if guess else ""
        elsewhere = _SESSION_ELSEWHERE.get(guess) if guess else None
        also = f"; {guess} is set with {elsewhere}, not here" if elsewhere else ""
        raise ConfigError(f"unknown key {key!r}{hint}: {only}{also}", where)
    permission = tree.get("permission")
    if permission is None:
        raise ConfigError(f"a session permission file ({SESSION_OPTION}) needs a top-level `permission` "
                          "map", tree.origin)
    errors = validation_errors(Node({"permission": permission}, tree.origin))
    if errors:
        raise errors[0]
    return rules_from_config(permission, None, home)


def session_rules(request: Request) -> tuple[Rule, ...]:
    """The rules of the request's session overlay file (none when it names none), read now."""
    if request.session_permission is None:
        return ()
    from forge_tools.paths import home_dir

    return tuple(load_session_overlay(request.session_permission, home_dir()))


def _with_line(node: Any) -> Origin:
    """Where a key was written; a TOML table made implicit by `[agent.build]` has no line of its own,
    so the first line inside it stands for it."""
    origin: Origin = node.key_origin or node.origin
    stack = [node]
    while origin.line is None and stack:
        here = stack.pop(0)
        for candidate in (here.key_origin, here.origin):
            if candidate is not None and candidate.line is not None:
                return candidate
        stack.extend(child for _, child in here.items())
    return origin


def parse_tool_overrides(text: str | None) -> dict[str, bool]:
    """`--tools '{"edit": false}'` -> {"edit": False}; anything else is a usage error naming --tools."""
    import json

    from forge_tools.errors import UsageError

    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"not valid JSON ({exc.msg} at column {exc.colno}); "
                         'write e.g. \'{"edit": false}\'', where=TOOLS_OPTION) from None
    if not isinstance(data, dict) or not all(isinstance(v, bool) for v in data.values()):
        raise UsageError('expected a JSON object of tool names to true/false, e.g. \'{"edit": false}\'',
                         where=TOOLS_OPTION)
    return {str(k): bool(v) for k, v in data.items()}


# ------------------------------------------------------------------------------------------ sources


def load_sources(loaded: LoadedConfig, request: Request, load_code: bool = True,
                 mcp: McpScope | None = None, focus: str | None = None) -> Sources:
    """Every source's candidates, merged in SPEC 2 order, with their problems and notes. Without
    `load_code` each source is scanned (nothing of the project runs), with it loaded: the same sources
    answer both (`forge_tools.sources.ask`). A question about one tool (`focus`) starts only the MCP
    servers that could list it."""
    from forge_tools.sources import ask
    from forge_tools.sources.candidates import build_candidates

    answers = ask(source_query(loaded, request, mcp, focus), load_code)
    candidates = build_candidates(*(listing.tools for _, listing in answers))
    from forge_tools.sources.config_warnings import config_warnings

    problems = [*config_warnings(loaded), *(p for _, listing in answers for p in listing.problems)]
    problems.extend(candidates.problems)
    notes = [n for _, listing in answers for n in listing.notes]
    unlisted = [u for _, listing in answers for u in listing.unlisted]
    hooks = next((listing.hooks for _, listing in answers if listing.hooks is not None), None)
    return Sources(candidates, hooks, problems, notes, {u.prefix: u.why for u in unlisted if u.prefix},
                   unlisted)


def source_query(loaded: LoadedConfig, request: Request, mcp: McpScope | None = None,
                 focus: str | None = None) -> SourceQuery:
    """What the sources are asked for this config and request (see `tools.contract.SourceQuery`)."""
    from forge_tools.permission.agents import is_opencode_project
    from forge_tools.tools.contract import SourceQuery

    scope = mcp if mcp is not None else McpScope()
    return SourceQuery(
        config_dirs=tuple(loaded.config_dirs), tree=loaded.tree, plugin_specs=tuple(loaded.plugin_specs),
        cwd=Path(loaded.cwd), flags=frozenset(request.flags),
        client=request.client, pure=request.pure, no_mcp=request.no_mcp,
        tool_id=scope.tool_id if scope.tool_id is not None else focus, start_s=scope.start_s,
        start_by=scope.start_by, progress=scope.progress, sandbox=scope.sandbox,
        project_root=Path(loaded.project_root),
        # opencode's builtins where only its files are (a project without any config, or with a
        # forge-tools file, keeps SPEC 2's list)
        opencode=is_opencode_project(loaded, defaults=False) and not any(
            s.step.startswith("FORGE_") or (s.path is not None and (
                s.path.name.startswith("forge.") or ".forge" in s.path.parts)) for s in loaded.sources))


def mcp_configured(loaded: LoadedConfig) -> bool:
    """Whether the config names any MCP server: only then is the (heavy) MCP source imported."""
    node = loaded.tree.get("mcp")
    return node is not None and bool(node.value)


# ----------------------------------------------------------------------------------------- resolve


class SharedVerdicts:
    """The records several agents' results over the same candidates share (`resolve_all`): each
    distinct `LayerVerdict` once, the definition outcome of each tool nothing rewrites, and for each
    candidate (by its position in the candidate list) the `ToolVerdict`s made for it, one per
    distinct (definition outcome, layer verdicts) by identity."""

    __slots__ = ("_candidates", "_layers", "_tools", "plain")

    def __init__(self) -> None:
        self._candidates: Sequence[Any] | None = None
        self._layers: dict[LayerVerdict, LayerVerdict] = {}
        self._tools: list[ToolVerdict | list[ToolVerdict] | None] = []
        self.plain: PlainOutcomes = {}  # the definition outcomes of tools nothing rewrites, by id

    def over(self, candidates: Sequence[Any]) -> SharedVerdicts:
        """Self, for `candidates`: what was made for another candidate list is forgotten."""
        if candidates is not self._candidates:
            self._candidates = candidates
            self._layers = {}
            self._tools = [None] * len(candidates)
            self.plain = {}
        return self

    def layer(self, verdict: LayerVerdict) -> LayerVerdict:
        return self._layers.setdefault(verdict, verdict)

    def made(self, position: int, outcome: DefinitionOutcome,
             layers: list[LayerVerdict]) -> ToolVerdict | None:
        """The verdict already made for the candidate at `position` with this very outcome and layers."""
        found = self._tools[position]
        for verdict in (found if isinstance(found, list) else (found,) if found is not None else ()):
            if verdict.definition_outcome is outcome and all(
                    a is b for a, b in zip(verdict.layers, layers, strict=True)):
                return verdict
        return None

    def keep(self, position: int, verdict: ToolVerdict) -> ToolVerdict:
        found = self._tools[position]
        self._tools[position] = verdict if found is None else [*found, verdict] if isinstance(found, list) \
            else [found, verdict]
        return verdict



def resolve(loaded: LoadedConfig, request: Request, load_code: bool = True, sources: Sources | None = None,
            agents: dict[str, Agent] | None = None, focus: str | None = None,
            mcp: McpScope | None = None, session: Sequence[Rule] | None = None,
            shared: SharedVerdicts | None = None) -> PipelineResult:
    """Run the three layers for `request` over every candidate (see the module docstring).

    `sources` and `agents` may be passed in to reuse them across agents (`layers --matrix`). `focus`
    names the one tool whose definition (layer two) is wanted, and starts only the MCP servers that
    could list it; every other layer is still computed for every tool. `mcp`: see `McpScope`.
    `session`: the rules of `request.session_permission` as already read (`config.project.Project`);
    None: the file is read here. `shared`: records already made for other agents over the same
    `sources` (`resolve_all`), reused where this agent's are equal.
    """
    from forge_tools.names import permission_name
    from forge_tools.permission.agents import load_agents, select_agent, subagents_for
    from forge_tools.visibility.definition_layer import definition_layer
    from forge_tools.visibility.model_layer import ModelContext, model_layer
    from forge_tools.visibility.permission_layer import PermissionLayer, request_rules

    agents = agents if agents is not None else load_agents(loaded)
    agent = select_agent(agents, request.agent, loaded)
    model = request.model or agent.model or config_model(loaded)
    if session is None:
        session = session_rules(request)
    session = tuple(session)
    overrides = dict(request.tool_overrides)
    req_rules = tuple(request_rules(overrides, Origin("cli", name=TOOLS_OPTION)))
    configured = (*agent.ruleset, *session)

    sources = sources if sources is not None else load_sources(loaded, request, load_code, mcp, focus)
    candidates = sources.candidates.candidates
    ids = [c.id for c in candidates]
    model_verdicts = model_layer(ids, ModelContext.of(model, request.client, request.flags))
    # the task description lists what this turn's agent may dispatch, under this turn's rules
    subagents = subagents_for(agent, agents, (*session, *req_rules))
    pool = shared.over(candidates) if shared is not None else SharedVerdicts().over(candidates)
    definitions = definition_layer([(c.id, c.tool) for c in candidates], sources.hooks, subagents,
                                   focus=focus, plain=pool.plain)
    # layer three is judged tool by tool in the loop below: a large project's verdicts and their
    # reasons, most equal to another agent's, are then dropped as soon as the shared ones are found
    third = PermissionLayer(configured, req_rules, overrides)

    problems = list(sources.problems)
    tools: list[ToolVerdict] = []
    # most tools share their verdicts (kept by the same `*` rule, or by none): one record per distinct
    # verdict, as a large project holds every agent's results at once (check, diff); across agents
    # too (`shared`), and so one `ToolVerdict` per tool for the agents whose layers agree on it. No
    # reader changes a `ToolVerdict`.
    for position, cand in enumerate(candidates):
        mv, dv, pv = model_verdicts[cand.id], definitions[cand.id], third.judge(cand.id)
        problems.extend(dv.problems)
        layers = [pool.layer(v) for v in (
            LayerVerdict("model", mv.kept, mv.reason, mv.rule),
            LayerVerdict("definition", True, dv.reason, None),
            LayerVerdict("permission", pv.permission_kept, pv.permission_reason, pv.permission_rule),
            LayerVerdict("request", pv.request_kept, pv.request_reason, pv.request_rule),
        )]
        made = pool.made(position, dv, layers)
        if made is None:
            hidden_at: LayerName | None = "model" if not mv.kept else pv.hidden_at  # type: ignore[assignment]
            reason = next((v.reason for v in layers if v.layer == hidden_at), None) if hidden_at else None
            made = pool.keep(position, ToolVerdict(
                id=cand.id, tool=cand.tool, source=cand.source, shadowed=cand.shadowed,
                permission=permission_name(cand.id), layers=layers, visible=hidden_at is None,
                hidden_at=hidden_at, reason=reason, definition_outcome=dv, definition_changes=dv.changes,
            ))
        tools.append(made)
    return PipelineResult(
        request=request, agent=agent, agents=agents, model=model, client=request.client,
        flags=frozenset(request.flags), ruleset=(*configured, *req_rules), tools=tools,
        problems=problems, notes=list(sources.notes), shadowings=list(sources.candidates.shadowings),
        hooks=sources.hooks, session_rules=session, request_rules=req_rules, unlisted=sources.unlisted,
        parts_unlisted=list(sources.parts_unlisted),
    )


def resolve_all(loaded: LoadedConfig, request: Request, load_code: bool = True,
                agents: dict[str, Agent] | None = None, names: list[str] | None = None,
                problems: list[ForgeToolsError] | None = None, mcp: McpScope | None = None,
                session: Sequence[Rule] | None = None) -> dict[str, PipelineResult]:
    """The turn resolved for every enabled agent (or for `names`), in config order: `layers --matrix`,
    `check` and `diff` all read this. Sources are loaded once and shared, and so is the session
    overlay (`session`, as `resolve`'s; read once here when None). With `problems` given, an agent
    whose turn cannot be resolved is recorded there and left out; without, its error is raised.
    `mcp.progress` also hears which agent is being resolved."""
    from forge_tools.permission.agents import load_agents

    agents = agents if agents is not None else load_agents(loaded)
    if session is None:
        try:
            session = session_rules(request)
        except ForgeToolsError as exc:  # no agent's turn can be resolved without it
            if problems is None:
                raise
            problems.append(exc)
            return {}
    if names is None:
        names = [a.name for a in agents.values() if not a.disabled]
    results: dict[str, PipelineResult] = {}
    sources: Sources | None = None
    shared = SharedVerdicts()  # the records the agents' results share (see `resolve`)
    progress = mcp.progress if mcp is not None else None
    for number, name in enumerate(names, 1):
        try:
            if sources is None:
                sources = load_sources(loaded, request, load_code, mcp)
            if progress is not None and len(names) > 1:
                progress(f"resolving agent {name} ({number}/{len(names)})")
            results[name] = resolve(loaded, request._replace(agent=name), load_code=load_code,
                                    sources=sources, agents=agents, session=session, shared=shared)
        except ForgeToolsError as exc:
            if problems is None:
                raise
            problems.append(exc)
    return results
