"""Layer two (SPEC 3.2): plugin rewrites with diffs, then the task tool's subagent list."""

from __future__ import annotations

from forge_tools.origin import Node, Origin
from forge_tools.permission.agents import load_agents, subagents_for
from forge_tools.sources.plugins import LoadedPlugin, PluginHooks, PluginRef
from forge_tools.tools.contract import Tool
from forge_tools.visibility.definition_layer import definition_for, task_description


def tree(data: dict) -> Node:
    return Node.from_plain(data, Origin("file", path="forge.json"))


def tool(tool_id: str, description: str = "Do it.") -> Tool:
    return Tool(tool_id, description, {"type": "object", "properties": {}}, lambda a, c: "")


class _Plugin:
    def __init__(self, text: str) -> None:
        self.text = text

    def tool_definition(self, tool_id, definition):  # type: ignore[no-untyped-def]
        definition.description = self.text


def hooks(*texts: str) -> PluginHooks:
    plugins = []
    for i, text in enumerate(texts):
        obj = _Plugin(text)
        ref = PluginRef(f"p{i}", "dir", f"p{i}.py", Origin("file", path=f"p{i}.py"))
        impls = {"tool_definition": (obj.tool_definition, ("tool_id", "definition"))}
        plugins.append(LoadedPlugin(ref, obj, impls))
    return PluginHooks(plugins, [])


def test_each_change_is_a_unified_diff_by_its_plugin() -> None:
    outcome = definition_for("read", tool("read", "Read a file."), hooks("First.", "Second."), [])
    assert outcome.definition is not None and outcome.definition["description"] == "Second."
    assert [who for who, _ in outcome.changes] == ["p0", "p1"]
    diff = outcome.changes[0][1]
    assert "-  Read a file." in diff and "+  First." in diff and diff.startswith("--- read (before p0)")
    assert outcome.reason == "definition changed by p0, p1"


def test_task_lists_subagents_sorted_and_leaves_out_denied_ones() -> None:
    agents = load_agents(tree({
        "agent": {
            "zeta": {"mode": "subagent", "description": "Last by name."},
            "alpha": {"mode": "subagent", "description": "First by name."},
            "boss": {"mode": "primary"},
            "build": {"permission": {"task": {"*": "allow", "explore": "deny"}}},
        }
    }))
    subagents = subagents_for(agents["build"], agents)
    names = [a.name for a in subagents]
    assert names == sorted(names)
    assert "explore" not in names and "boss" not in names
    assert {"alpha", "zeta", "general"} <= set(names)
    outcome = definition_for("task", tool("task", "Dispatch a subagent."), None, subagents)
    assert outcome.definition is not None
    text = outcome.definition["description"]
    assert text.index("- alpha: First by name.") < text.index("- general") < text.index("- zeta")
    assert [who for who, _ in outcome.changes] == ["forge-tools (task subagent list)"]


def test_the_subagent_list_fills_a_placeholder_when_there_is_one() -> None:
    assert task_description("Agents:\n{agents}\nEnd.", []).startswith("Agents:\n(none")


def test_other_tools_are_untouched_without_plugins() -> None:
    outcome = definition_for("bash", tool("bash"), None, [])
    assert outcome.changes == [] and outcome.reason == "definition as the tool declares it"
    assert definition_for("x", None, None, []).definition is None
