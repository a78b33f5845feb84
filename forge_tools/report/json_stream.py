"""Writing a large JSON report without holding it whole: the same bytes as `json.dumps(data,
indent=2)`, written as json's own encoder makes them, with the long lists (`Streamed`) made one item
at a time. A `check` of 100k rules has tens of thousands of findings; as one string, their JSON, SARIF
or GitLab report took more memory than the check itself."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence, Sized
from typing import IO, Any

#: encoder chunks held before they are written (a few writes, not one per token, nor the whole text)
_FLUSH_CHUNKS = 8192


class Streamed(list[Any]):
    """A list json's encoder reads item by item: each item is made (`make(source)`) as it is written
    and let go. Only for `write_json`: it has a length and an order, and no items to index."""

    def __init__(self, sources: Sequence[Any], make: Callable[[Any], Any]) -> None:
        super().__init__()
        if not isinstance(sources, Sized):
            raise TypeError("a Streamed list needs its length (json writes [] for an empty one)")
        self._sources = sources
        self._make = make

    def __len__(self) -> int:
        return len(self._sources)

    def __iter__(self) -> Iterator[Any]:
        return (self._make(source) for source in self._sources)


def write_json(data: Any, stream: IO[str]) -> None:
    """`stream.write(json.dumps(data, indent=2) + "\\n")`, in pieces."""
    held: list[str] = []
    for chunk in json.JSONEncoder(indent=2).iterencode(data):
        held.append(chunk)
        if len(held) >= _FLUSH_CHUNKS:
            stream.write("".join(held))
            held.clear()
    held.append("\n")
    stream.write("".join(held))
