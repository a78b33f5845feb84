"""Gemini CLI 0.61's tool names and their arguments, in forge-tools' vocabulary's terms (the column
`runtimes/vocabulary.py` reads), and the built-in tools the model can be offered."""

from __future__ import annotations

#: forge-tools' tool id -> (Gemini's tool, {forge-tools' argument: Gemini's argument})
CALLS: dict[str, tuple[str, dict[str, str]]] = {
    "bash": ("run_shell_command", {"command": "command", "workdir": "dir_path",
                                   "description": "description"}),
    "read": ("read_file", {"filePath": "file_path", "offset": "start_line", "limit": "end_line"}),
    "edit": ("replace", {"filePath": "file_path", "oldString": "old_string", "newString": "new_string"}),
    "write": ("write_file", {"filePath": "file_path", "content": "content"}),
    "glob": ("glob", {"pattern": "pattern", "path": "dir_path"}),
    "grep": ("grep_search", {"pattern": "pattern", "path": "dir_path", "include": "include_pattern"}),
    "list": ("list_directory", {"path": "dir_path"}),
    "webfetch": ("web_fetch", {"url": "prompt"}),
    "websearch": ("google_web_search", {"query": "query"}),
    "todowrite": ("write_todos", {"todos": "todos"}),
}

#: Gemini CLI 0.61's built-in tools (`ALL_BUILTIN_TOOL_NAMES`), as the recorder lists them
BUILTIN = ("glob", "write_todos", "write_file", "google_web_search", "web_fetch", "replace",
           "run_shell_command", "grep_search", "read_many_files", "read_file", "list_directory",
           "activate_skill", "ask_user", "tracker_create_task", "tracker_update_task", "tracker_get_task",
           "tracker_list_tasks", "tracker_add_dependency", "tracker_visualize", "get_internal_docs",
           "enter_plan_mode", "exit_plan_mode", "update_topic", "complete_task", "invoke_agent",
           "read_mcp_resource", "list_mcp_resources")
LEGACY = {"search_file_content": "grep_search"}


def column() -> dict[str, tuple[str, dict[str, str]]]:
    """Gemini's column of the vocabulary table."""
    return dict(CALLS)


def known(name: str) -> bool:
    """A name Gemini knows: a built-in, a legacy alias, `discovered_tool_*`, an MCP name, or a
    wildcard (`*`, `mcp_*`, `mcp_server_*`)."""
    return (name in BUILTIN or name in LEGACY or name == "*"
            or name.startswith(("mcp_", "discovered_tool_"))
            or name in ("codebase_investigator", "cli_help", "ShellTool"))
