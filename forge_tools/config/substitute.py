"""`{env:VAR}` and `{file:path}` in a config file's raw text, as opencode 1.18.33 does (SPEC 6.1).

The text is substituted before it is parsed, so a token works anywhere: in keys, in permission
patterns, and outside strings. As in opencode, an env value goes in as it is (unset is ""), and a
file's content is trimmed and escaped as the inside of a JSON string (so a file holding quotes or
newlines stays one string value); a `{file:}` on a comment line (`//` first) is left alone.

Substituted values may be secrets (API keys, files from the home directory), and `check` runs on
untrusted pull requests: every value that came out of a substitution keeps the text as written in
`meta["template"]` and what it used in `meta["substituted"]`, and a parse error in substituted text
is reported without quoting it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from forge_tools.config.files import NO_SUCH_FILE, read_failure, read_regular_text
from forge_tools.errors import ConfigError, ConfigProblem
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin

_TOKEN = re.compile(r"\{(env|file):([^}]*)\}")
#: stands for a token while the text is parsed a second time to find which values held one
_MARK = "\u2063forge-subst-{}\u2063"
_MARK_RE = re.compile("\u2063forge-subst-(\\d+)\u2063")


class Substitution(NamedTuple):
    """One token: as written, what it used (`env X`, `env X (unset)`, `file p`), and its line."""

    token: str
    used: str
    line: int


def _file_path(arg: str, base_dir: Path, home: Path) -> Path:
    if arg == "~":
        return home
    if arg.startswith("~/"):
        return home / arg[2:]
    path = Path(arg)
    return path if path.is_absolute() else base_dir / path


def _read_file(arg: str, base_dir: Path, home: Path, at: Origin) -> str:
    path = _file_path(arg, base_dir, home)
    try:
        return read_regular_text(path).strip()
    except (OSError, UnicodeDecodeError, RuntimeError) as exc:
        reason = read_failure(path, exc)
        if reason == NO_SUCH_FILE:
            raise ConfigError(f"{{file:{arg}}}: no such file {str(path)!r}", at,
                              code=ConfigProblem.FILE_REFERENCE) from None
        raise ConfigError(f"{{file:{arg}}}: cannot read {str(path)!r}: {reason}", at,
                          code=ConfigProblem.FILE_REFERENCE) from None


def substitute_text(text: str, env: Mapping[str, str], base_dir: Path, home: Path, base: Origin,
                    errors: list[ConfigError] | None = None) -> tuple[str, str, list[Substitution]]:
    """(substituted text, the text with each token replaced by a marker, the tokens in order).

    A `{file:}` path is relative to `base_dir`, `~/` is the home directory. A token that cannot be
    substituted raises `ConfigError` at its line and column, or is appended to `errors` when given
    (so `check` reports every bad token) and left as written.
    """
    if "{" not in text:
        return text, text, []
    found: list[Substitution] = []
    out: list[str] = []
    marked: list[str] = []
    last = 0
    for match in _TOKEN.finditer(text):
        kind, arg = match.group(1), match.group(2).strip()
        line_start = text.rfind("\n", 0, match.start()) + 1
        line = text.count("\n", 0, match.start()) + 1
        at = Origin(base.kind, base.path, line, match.start() - line_start + 1, base.key_path, base.name)
        if kind == "file" and text[line_start:match.start()].lstrip().startswith("//"):
            continue  # opencode leaves a {file:} on a comment line alone
        try:
            if kind == "env":
                value = env.get(arg, "")
                if any("\ud800" <= c <= "\udfff" for c in value):  # undecodable bytes (surrogateescape)
                    raise ConfigError(f"{{env:{arg}}}: the variable is not UTF-8 text", at,
                                      code=ConfigProblem.UNREADABLE)
                used = f"env {arg}" + ("" if env.get(arg) else " (unset)")
            else:
                value = json.dumps(_read_file(arg, base_dir, home, at), ensure_ascii=False)[1:-1]
                used = f"file {arg}"
        except ConfigError as exc:
            if errors is None:
                raise
            errors.append(exc)
            continue
        out += [text[last:match.start()], value]
        marked += [text[last:match.start()], _MARK.format(len(found))]
        found.append(Substitution(match.group(0), used, line))
        last = match.end()
    out.append(text[last:])
    marked.append(text[last:])
    return "".join(out), "".join(marked), found


def _unmark(text: str, subs: list[Substitution]) -> tuple[str, list[str]]:
    used: list[str] = []

    def back(match: re.Match[str]) -> str:
        sub = subs[int(match.group(1))]
        used.append(sub.used)
        return sub.token

    return _MARK_RE.sub(back, text), used


def _mark_templates(real: Node, marked: Node, subs: list[Substitution]) -> bool:
    """Copy what was written into `real`'s substituted strings; False when the trees differ in shape."""
    if isinstance(marked.value, dict):
        if not isinstance(real.value, dict) or len(real.value) != len(marked.value):
            return False
        for (key, child), (mkey, mchild) in zip(real.value.items(), marked.value.items(), strict=True):
            if _MARK_RE.search(mkey):
                template, used = _unmark(mkey, subs)
                child.meta = {**child.meta, "key_template": template, "key_substituted": used}
            elif key != mkey:
                return False
            if not _mark_templates(child, mchild, subs):
                return False
        return True
    if isinstance(marked.value, list):
        if not isinstance(real.value, list) or len(real.value) != len(marked.value):
            return False
        return all(_mark_templates(r, m, subs) for r, m in zip(real.value, marked.value, strict=True))
    if isinstance(marked.value, str) and _MARK_RE.search(marked.value):
        template, used = _unmark(marked.value, subs)
        real.meta = {**real.meta, "template": template, "substituted": used}
    return True


def _mark_lines(node: Node, lines: dict[int, list[Substitution]]) -> None:
    """Fallback when a token stands outside a string: every value on a line that held one is marked."""
    for child in (node.value.values() if isinstance(node.value, dict) else
                  node.value if isinstance(node.value, list) else ()):
        _mark_lines(child, lines)
    if not isinstance(node.value, (dict, list)) and node.origin.line in lines:
        subs = lines[node.origin.line]
        node.meta = {**node.meta, "template": " ".join(s.token for s in subs),
                     "substituted": [s.used for s in subs]}


def parse_substituted(text: str, fmt: str, base: Origin, env: Mapping[str, str], base_dir: Path,
                      home: Path, errors: list[ConfigError] | None = None) -> Node:
    """Substitute `text`, then parse it; every value that holds a substitution is marked (see above)."""
    from forge_tools.config.formats import parse_text

    new, marked, subs = substitute_text(text, env, base_dir, home, base, errors)
    if not subs:
        return parse_text(new, fmt, base)
    try:
        tree = parse_text(new, fmt, base)
    except ConfigError as exc:
        first = subs[0]
        where = exc.origin if exc.origin is not None else base
        if where.line is not None and where.line < first.line:
            raise  # before any substitution: the error is in the text as written
        raise ConfigError(f"not valid {fmt.upper()} once {', '.join(s.token for s in subs)} "
                          f"{'is' if len(subs) == 1 else 'are'} substituted (first on line "
                          f"{first.line}); the substituted text is not shown", where,
                          code=ConfigProblem.SYNTAX) from None
    try:
        shadow = parse_text(marked, fmt, base)
    except ConfigError:
        shadow = None
    if shadow is None or new.count("\n") != text.count("\n") or not _mark_templates(tree, shadow, subs):
        lines: dict[int, list[Substitution]] = {}
        for sub in subs:
            lines.setdefault(sub.line, []).append(sub)
        if new.count("\n") != text.count("\n"):  # a value brought newlines: mark every value
            lines = {n: subs for n in range(1, new.count("\n") + 2)}
        _mark_lines(tree, lines)
    return tree
