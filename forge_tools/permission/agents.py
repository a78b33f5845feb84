"""Agents (roles) and the ruleset each one runs with (SPEC 4.3).

Each agent's ruleset is built in a fixed order so that later, more specific sources win: the shared
defaults, the builtin agent's own rules, the top-level config (`tools` then `permission`), the agent's
config (`tools` then `permission`), and a last allow for the truncation directory so full-output files
stay readable unless a rule after it says otherwise. Every rule keeps its origin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from forge_tools.errors import ConfigError, ConfigProblem, UnknownNameError
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin, format_key_path
from forge_tools.paths import home_dir, skill_folders, truncation_globs
from forge_tools.permission.evaluate import evaluate, narrowed, rules_for
from forge_tools.permission.rules import rules_from_config
from forge_tools.rule import Action, Rule, Ruleset

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

    ConfigLike = LoadedConfig | Node | None  # a loaded config, or a bare tree (tests)

Mode = Literal["primary", "subagent", "all"]
MODES: tuple[Mode, ...] = ("primary", "subagent", "all")

PLAN_FILES = ".forge/plans/*.md"
#: opencode's own plan files, which plan may also write in an opencode project (issue 10)
OPENCODE_PLAN_FILES = ".opencode/plans/*.md"
OPENCODE_PLANS_DIR = "<opencode plans dir>"  # placeholder: opencode's global plans dir (data dir)
OPENCODE_PLANS_EDIT = "<opencode plans files>"  # placeholder: the same dir's *.md, relative to the root
DEFAULT_AGENT = "build"

RuleSpec = tuple[str, str, Action]

TRUNCATION_DIR = "<truncation dir>"  # placeholder in the tables, replaced by the real glob


def _default_specs() -> tuple[RuleSpec, ...]:
    return (
        ("*", "*", "allow"),
        ("doom_loop", "*", "ask"),
        ("external_directory", "*", "ask"),
        ("external_directory", TRUNCATION_DIR, "allow"),
        ("question", "*", "deny"),
        ("plan_enter", "*", "deny"),
        ("plan_exit", "*", "deny"),
        ("read", "*", "allow"),
        ("read", "*.env", "ask"),
        ("read", "*.env.*", "ask"),
        ("read", "*.env.example", "allow"),
    )


class BuiltinAgent(NamedTuple):
    """A builtin agent as shipped: its name, mode, description and its own rules (before any config)."""

    name: str
    mode: Mode
    description: str
    rules: tuple[RuleSpec, ...]


EXPLORE_TOOLS = ("grep", "glob", "list", "bash", "webfetch", "websearch", "read")

BUILTIN_AGENTS: tuple[BuiltinAgent, ...] = (
    BuiltinAgent(
        "build", "primary",
        "The default agent: every tool, asking where the rules say so.",
        (("question", "*", "allow"), ("plan_enter", "*", "allow")),
    ),
    BuiltinAgent(
        "plan", "primary",
        f"Plans without changing the project: edits are denied except plan files ({PLAN_FILES}).",
        (("question", "*", "allow"), ("plan_exit", "*", "allow"),
         # Not in SPEC 4.3; opencode 1.18.33 adds it (tests/compat), and issue 4 asks for its answers.
         ("task", "general", "deny"),
         # opencode's plan rules (tests/compat), for an opencode project only (see `_plan_specs`)
         ("external_directory", OPENCODE_PLANS_DIR, "allow"),
         ("edit", "*", "deny"),
         ("edit", OPENCODE_PLAN_FILES, "allow"), ("edit", OPENCODE_PLANS_EDIT, "allow"),
         ("edit", PLAN_FILES, "allow")),
    ),
    BuiltinAgent(
        "general", "subagent",
        "General-purpose subagent for multi-step research and work in parallel.",
        (("todowrite", "*", "deny"),),
    ),
    BuiltinAgent(
        "explore", "subagent",
        "Fast read-only subagent that searches and reads the codebase.",
        (("*", "*", "deny"),
         *((name, "*", "allow") for name in EXPLORE_TOOLS),
         # As opencode 1.18.33 does (tests/compat): outside the project explore asks, not denies.
         ("external_directory", "*", "ask"),
         ("external_directory", TRUNCATION_DIR, "allow")),
    ),
)
BUILTIN_NAMES = tuple(a.name for a in BUILTIN_AGENTS)
#: opencode 1.18.33's own housekeeping agents (hidden primaries that deny everything before the
#: config's rules), there in an opencode project only: `agent list` and `GET /agent` show them
HIDDEN_AGENTS: tuple[BuiltinAgent, ...] = tuple(
    BuiltinAgent(name, "primary", "", (("*", "*", "deny"),)) for name in ("compaction", "title", "summary"))
HIDDEN_NAMES = tuple(a.name for a in HIDDEN_AGENTS)


class Agent(NamedTuple):
    """A role: its mode, where it was defined, and the final ordered ruleset it runs with."""

    name: str
    mode: Mode
    description: str
    origin: Origin
    ruleset: Ruleset
    builtin: bool
    hidden: bool = False
    disabled: bool = False
    model: str | None = None
    config_origin: Origin | None = None  # where config changed or defined the agent, if it did
    shown_name: str | None = None  # config `agent.<key>.name`: the name opencode shows (and lists by)

    @property
    def shown(self) -> str:
        """The name opencode 1.18.33 shows for the agent: its config `name:` if set, else its key."""
        return self.shown_name or self.name

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "shown_name": self.shown,
            "mode": self.mode,
            "description": self.description,
            "builtin": self.builtin,
            "hidden": self.hidden,
            "disabled": self.disabled,
            "model": self.model,
            "origin": self.origin.to_json(),
            "config_origin": self.config_origin.to_json() if self.config_origin else None,
        }


def _tree(loaded: ConfigLike) -> Node | None:
    """Accept a LoadedConfig (its `.tree`) or a bare Node tree (tests)."""
    if loaded is None:
        return None
    tree = loaded if isinstance(loaded, Node) else getattr(loaded, "tree", None)
    return tree if isinstance(tree, Node) else None


def _get(node: Node | None, key: str) -> Node | None:
    if node is None:
        return None
    child = node.get(key)
    return child if child is not None and child.value is not None else None


def _str(node: Node | None, what: str) -> str | None:
    if node is None:
        return None
    if not isinstance(node.value, str):
        raise ConfigError(f"{what} must be a string, not {node.value!r}", node.origin,
                          code=ConfigProblem.TYPE)
    return node.value


def _bool(node: Node | None, what: str) -> bool | None:
    if node is None:
        return None
    if not isinstance(node.value, bool):
        raise ConfigError(f"{what} must be true or false, not {node.value!r}", node.origin,
                          code=ConfigProblem.TYPE)
    return node.value


def _mode(node: Node | None, name: str) -> Mode | None:
    value = _str(node, format_key_path(("agent", name, "mode")))
    if value is None:
        return None
    if value not in MODES:
        assert node is not None
        where = format_key_path(("agent", name, "mode"))
        raise ConfigError(f"{where} {value!r} is not one of {', '.join(MODES)}", node.origin,
                          code=ConfigProblem.TYPE)
    return cast(Mode, value)


def _skill_globs(loaded: ConfigLike) -> list[str]:
    """`<dir>/*` for the folder of every `SKILL.md` opencode finds for the loaded config (none for a
    bare tree)."""
    config_dirs = getattr(loaded, "config_dirs", None) or []
    external = getattr(loaded, "skill_roots", None) or []
    paths = getattr(loaded, "skill_paths", None) or []
    if not external and not paths and not skill_folders(config_dirs):
        return []
    from forge_tools.config.skills import skill_dir_globs

    return skill_dir_globs(config_dirs, external, paths)


def is_opencode_project(loaded: ConfigLike, env: Mapping[str, str] | None = None,
                        defaults: bool = True) -> bool:
    """Whether opencode's own config is in play: a source named like opencode's files, or an
    `.opencode/` (or opencode's global) directory among the config directories; or no config at all
    (a loaded project without any file or variable is opencode's defaults, as opencode 1.18.33 started
    there has them: its plan rules, its hidden agents; not with `defaults=False`). A bare tree (tests)
    is not."""
    from forge_tools.paths import global_config_dir, opencode_global_dir

    if not hasattr(loaded, "sources"):
        return False
    sources = getattr(loaded, "sources", None) or []
    config_dirs = getattr(loaded, "config_dirs", None) or []
    names = {"opencode.json", "opencode.jsonc"}
    global_dir = str(opencode_global_dir(env))
    forge_global = str(global_config_dir(env))
    if defaults and not sources and not any(d.name == ".forge" or str(d) == forge_global
                                            for d in config_dirs):
        return True
    return (any(s.path is not None and s.path.name in names for s in sources)
            or any(s.step.startswith("OPENCODE_") for s in sources)
            or any(d.name == ".opencode" or str(d) == global_dir for d in config_dirs))


def _opencode_plans(loaded: ConfigLike, env: Mapping[str, str] | None) -> dict[str, list[str]]:
    """The placeholders of opencode's plan rules: its global plans dir (`<data>/opencode/plans`) as
    an external_directory glob and, relative to the project root, as edit patterns; nothing (the
    rules are left out) outside an opencode project."""
    import os

    from forge_tools.paths import opencode_data_dir

    if not is_opencode_project(loaded, env):
        return {OPENCODE_PLANS_DIR: [], OPENCODE_PLAN_FILES: [], OPENCODE_PLANS_EDIT: []}
    plans = opencode_data_dir(env) / "plans"
    root = getattr(loaded, "project_root", None)
    relative = os.path.relpath(plans, root).replace("\\", "/") if root is not None else str(plans)
    return {OPENCODE_PLANS_DIR: [str(plans).replace("\\", "/") + "/*"],
            OPENCODE_PLAN_FILES: [OPENCODE_PLAN_FILES], OPENCODE_PLANS_EDIT: [relative + "/*.md"]}


def opencode_tmp_glob() -> str:
    """opencode's global temp dir as an `external_directory` pattern: `<system temp>/opencode/*`
    (`/tmp/opencode/*`), which opencode 1.18.33 allows right after its truncation dir."""
    from forge_tools.paths import system_temp_dir

    return system_temp_dir().replace("\\", "/").rstrip("/") + "/opencode/*"


def reference_globs(loaded: ConfigLike, env: Mapping[str, str] | None = None) -> list[str]:
    """`<dir>/*` for each local directory of the config's `references` (opencode 1.18.33: a name
    without `/`, space, backquote or comma, and a value that starts with `.`, `/` or `~` or is an
    object with `path`; relative to the file it is written in, `~/` to the home dir). opencode lets
    its agents read them (external_directory allows after the skill dirs); they define no agents. A git
    reference is cloned by opencode into its cache, which forge-tools does not model."""
    import os
    import re

    node = _get(_tree(loaded), "references")
    if node is None or not node.is_map:
        return []
    home = str(home_dir(env))
    globs: list[str] = []
    for name, value in node.items():
        if not name or re.search(r"[/\s`,]", name):
            continue
        raw = value.value
        if isinstance(raw, dict):
            path_node = raw.get("path")
            path = path_node.value if isinstance(path_node, Node) else None
        elif isinstance(raw, str) and raw.startswith((".", "/", "~")):
            path = raw
        else:
            path = None
        if not isinstance(path, str):
            continue
        origin = value.origin
        base = os.path.dirname(origin.path) if origin.kind == "file" and origin.path else \
            str(getattr(loaded, "cwd", "") or os.getcwd())
        if path.startswith("~/"):
            full = os.path.join(home, path[2:])
        else:
            full = path if os.path.isabs(path) else os.path.normpath(os.path.join(base, path))
        glob = full.replace("\\", "/") + "/*"
        if glob not in globs:
            globs.append(glob)
    return globs


def _rules(specs: tuple[RuleSpec, ...], origin: Origin, truncation: list[str],
           places: Mapping[str, list[str]] | None = None) -> list[Rule]:
    """The table's rules, the truncation-dir placeholder standing for each of the tool's output dirs
    (and the opencode plan placeholders for what `places` gives them)."""
    where = {TRUNCATION_DIR: truncation, **(places or {})}
    return [Rule(p, pat2, a, origin) for p, pat, a in specs
            for pat2 in where.get(pat, [pat])]


def _fold_legacy_modes(modes: Node | None, config_nodes: dict[str, Node]) -> None:
    """opencode's deprecated top-level `mode.<name>` defines a primary agent: merge each entry over
    `agent.<name>` (the entry wins) with mode `primary`, as opencode does, so such configs list it."""
    from forge_tools.config.merge import merge

    if modes is None or not modes.is_map:
        return
    for name, entry in modes.items():
        if not entry.is_map:
            continue
        where = entry.key_origin or entry.origin
        forced = Node({**entry.value, "mode": Node("primary", where, where)}, entry.origin, entry.key_origin)
        base = config_nodes.get(name)
        merged = merge(base, forced, ("agent", name)) if base is not None and base.is_map else forced
        config_nodes[name] = merged


def agent_nodes(tree: Node) -> dict[str, Node]:
    """Each configured agent's settings as the engine reads them: `agent.<name>`, with opencode's
    deprecated top-level `mode.<name>` merged over it (as `load_agents` does)."""
    agents = tree.get("agent")
    nodes: dict[str, Node] = dict(agents.items()) if agents is not None and agents.is_map else {}
    _fold_legacy_modes(tree.get("mode"), nodes)
    return {name: node for name, node in nodes.items() if node.is_map}


def load_agents(loaded: ConfigLike, env: Mapping[str, str] | None = None, *,
                top_rules: list[Rule] | None = None,
                agent_rules: Mapping[str, list[Rule]] | None = None) -> dict[str, Agent]:
    """Every agent, builtins first (build, plan, general, explore), then custom agents in config order.

    Disabled agents are included with `disabled=True` so listings can show them; `select_agent` and
    `subagents_for` leave them out. `top_rules` and `agent_rules` (by agent name): config levels' own
    rules as a caller already made them from this config (`check`'s scopes), used instead of making
    them again, so the rulesets hold those very records rather than a copy of every rule.
    """
    tree = _tree(loaded)
    home = home_dir(env)
    # the truncation dir, and its temp-dir fallback when that is the tool's own (paths.truncation_globs)
    truncation = truncation_globs(env)
    # then each discovered skill's directory, as opencode 1.18.33 allows them right after its own
    # output dirs (where its defaults and explore name the truncation dir), so skills can read their files
    # in an opencode project, also opencode's global temp dir right after them and each local
    # `references` dir after the skills, where opencode 1.18.33 puts them
    opencode = is_opencode_project(loaded, env)
    allowed_dirs = [*truncation, *([opencode_tmp_glob()] if opencode else []), *_skill_globs(loaded),
                    *(reference_globs(loaded, env) if opencode else [])]
    defaults = _rules(_default_specs(), Origin("default"), allowed_dirs)
    plans = _opencode_plans(loaded, env)
    made = agent_rules or {}
    top = top_rules if top_rules is not None else \
        rules_from_config(_get(tree, "permission"), _get(tree, "tools"), home)
    tail = [Rule("external_directory", glob, "allow", Origin("default", name="truncation directory"))
            for glob in truncation]

    def with_tail(rules: list[Rule]) -> tuple[Rule, ...]:
        """The rules plus the last truncation-dir allow, unless a rule explicitly denies that very
        glob: as opencode 1.18.33 does, such a deny is kept (no allow appended after it)."""
        denied = {r.pattern for r in rules if r.permission == "external_directory" and r.action == "deny"}
        return (*rules, *(r for r in tail if r.pattern not in denied))

    configured = _get(tree, "agent")
    if configured is not None and not configured.is_map:
        raise ConfigError("`agent` must map agent names to their settings", configured.origin,
                          code=ConfigProblem.TYPE)
    config_nodes: dict[str, Node] = dict(configured.items()) if configured is not None else {}
    _fold_legacy_modes(_get(tree, "mode"), config_nodes)

    agents: dict[str, Agent] = {}
    hidden = HIDDEN_AGENTS if opencode else ()
    builtins = {b.name: b for b in (*BUILTIN_AGENTS, *hidden)}
    for name in (*builtins, *(n for n in config_nodes if n not in builtins)):
        raw = config_nodes.get(name)
        if raw is not None and raw.value is not None and not raw.is_map:
            raise ConfigError(f"{format_key_path(('agent', name))} must be a map of settings", raw.origin,
                              code=ConfigProblem.TYPE)
        where = (raw.key_origin or raw.origin) if raw is not None else None
        node = raw if raw is not None and raw.value is not None else None
        spec = builtins.get(name)
        own = _rules(spec.rules, Origin("builtin-agent", name=name), allowed_dirs, plans) if spec else []
        own_level = made[name] if name in made else \
            rules_from_config(_get(node, "permission"), _get(node, "tools"), home)
        agents[name] = Agent(
            name=name,
            mode=_mode(_get(node, "mode"), name) or (spec.mode if spec else "all"),
            description=_str(_get(node, "description"), format_key_path(("agent", name, "description")))
            or (spec.description if spec else ""),
            origin=Origin("builtin-agent", name=name) if spec else cast(Origin, where),
            ruleset=with_tail([*defaults, *own, *top, *own_level]),
            builtin=spec is not None,
            hidden=bool(_bool(_get(node, "hidden"), format_key_path(("agent", name, "hidden")))
                        if _get(node, "hidden") is not None else name in HIDDEN_NAMES and spec is not None),
            disabled=bool(_bool(_get(node, "disable"), format_key_path(("agent", name, "disable")))),
            model=_str(_get(node, "model"), format_key_path(("agent", name, "model"))),
            config_origin=where,
            shown_name=_str(_get(node, "name"), format_key_path(("agent", name, "name"))),
        )
    return agents


def listing_order(agents: Mapping[str, Agent]) -> list[Agent]:
    """The agents in the order `opencode agent list` (1.18.33) gives them: builtin agents first, then
    the others, each group by shown name (compared as `localeCompare` does for these names: letters
    before case, so `Alpha`, `beta`, `broken`)."""
    return sorted(agents.values(), key=lambda a: (not a.builtin, a.shown.casefold(), a.shown.swapcase()))


def _suggest(name: str, names: list[str]) -> list[str]:
    from difflib import get_close_matches

    return get_close_matches(name, names, n=3, cutoff=0.5)


def default_agent_name(loaded: ConfigLike, agents: Mapping[str, Agent]) -> str:
    """Config `default_agent` (must be an enabled, non-subagent agent), else the first visible primary."""
    node = _get(_tree(loaded), "default_agent")
    name = _str(node, "default_agent")
    if node is not None and name is not None:
        agent = agents.get(name)
        if agent is None:
            hint = _suggest(name, list(agents))
            extra = f" (did you mean {', '.join(repr(s) for s in hint)}?)" if hint else ""
            raise ConfigError(f"default_agent {name!r} is not an agent{extra}", node.origin)
        if agent.disabled:
            raise ConfigError(f"default_agent {name!r} is disabled", node.origin)
        if agent.mode == "subagent":
            raise ConfigError(f"default_agent {name!r} is a subagent; pick a primary agent", node.origin)
        return name
    for agent in agents.values():
        if not agent.disabled and not agent.hidden and agent.mode != "subagent":
            return agent.name
    raise ConfigError("no enabled primary agent is left; enable one or set default_agent")


def select_agent(agents: Mapping[str, Agent], name: str | None, loaded: ConfigLike = None) -> Agent:
    """The agent a command runs as: `name`, else the default agent. Unknown names get did-you-mean."""
    if name is None:
        name = default_agent_name(loaded, agents)
    agent = agents.get(name)
    if agent is None:
        raise UnknownNameError("agent", name, _suggest(name, list(agents)))
    return agent


def subagents_for(agent: Agent, agents: Mapping[str, Agent], later: Sequence[Rule] = ()) -> list[Agent]:
    """Agents `agent` may dispatch with `task` (SPEC 3.2): not primary, not denied, sorted by name
    case-insensitively, as opencode 1.18.33 lists them (`Zeta` after `alpha`). `later`: this turn's
    rules after the agent's own (session, request), evaluated as if appended to its ruleset; passed
    apart so the agent's own ruleset is not copied into a new one per turn. Only the rules that can
    apply to `task` are read (`narrowed`): indexing an agent's whole ruleset to ask about one permission
    cost more time and memory than the question."""
    own, after = narrowed("task", agent.ruleset), rules_for("task", later)
    return sorted(
        (
            other for other in agents.values()
            if not other.disabled and other.mode != "primary"
            and evaluate("task", other.name, own, after).action != "deny"
        ),
        key=lambda a: (a.name.lower(), a.name),
    )


def can_dispatch(agent: Agent) -> bool:
    """Whether the agent may hand work to subagents at all (`task` with `*` not denied; SPEC 5.3)."""
    return evaluate("task", "*", rules_for("task", agent.ruleset)).action != "deny"
