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

from forge_tools.config.files import broken_link_note, read_regular_text
from forge_tools.errors import ConfigError
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
    except FileNotFoundError:
        broken = broken_link_note(path)
        if broken is not None:
            raise ConfigError(f"cannot read {what}: it is {broken}; fix or remove the link", start) from None
        raise ConfigError(f"no such {what}", start) from None
    except IsADirectoryError:
        raise ConfigError(f"cannot read {_noun(what)}: it is a directory", start) from None
    except UnicodeDecodeError as exc:
        raw = bytes(exc.object)
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        before = raw[line_start:exc.start].decode("utf-8", "replace").removeprefix("\ufeff")
        where = Origin("file", str(path), raw.count(b"\n", 0, exc.start) + 1, len(before) + 1)
        byte = raw[exc.start:exc.start + 1].hex()
        raise ConfigError(f"cannot read {_noun(what)}: not UTF-8 text (byte 0x{byte}); save it as UTF-8",
                          where) from None
    except RuntimeError:  # pathlib's "Symlink loop" on some Python versions
        raise ConfigError(f"cannot read {_noun(what)}: it is a symlink loop; fix or remove the link",
                          start) from None
    except OSError as exc:
        import errno

        if exc.errno == errno.ELOOP:
            raise ConfigError(f"cannot read {_noun(what)}: it is a symlink loop (a link that leads back to "
                              "itself); fix or remove the link", start) from None
        raise ConfigError(f"cannot read {_noun(what)}: {exc.strerror or exc}", start) from None


def _noun(what: str) -> str:
    """"config file (given by project)" -> "config file": the parenthesis is for "no such ..." only."""
    return what.split(" (", 1)[0]


def parse_file(path: Path, what: str) -> Node:
    """`read_text`, then parse in the format of the file's suffix."""
    from forge_tools.config.formats import for_path

    return for_path(path).parse(read_text(path, what), Origin("file", path=str(path)))


@dataclass
class SourceRead:
    """One config source as read: its tree (None when it could not be read or parsed), every problem
    found in it in file order, and where `{env:}`/`{file:}` gave a value (with the template)."""

    step: str
    where: Path | str
    tree: Node | None = None
    errors: list[ConfigError] = field(default_factory=list)
    substituted: dict[Spot, str] = field(default_factory=dict)

    def tree_or_raise(self) -> Node:
        """The tree, or the first problem as the `ConfigError` to stop at."""
        if self.errors or self.tree is None:
            raise self.errors[0] if self.errors else ConfigError("config source could not be read")
        return self.tree


def read_source(step: str, where: Path | str, env: Mapping[str, str], cwd: Path, home: Path) -> SourceRead:
    """Read, parse, substitute and validate one discovered source (a file, a Markdown agent or an
    environment variable holding JSON), keeping every error it has. `step` is the discovery step
    (`config.loader.Step`); "agent-file" is a Markdown agent, "FORGE_PERMISSION" a bare permission map."""
    from forge_tools.config.formats import by_name, for_path
    from forge_tools.config.schema import validation_errors

    result = SourceRead(step, where)
    try:
        if isinstance(where, Path):
            text = read_text(where, f"config file (given by {step})")
            if step == "agent-file":
                from forge_tools.config.agent_files import agent_name_of, parse_agent_file

                tree = parse_agent_file(text, where, agent_name_of(where))
            else:
                tree = for_path(where).parse(text, Origin("file", path=str(where)))
            base_dir = where.parent
        else:
            tree = by_name("json").parse(env[where].removeprefix("\ufeff"), Origin("env", name=where))
            base_dir = cwd
    except ConfigError as exc:
        result.errors.append(exc)
        return result
    if step != "agent-file":  # an agent's prompt is taken as written, as opencode does
        tree = _substitute_each(tree, env, base_dir, home, result.errors, result.substituted)
    if step == "FORGE_PERMISSION":
        label = Origin("env", name=str(where))
        tree = Node({"permission": tree}, label, None)
        tree.value["permission"].key_origin = label
    failed = {e.origin for e in result.errors}  # a value whose substitution failed is reported once
    result.errors.extend(e for e in validation_errors(tree) if e.origin is None or e.origin not in failed)
    result.tree = tree
    return result


def _substitute_each(node: Node, env: Mapping[str, str], base_dir: Path, home: Path,
                     errors: list[ConfigError], substituted: dict[Spot, str]) -> Node:
    """Substitute leaf by leaf so that every bad `{file:}` is reported, not only the first; note where
    a value was substituted (and the template as written) so that no finding shows its content."""
    from forge_tools.config.substitute import substitute

    if isinstance(node.value, dict):
        node.value = {k: _substitute_each(v, env, base_dir, home, errors, substituted)
                      for k, v in node.value.items()}
        return node
    if isinstance(node.value, list):
        node.value = [_substitute_each(v, env, base_dir, home, errors, substituted) for v in node.value]
        return node
    try:
        new = substitute(node, env, base_dir, home)
    except ConfigError as exc:
        errors.append(exc)
        return node
    if new.meta.get("substituted"):
        substituted[spot_of(new.origin)] = str(new.meta.get("template", "the substitution"))
    return new
