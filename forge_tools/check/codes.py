"""The stable finding codes of `check` (documented in the README table and shipped as SARIF rules).

Codes never change meaning once released; a new kind of finding gets a new code.
"""

from __future__ import annotations

from forge_tools.report.findings import CodeInfo

_TABLE: tuple[CodeInfo, ...] = (
    CodeInfo("FT001", "config-syntax", "error", "A config file cannot be parsed.",
             "Fix the syntax at the reported line and column (JSON/JSONC, TOML or YAML)."),
    CodeInfo("FT002", "config-type", "error", "A config value has the wrong type.",
             "Give the value the type the message names (e.g. a permission is an action or a map)."),
    CodeInfo("FT003", "unknown-action", "error", "A permission action is not allow, ask or deny.",
             "Use one of allow, ask, deny."),
    CodeInfo("FT004", "unknown-key", "error",
             "A key of one of forge's own config files is not known (opencode's files: FT117).",
             "Remove the key or fix its spelling (the message suggests the closest known key)."),
    CodeInfo("FT005", "file-reference", "error",
             "A {file:...} substitution names a file that cannot be read.",
             "Create the file or fix the path; it is relative to the config file that names it."),
    CodeInfo("FT006", "unreadable-config", "error", "A config file cannot be read.",
             "Check that the path exists, is a regular UTF-8 text file and is readable."),
    CodeInfo("FT007", "duplicate-key", "error", "A key appears twice in the same mapping.",
             "Keep one of the two keys; order matters in permission maps, so merge them deliberately."),
    CodeInfo("FT008", "config-error", "error", "The config cannot be used.",
             "Follow the message; the location points at the value concerned."),
    CodeInfo("FT009", "tool-script-syntax", "warning",
             "A config-dir tool script cannot be parsed (or, with --load-code, imported).",
             "Fix the script's syntax; until then it fails to import and registers no tool."),
    CodeInfo("FT010", "plugin-problem", "error",
             "A plugin cannot be loaded or misbehaves (checked with --load-code).",
             "Fix the plugin at the reported location; until then forge-tools runs without it, and without "
             "hooks of it that would block calls."),
    CodeInfo("FT011", "mcp-server-unavailable", "warning",
             "An MCP server could not be started, reached or listed (checked with --load-code).",
             "Start or fix the server (the message has its error and the tail of its stderr), or ignore "
             "FT011 where an outage must not fail the check; until then its tools are missing."),
    CodeInfo("FT101", "unknown-permission", "error",
             "A permission name matches no tool and no known permission (a warning while plugin tools are "
             "unknown, i.e. plugins are configured and --load-code is not given).",
             "Fix the spelling (the message suggests close names) or remove the rule."),
    CodeInfo("FT102", "wildcard-matches-nothing", "warning",
             "A wildcard permission name matches no tool and no known permission.",
             "Fix the wildcard or remove the rule; it never applies."),
    CodeInfo("FT103", "unreachable-rule", "warning",
             "A rule can never decide: a later rule of the same ruleset covers all its names and patterns.",
             "Remove the earlier rule, or move it after the broader rule if it was meant to win."),
    CodeInfo("FT104", "trailing-deny-hides-tool", "warning",
             "A last `\"*\": \"deny\"` after specific allows hides the whole tool.",
             "Put the `\"*\": \"deny\"` first and the allows after it: the last matching rule wins, and a "
             "tool whose last rule is `* deny` is removed from the model's tool list."),
    CodeInfo("FT105", "deny-does-not-hide", "info",
             "A deny with a specific pattern rejects matching calls but does not hide the tool.",
             "Nothing to fix if that is intended; use `\"*\": \"deny\"` as the last rule to hide the tool."),
    CodeInfo("FT106", "unknown-agent", "error",
             "A reference names an agent that does not exist (`default_agent`: error; a `task` pattern: "
             "warning).",
             "Fix the name (the message suggests close names) or define the agent under `agent`."),
    CodeInfo("FT107", "legacy-tools-map", "info", "A legacy `tools` map is used.",
             "Replace it with the `permission` form shown in the message (same meaning, one vocabulary)."),
    CodeInfo("FT108", "external-read-asks", "info",
             "Retired: `read` allows for absolute paths are reported as FT113 (they never match, since read "
             "patterns are relative to the project root).",
             "See FT113."),
    CodeInfo("FT109", "plugin-tools-unknown", "info",
             "Plugin tools are unknown because project code is not loaded.",
             "Run with --load-code (only on trusted code) to include plugin tools in the checks."),
    CodeInfo("FT110", "edit-family-name", "warning",
             "A rule names write, apply_patch, multiedit or patch, but those tools are checked as `edit`.",
             "Use `edit` as the permission name; a rule for the other names never matches a call."),
    CodeInfo("FT111", "opencode-refuses-pattern-map", "warning",
             "An opencode.json gives a pattern map for a permission that opencode accepts only as one action "
             "(doom_loop, question, todowrite, webfetch, websearch): opencode refuses to start with it.",
             "Give that permission one action, or move the map to a forge.* file (opencode does not read "
             "those)."),
    CodeInfo("FT112", "project-loosens-global-deny", "warning",
             "A project file or project Markdown agent turns a deny of the global config into ask or allow.",
             "Nothing to do if the project may loosen your rule; otherwise remove or narrow the project rule "
             "(the load order lets a project override the global config)."),
    CodeInfo("FT113", "path-pattern-never-matches", "warning",
             "A `read` or `edit` rule has an absolute or ~/ pattern: those calls are checked against the "
             "path relative to the project root (as opencode does), so the rule never matches.",
             "Use an `external_directory` rule for a directory outside the project, or write the pattern "
             "relative to the project root."),
    CodeInfo("FT114", "unused-suppression", "warning",
             "A `forge-tools: ignore` comment suppressed nothing, or names no finding code.",
             "Remove the comment (the problem it was for is gone), or fix the code it names."),
    CodeInfo("FT115", "agent-setting-typo", "warning",
             "A key under `agent.<name>` is no agent setting but is close to one: opencode passes unknown "
             "keys to the model as options, so the misspelt setting does nothing.",
             "Rename the key to the setting it names (the message says which), or leave it if it is a "
             "model option."),
    CodeInfo("FT116", "deny-rule-spelled-around", "warning",
             "A bash deny or ask rule is got around by another spelling of the same command (`/bin/rm`, "
             "`command rm`, `env rm`, `bash -c 'rm ...'`, ...) under the agent's runtime: it matches "
             "the rule's text, not the program.",
             "Make the bash rules an allow-list (`\"*\": \"deny\"` first, then the allowed commands), or "
             "run the agent's calls through forge-tools, whose gate resolves these spellings."),
    CodeInfo("FT117", "ignored-by-opencode", "warning",
             "opencode ignores part of its own config: a key it does not know (it drops it silently), or an "
             "OPENCODE_PERMISSION that is not JSON (it warns and goes on). forge-tools loads the config as "
             "opencode does and says so here; in forge's own files an unknown key is the error FT004.",
             "Fix the key's spelling (the message suggests the closest known key) or remove it; give "
             "OPENCODE_PERMISSION a JSON object."),
    CodeInfo("FT201", "expectation-failed", "error", "A --expect assertion does not hold.",
             "Change the config so the assertion holds, or update the expectation if the change was meant."),
    CodeInfo("FT202", "expectations-invalid", "error",
             "The --expect file cannot be used, or an assertion names an unknown agent or tool, or gives "
             "call arguments that do not fit the tool.",
             "Fix the file at the reported location; see the `--expect` forms in docs/check-and-diff.md."),
    # Claude Code's settings (runtimes/claude/findings.py; one block, issue 20)
    CodeInfo("FT301", "claude-settings-unusable", "error",
             "A Claude Code settings file or rule that Claude Code cannot use: not strict JSON, a value of "
             "the wrong type, a rule it rejects (`bash(ls)`, `WebFetch(https://...)`), an unknown mode.",
             "Fix it at the reported position; Claude Code skips it without a word in a non-interactive "
             "session."),
    CodeInfo("FT302", "claude-colon-star-inside", "warning",
             "A Claude Code Bash rule whose `:*` is not at the end (a `:` and a wildcard, not a prefix), "
             "or whose prefix holds a `*` (matched literally): it cannot match as written.",
             "Put `:*` at the end, or write the wildcard with a space (`Bash(git push *)`)."),
    CodeInfo("FT303", "claude-write-path-rule", "warning",
             "A Claude Code `Write(path)` rule: Claude Code never consults Write rules for paths.",
             "Write `Edit(path)`: Edit rules decide Edit, Write and NotebookEdit."),
    CodeInfo("FT304", "claude-untrusted-allows", "warning",
             "A Claude Code allow rule of .claude/settings.json that is not loaded: the workspace has not "
             "been trusted (hasTrustDialogAccepted).",
             "Accept the trust dialog in Claude Code, or move the rule to .claude/settings.local.json."),
    CodeInfo("FT305", "claude-unknown-tool", "warning",
             "A Claude Code rule names a tool Claude Code 2.1.328 does not have: it never applies.",
             "Fix the tool name (the message suggests the closest one)."),
    CodeInfo("FT306", "claude-allow-never-decides", "warning",
             "A Claude Code allow rule that a deny or ask rule covers: deny > ask > allow whatever the "
             "file, so it never decides.",
             "Remove the allow rule, or narrow the deny/ask rule (Claude Code has no allow-exception inside "
             "a deny)."),
    CodeInfo("FT307", "claude-deny-spelled-around", "warning",
             "A Claude Code Bash deny or ask rule that another spelling of the same command gets around "
             "under Claude Code's lowering (options before a subcommand, `builtin`, `eval`, ...): the "
             "spelling runs unasked.",
             "Deny the spellings too, or make Bash an allow-list; forge-tools' gate resolves most of them."),
)

CODES: dict[str, CodeInfo] = {c.code: c for c in _TABLE}


def markdown_table() -> str:
    """The README table, generated so docs and code cannot drift."""
    lines = ["| code | level | meaning | fix |", "|---|---|---|---|"]
    lines += [f"| {c.code} | {c.level} | {c.summary} | {c.help} |" for c in _TABLE]
    return "\n".join(lines)
