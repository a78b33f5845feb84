"""`problems_json`: the `problems` list of `layers`/`explain` JSON, each problem once, in order."""

from __future__ import annotations

from forge_tools.errors import ConfigError, PluginError
from forge_tools.origin import Origin
from forge_tools.visibility.pipeline import problems_json


def test_each_problem_once_in_first_seen_order() -> None:
    at = Origin("file", "/p/.forge/plugins/x.py", 3, 1)
    first = PluginError("tool 'a': bad; the tool was not loaded", "x", at)
    other = ConfigError("config broke", Origin("file", "/p/forge.json", 1, 2))
    again = PluginError("tool 'a': bad; the tool was not loaded", "x", at)  # equal, not the same object
    moved = PluginError("tool 'a': bad; the tool was not loaded", "x", Origin("file", "/p/x.py", 4, 1))
    items = problems_json([first, other, again, moved, other] * 1000)
    assert [(i["kind"], i["message"], i["origin"]["line"]) for i in items] == [
        ("plugin", "tool 'a': bad; the tool was not loaded", 3),
        ("config", "config broke", 1),
        ("plugin", "tool 'a': bad; the tool was not loaded", 4),
    ]
