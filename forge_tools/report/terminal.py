"""Text output never carries a control character to the terminal (issue 22).

Strings that come from a project, a server or a tool (descriptions, ids, rule patterns, paths, a tool's
output) reach every renderer, and an OSC escape among them (ESC ] 52 ; ... BEL writes the clipboard,
others set the window title or hide text), a CSI sequence, a C1 control or a BEL would act on the
reader's terminal. So the sanitiser sits where text leaves the process, not in each renderer:

- `cli/app.run` puts `SafeStream` in front of stdout and stderr for the whole command, so everything
  written through `typer.echo`, `print`, `sys.stdout.write` or a `PlainConsole` is escaped;
- a rich console (colour on a terminal) writes to the raw stream, because its own style codes must
  reach the terminal, and escapes the text of every segment it renders (`safe_rich_console`).

What is escaped (`UNSAFE`): C0 controls except newline and tab, DEL, the C1 controls U+0080-U+009F,
the bidirectional embedding, override and isolate controls and the line/paragraph separators (they
reorder or break what is shown) and lone surrogates (they cannot be encoded). Each becomes `\\uXXXX`:
readable, and the same escape JSON uses, so a JSON document that passes through is the same document
(`json.dumps` already escapes C0; C1, bidi controls and surrogates it writes raw become their JSON
escapes), and `--format json` keeps the real string.
"""

from __future__ import annotations

import re
from typing import IO, Any

from forge_tools.lazy_re import lazy

#: the code points escaped, as (first, last) ranges
UNSAFE_RANGES = ((0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0x200E, 0x200F), (0x2028, 0x2029),
                 (0x202A, 0x202E), (0x2066, 0x2069), (0xD800, 0xDFFF))


def _character_class(ranges: Any) -> str:
    return "[" + "".join(f"\\u{first:04x}-\\u{last:04x}" for first, last in ranges) + "]"


#: the pattern of every unsafe character, compiled on first use: its ranges beyond ASCII cost a
#: compilation (~0.4 ms) that all-ASCII text, most of what is printed, never needs
UNSAFE = lazy(_character_class(UNSAFE_RANGES))
#: the same ranges within ASCII, for text that is all ASCII
_ASCII_UNSAFE = lazy(_character_class((first, min(last, 0x7F)) for first, last in UNSAFE_RANGES
                                      if first <= 0x7F))


def unsafe_pattern(text: str) -> re.Pattern[str]:
    """The pattern that finds `text`'s unsafe characters: the ASCII one when `text` is all ASCII."""
    return _ASCII_UNSAFE() if text.isascii() else UNSAFE()


def _escape_one(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_controls(text: str) -> str:
    """`text` with every `UNSAFE` character written as `\\uXXXX` (idempotent: the result has none)."""
    pattern = unsafe_pattern(text)
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape_one, text)


class SafeStream:
    """A text stream that escapes `UNSAFE` characters on their way to `raw`; everything else (flush,
    isatty, fileno, encoding, ...) is the raw stream's. It has no `buffer`, so nothing can go round it
    by writing bytes."""

    def __init__(self, raw: IO[str]) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(escape_controls(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self.raw, name)


def raw_stream(stream: IO[str]) -> IO[str]:
    """The stream under a `SafeStream` (for writers that escape what they write themselves)."""
    return stream.raw if isinstance(stream, SafeStream) else stream


def install(streams: Any) -> tuple[Any, Any]:
    """Put a `SafeStream` in front of `streams.stdout` and `streams.stderr` (the `sys` module);
    returns the previous pair for `restore`."""
    previous = (streams.stdout, streams.stderr)
    for name in ("stdout", "stderr"):
        stream = getattr(streams, name)
        if stream is not None and not isinstance(stream, SafeStream):
            setattr(streams, name, SafeStream(stream))
    return previous


def restore(streams: Any, previous: tuple[Any, Any]) -> None:
    streams.stdout, streams.stderr = previous


def safe_rich_console(stream: IO[str], **options: Any) -> Any:
    """A rich `Console` on the raw `stream` whose rendered text is escaped segment by segment (its
    own style and control codes are not text and pass)."""
    from rich.console import Console
    from rich.segment import Segment

    class _SafeConsole(Console):
        def render(self, renderable: Any, options: Any = None) -> Any:
            for segment in super().render(renderable, options):
                if segment.control or unsafe_pattern(segment.text).search(segment.text) is None:
                    yield segment
                else:
                    yield Segment(escape_controls(segment.text), segment.style, segment.control)

    return _SafeConsole(file=raw_stream(stream), **options)
