"""The one config reader: read, parse, substitute and validate one source, keeping every error.

Every place that reads a config-language file uses it: the loader (`config.loader`, which stops at the
first error), `check` (`check.config_errors`, which reports them all), the session overlay
(`visibility.pipeline.load_session_overlay`) and the expectations file (`check.expect`). A file is read
safely (`config.files`: regular files only, bounded size), decoded as UTF-8, parsed by the format its
suffix names (`config.formats`), then `{env:}`/`{file:}` substituted and schema-validated where the
caller asks. Each problem is a `ConfigError` at its file, line and column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from forge_tools.config.files import NO_SUCH_FILE, read_failure, read_regular_text
from forge_tools.errors import ConfigError, ConfigProblem
from forge_tools.origin import Node, Origin

#: where a value was written (file or env name, line, column): how a finding is matched to a value
#: that `{env:}`/`{file:}` produced
Spot = tuple[str | None, int | None, int | None]


def spot_of(origin: Origin) -> Spot:
    return (origin.path if origin.kind == "file" else origin.name, origin.line, origin.column)


def read_text(path: Path, what: str) -> str:
    """A config-language file's text (a leading BOM dropped); any reason it cannot be read is a
    `ConfigError` at the file's start (or at the first byte that is not UTF-8). `what` names the file
    in messages: "config file (given by project)", "session permission file (--session-permissions)"."""
    start = Origin("file", str(path), 1, 1)
    try:
        return read_regular_text(path).removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError, RuntimeError) as exc:
        reason = read_failure(path, exc)
        if reason == NO_SUCH_FILE:
            raise ConfigError(f"no such {what}", start, code=ConfigProblem.UNREADABLE) from None
        where = start
        if isinstance(exc, UnicodeDecodeError):  # at the first byte that is not UTF-8
            raw = bytes(exc.object)
            line_start = raw.rfind(b"\n", 0, exc.start) + 1
            before = raw[line_start:exc.start].decode("utf-8", "replace").removeprefix("\ufeff")
            where = Origin("file", str(path), raw.count(b"\n", 0, exc.start) + 1, len(before) + 1)
        raise ConfigError(f"cannot read {_noun(what)}: {reason}", where,
                          code=ConfigProblem.UNREADABLE) from None


def _noun(what: str) -> str:
    """"config file (given by project)" -> "config file": the parenthesis is for "no such ..." only."""
    return what.split(" (", 1)[0]


def parse_file(path: Path, what: str) -> Node:
    """`read_text`, then parse in the format of the file's suffix."""
    from forge_tools.config.formats import for_path

    return for_path(path).parse(read_text(path, what), Origin("file", path=str(path)))


@dataclass(eq=False)
class SourceRead:
    """One config source as read: its tree (None when it could not be read or parsed), every problem
    found in it in file order, and where `{env:}`/`{file:}` gave a value (with the template)."""

    step: str
    where: Path | str
    tree: Node | None = None
    errors: list[ConfigError] = field(default_factory=list)
    substituted: dict[Spot, str] = field(default_factory=dict)
    #: what opencode ignores in its own sources and so forge-tools ignored too, each at its place
    #: (`check`: FT117): a key it does not know (dropped), an `OPENCODE_PERMISSION` that is not JSON
    ignored: list[ConfigError] = field(default_factory=list)
    #: a file's text as read (None for an environment variable, or a file that could not be read):
    #: `check` finds its suppression comments in it rather than reading the file again
    text: str | None = None

    def tree_or_raise(self) -> Node:
        """The tree, or the first problem as the `ConfigError` to stop at."""
        if self.errors or self.tree is None:
            raise self.errors[0] if self.errors else ConfigError("config source could not be read")
        return self.tree


def read_source(step: str, where: Path | str, env: Mapping[str, str], cwd: Path, home: Path) -> SourceRead:
    """Read, parse, substitute and validate one discovered source (a file, a Markdown agent or mode, or
    an environment variable holding JSON), keeping every error it has. `step` is the discovery step
    (`config.loader.Step`): it says whether `{env:}`/`{file:}` are substituted (in the raw text, as
    opencode does: `config.substitute.parse_substituted`) and whether the source is a bare
    permission map (`*_PERMISSION`)."""
    from forge_tools.config.formats import format_of
    from forge_tools.config.loader import ENV_PERMISSION, substitutes
    from forge_tools.config.substitute import parse_substituted
    from forge_tools.config.validation import drop_tui_keys, drop_unknown_keys, validation_errors

    result = SourceRead(step, where)
    try:
        if isinstance(where, Path):
            text = read_text(where, f"config file (given by {step})")
            result.text = text
            fmt, base, base_dir = format_of(where), Origin("file", path=str(where)), where.parent
        else:
            text, fmt, base_dir = env[where].removeprefix("\ufeff"), "json", cwd
            base = Origin("env", name=where)
        if isinstance(where, Path) and step in ("agent-file", "mode-file"):
            from forge_tools.config.agent_files import agent_name_of, parse_agent_file

            tree = parse_agent_file(text, where, agent_name_of(where), primary=step == "mode-file")
        elif substitutes(step):
            tree = parse_substituted(text, fmt, base, env, base_dir, home, result.errors)
        else:
            from forge_tools.config.formats import parse_text

            tree = parse_text(text, fmt, base)
    except ConfigError as exc:
        if step == "OPENCODE_PERMISSION":  # opencode warns and goes on without it
            result.ignored.append(ConfigError(f"{exc.message}; opencode warns and ignores the variable",
                                              Origin("env", name=str(where))))
            result.tree = Node({}, Origin("env", name=str(where)))
        else:
            result.errors.append(exc)
        return result
    _substituted_spots(tree, result.substituted)
    if step in ENV_PERMISSION:
        label = Origin("env", name=str(where))
        tree = Node({"permission": tree}, label, None)
        tree.value["permission"].key_origin = label
    if opencode_source(step, where):  # opencode drops the keys it does not know: load as it loads
        result.ignored = sorted([*drop_unknown_keys(tree), *drop_tui_keys(tree)],
                                key=lambda e: (e.origin.line or 0) if e.origin is not None else 0)
        _accept_bare_models(tree)
    # a value whose substitution failed is reported once (at its token, on the same line)
    failed = {(e.origin.path, e.origin.line) for e in result.errors if e.origin is not None}
    result.errors.extend(e for e in validation_errors(tree)
                         if e.origin is None or (e.origin.path, e.origin.line) not in failed)
    result.tree = tree
    return result


#: the steps whose source is opencode's own whatever its name
_OPENCODE_STEPS = frozenset({"OPENCODE_CONFIG", "OPENCODE_CONFIG_CONTENT", "OPENCODE_PERMISSION"})
#: opencode's file names (`config.json` is its global dir's legacy name)
_OPENCODE_NAMES = frozenset({"opencode.json", "opencode.jsonc", "config.json"})


def opencode_source(step: str, where: Path | str) -> bool:
    """Whether a source is one of opencode's files or variables, which opencode reads leniently
    (unknown keys dropped). forge's own files (`forge.*`, `FORGE_*`, `--config`) stay strict: an
    unknown key there is an error (SPEC 6.3)."""
    if step in _OPENCODE_STEPS:
        return True
    return (isinstance(where, Path) and step not in ("--config", "FORGE_CONFIG")
            and where.name in _OPENCODE_NAMES)


def _accept_bare_models(tree: Node) -> None:
    """opencode loads a `model` that is not PROVIDER/MODEL (`"model": "big-pickle"` is provider
    `big-pickle` with an empty model id): mark such values in its own files so the schema lets them
    through (`validation.located_errors`); forge's own files keep the check."""
    from forge_tools.config.validators import model_id_problem

    for node in model_nodes(tree):
        if isinstance(node.value, str) and model_id_problem(node.value):
            node.meta = {**node.meta, "opencode_model": True}


def model_nodes(tree: Node) -> list[Node]:
    """Every model id a config sets: `model`, `small_model` and each `agent.<name>.model`."""
    if not tree.is_map:
        return []
    found = [tree.get("model"), tree.get("small_model")]
    agents = tree.get("agent")
    if agents is not None and agents.is_map:
        found += [agent.get("model") for _name, agent in agents.items() if agent.is_map]
    return [node for node in found if node is not None]


def _substituted_spots(node: Node, substituted: dict[Spot, str]) -> None:
    """Note where a value (or a key) came from `{env:}`/`{file:}`, with the template as written, so that
    no finding shows its content."""
    if node.meta.get("key_substituted") and node.key_origin is not None:
        substituted[spot_of(node.key_origin)] = str(node.meta.get("key_template", "the substitution"))
    if node.meta.get("substituted"):
        substituted[spot_of(node.origin)] = str(node.meta.get("template", "the substitution"))
    children = node.value.values() if isinstance(node.value, dict) else (
        node.value if isinstance(node.value, list) else ())
    for child in children:
        _substituted_spots(child, substituted)
