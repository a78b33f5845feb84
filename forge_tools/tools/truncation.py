"""The shared output limit (SPEC 5.1, 5.3): a preview that fits, a marker, and a follow-up hint.

`preview_lines` is the bare algorithm (pure, so bash can apply it to the tail it kept while streaming);
`truncate_output` adds the full-output file and the texts the model reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from forge_tools.errors import ConfigError, ConfigProblem
from forge_tools.named_tuple import NamedTuple

if TYPE_CHECKING:
    from forge_tools.config.loader import LoadedConfig

    SettingsLike = LoadedConfig | Mapping[str, Any] | None  # a loaded config, or a plain mapping
    from forge_tools.tools.outputs import OutputStore

Direction = Literal["head", "tail"]
Unit = Literal["lines", "bytes"]
HintKind = Literal["subagent", "search"]

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024


@dataclass(frozen=True)
class TruncationPolicy:
    """Both limits are checked; `direction` says which end of the output is kept."""

    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES
    direction: Direction = "head"

    def __post_init__(self) -> None:
        if self.max_lines < 1 or self.max_bytes < 1:
            raise ValueError("truncation limits must be positive")
        if self.direction not in ("head", "tail"):
            raise ValueError(f"unknown truncation direction {self.direction!r}")

    def with_direction(self, direction: Direction) -> TruncationPolicy:
        return TruncationPolicy(self.max_lines, self.max_bytes, direction)

    @classmethod
    def from_config(cls, loaded: SettingsLike) -> TruncationPolicy:
        """Limits from `tool_output.max_lines` / `tool_output.max_bytes` (defaults when unset).

        Accepts a LoadedConfig (values keep their origin, so a bad one is reported where it was
        written), a plain mapping, or None.
        """
        limits: dict[str, int] = {}
        for key, default in (("max_lines", DEFAULT_MAX_LINES), ("max_bytes", DEFAULT_MAX_BYTES)):
            value, origin = tool_output_setting(loaded, key)
            if value is None:
                limits[key] = default
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"tool_output.{key} must be a positive integer, got {value!r}", origin,
                                  code=ConfigProblem.TYPE)
            limits[key] = value
        return cls(max_lines=limits["max_lines"], max_bytes=limits["max_bytes"])


def tool_output_setting(loaded: SettingsLike, key: str) -> tuple[Any, Any]:
    """`(value, origin)` of `tool_output.<key>` in a LoadedConfig or a plain mapping; `(None, None)`
    when unset."""
    if loaded is None:
        return None, None
    tree = getattr(loaded, "tree", None)
    if tree is not None:
        section = tree.get("tool_output")
        node = section.get(key) if section is not None else None
        return (node.value, node.origin) if node is not None else (None, None)
    if isinstance(loaded, Mapping):
        section = loaded.get("tool_output")
        if isinstance(section, Mapping):
            return section.get(key), None
    return None, None


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def preview_lines(
    lines: Sequence[str], policy: TruncationPolicy, direction: Direction | None = None
) -> tuple[list[str], int, Unit]:
    """SPEC 5.1 on lines already split on `\\n`: `(kept, removed, unit)`.

    Each kept line costs its UTF-8 bytes plus one for its newline, except the first kept line. Keeping
    stops at the line limit, or before the line that would pass the byte limit; in the latter case the
    amount cut is counted in bytes, otherwise in lines. Within both limits everything is kept.
    """
    direction = direction or policy.direction
    sizes = [_utf8_len(line) for line in lines]
    total_bytes = sum(sizes) + max(len(lines) - 1, 0)
    if len(lines) <= policy.max_lines and total_bytes <= policy.max_bytes:
        return list(lines), 0, "lines"
    order = range(len(lines)) if direction == "head" else range(len(lines) - 1, -1, -1)
    kept_idx: list[int] = []
    kept_bytes = 0
    hit_bytes = False
    for i in order:
        if len(kept_idx) >= policy.max_lines:
            break
        cost = sizes[i] + (1 if kept_idx else 0)
        if kept_bytes + cost > policy.max_bytes:
            hit_bytes = True
            break
        kept_idx.append(i)
        kept_bytes += cost
    if direction == "tail":
        kept_idx.reverse()
    kept = [lines[i] for i in kept_idx]
    if hit_bytes:
        return kept, total_bytes - kept_bytes, "bytes"
    return kept, len(lines) - len(kept), "lines"


#: opencode 1.18.33's own wording (recorded from its binary: tests/compat/facts/truncation): the
#: first line of every hint, then the advice for an agent that may dispatch subtasks or one that may not.
SAVED_TO = "The tool call succeeded but the output was truncated. Full output saved to: {path}"
SUBAGENT_ADVICE = ("Use the Task tool to have explore agent process this file with Grep and Read (with "
                   "offset/limit). Do NOT read the full file yourself - delegate to save context.")
SEARCH_ADVICE = "Use Grep to search the full content or Read with offset/limit to view specific sections."
#: the bash tool's own notice in opencode 1.18.33, put before the tail it keeps
SHELL_NOTICE = "...output truncated...\n\nFull output saved to: {path}"


def hint_text(kind: str, output_path: str | None) -> str:
    """The follow-up advice after a cut (SPEC 5.3) in opencode's words: delegate to the explore
    subagent through the Task tool, or search / page with Grep and Read."""
    if output_path is None:  # opencode always saves; forge-tools says so when it could not
        return (
            "The complete output could not be saved. Run the call again with a narrower scope if you "
            "need the missing part."
        )
    advice = SUBAGENT_ADVICE if kind == "subagent" else SEARCH_ADVICE
    return f"{SAVED_TO.format(path=output_path)}\n{advice}"


def marker_text(removed: int, unit: str, direction: Direction = "head") -> str:
    """The line that says how much of the output is not shown, as opencode writes it
    (`...3001 lines truncated...`, the unit always plural; the same at either end)."""
    return f"...{removed} {unit} truncated..."


class Truncated(NamedTuple):
    """What `truncate_output` gives back: the text for the model plus the facts for metadata."""

    content: str
    truncated: bool
    removed: int = 0
    unit: Unit = "lines"
    direction: Direction = "head"
    output_path: str | None = None
    hint: HintKind | None = None
    note: str | None = None  # e.g. the fallback location used for the full output

    def metadata(self) -> dict[str, Any]:
        """The metadata keys SPEC 1 and issue 3 name (`outputPath` only when truncated)."""
        if not self.truncated:
            return {"truncated": False}
        meta: dict[str, Any] = {
            "truncated": True,
            "outputPath": self.output_path,
            "removed": self.removed,
            "unit": self.unit,
            "direction": self.direction,
            "hint": self.hint,
        }
        if self.note:
            meta["outputNote"] = self.note
        return meta


def render_truncated(
    preview: str,
    removed: int,
    unit: Unit,
    direction: Direction,
    hint: HintKind,
    output_path: str | None,
    note: str | None = None,
    shell: bool = False,
) -> Truncated:
    """Assemble preview, marker and hint as opencode 1.18.33 does: head keeps
    `preview, marker, hint`; tail keeps `marker, hint, preview` (blank lines between). `shell` is the
    bash tool's own form: `...output truncated...`, the saved path, then the kept tail."""
    if shell and output_path is not None:
        notice = SHELL_NOTICE.format(path=output_path)
        if note:
            notice += f"\nNote: {note}."
        content = f"{notice}\n\n{preview}"
        return Truncated(content, True, removed, unit, direction, output_path, hint, note)
    hint_part = hint_text(hint, output_path)
    if note:
        hint_part += f"\nNote: {note}."
    marker = marker_text(removed, unit, direction)
    content = (f"{preview}\n\n{marker}\n\n{hint_part}" if direction == "head"
               else f"{marker}\n\n{hint_part}\n\n{preview}")
    return Truncated(content, True, removed, unit, direction, output_path, hint, note)


def printable_text(text: str) -> str:
    """The text a model can be shown: bytes that were not UTF-8 (kept as `surrogateescape` surrogates
    by the caller) become U+FFFD. The saved full output keeps the original bytes."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "replace")


def truncate_output(
    text: str,
    policy: TruncationPolicy | None = None,
    hint: str = "search",
    store: OutputStore | None = None,
    tool_id: str = "tool",
    direction: Direction | None = None,
) -> Truncated:
    """Apply the shared limit; when anything is cut, save the whole text and point at it.

    Limits apply to the text as shown (non-UTF-8 bytes replaced); the saved file keeps the exact bytes
    of a text decoded with `surrogateescape`.
    """
    policy = policy or TruncationPolicy()
    direction = direction or policy.direction
    hint_kind: HintKind = "subagent" if hint == "subagent" else "search"
    shown = printable_text(text)
    lines = shown.split("\n")
    kept, removed, unit = preview_lines(lines, policy, direction)
    if removed == 0 and len(kept) == len(lines):
        return Truncated(shown, False, direction=direction)
    output_path: str | None = None
    note: str | None = None
    try:
        if store is None:
            from forge_tools.tools.outputs import OutputStore

            store = OutputStore.from_env()
        saved = store.write_text(tool_id, text)
        output_path = str(saved.path)
        note = saved.fallback_note
    except OSError as exc:
        note = f"the full output could not be saved ({exc.strerror or exc})"
    return render_truncated("\n".join(kept), removed, unit, direction, hint_kind, output_path, note)
