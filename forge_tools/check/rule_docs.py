"""What each finding code means at length: why it matters, a config that triggers it and its fix.

This is the one text behind `forge-tools rule CODE`, SARIF's `fullDescription` and `help`, and the
README (its table is `codes.markdown_table()`; the short summary and fix live with the code in
`codes.py`). A code without an entry here still has its summary and fix everywhere.
"""

from __future__ import annotations

from typing import NamedTuple

from forge_tools.report.findings import CodeInfo

#: where a rule is documented at length: the README, whose table rows are these codes
DOCS_URL = "https://pypi.org/project/forge-tools/"


class RuleDoc(NamedTuple):
    """What `forge-tools rule CODE` shows beside the code's summary: why it matters, and an example."""

    why: str
    example: str = ""  # a config (JSONC) that triggers the finding
    fixed: str = ""  # the same config with the problem fixed
    autofix: bool = False  # `check --fix` applies the fix


_DOCS: dict[str, RuleDoc] = {
    "FT001": RuleDoc("A file that cannot be parsed gives no rules at all, so every permission it meant to "
                     "set falls back to the defaults (often `ask`, sometimes `allow`).",
                     '{"permission": {"bash" "ask"}}',
                     '{"permission": {"bash": "ask"}}'),
    "FT002": RuleDoc("A value of the wrong type is refused when the config loads, so the agent does not "
                     "start with it.", '{"permission": {"bash": true}}', '{"permission": {"bash": "allow"}}'),
    "FT003": RuleDoc("Only allow, ask and deny are actions; a misspelt action makes the config unusable.",
                     '{"permission": {"edit": "allwo"}}', '{"permission": {"edit": "allow"}}'),
    "FT004": RuleDoc("An unknown key is usually a misspelling: the setting it was meant to be is not set.",
                     '{"permisson": {"bash": "ask"}}', '{"permission": {"bash": "ask"}}'),
    "FT005": RuleDoc("`{file:path}` is replaced by the file's text when the config loads; a missing file "
                     "makes the config unusable.", '{"model": "{file:./model.txt}"}  // no model.txt'),
    "FT006": RuleDoc("A config file that cannot be read (permissions, not UTF-8, not a regular file) "
                     "cannot be applied."),
    "FT007": RuleDoc("A repeated key keeps only one of its values in most readers; in a permission map "
                     "that silently drops a rule, so forge-tools refuses it.",
                     '{"permission": {"bash": "ask", "bash": "allow"}}', '{"permission": {"bash": "allow"}}'),
    "FT008": RuleDoc("The config parses and has the right types but cannot be used as written."),
    "FT009": RuleDoc("A tool script in a config directory that does not parse registers no tool, so the "
                     "tool the agent expects is missing."),
    "FT010": RuleDoc("A plugin that fails to load or misbehaves is left out; its tools and hooks are "
                     "missing from the pipeline."),
    "FT011": RuleDoc("With --load-code, check starts every configured MCP server to list its tools. A "
                     "server that does not start in time, crashes or answers nothing is an outage rather "
                     "than a config mistake: its tools are missing from this check (names that only it "
                     "defines may then look unknown). A warning, so `--ignore FT011` or an inline "
                     "`forge-tools: ignore FT011 -- reason` at the server's entry keeps one flaky server "
                     "from failing CI; the failure is remembered for 5 minutes.",
                     '{"mcp": {"db": {"type": "local", "command": ["db-mcp", "--no-such-flag"]}}}',
                     '{"mcp": {"db": {"type": "local", "command": ["db-mcp"]}}}'),
    "FT101": RuleDoc("A permission name that matches no tool never applies: the tool it was meant for "
                     "keeps its default action.",
                     '{"permission": {"grpe": "deny"}}', '{"permission": {"grep": "deny"}}', autofix=True),
    "FT102": RuleDoc("A wildcard name that matches nothing never applies.",
                     '{"permission": {"mcp_gihub_*": "deny"}}', '{"permission": {"mcp_github_*": "deny"}}'),
    "FT103": RuleDoc("The last matching rule decides, so an earlier rule that a later one fully covers "
                     "never decides anything: it reads as a restriction that does not exist.",
                     '{"permission": {"edit": {"src/generated/*": "deny", "src/*": "allow"}}}',
                     '{"permission": {"edit": {"src/*": "allow", "src/generated/*": "deny"}}}'),
    "FT104": RuleDoc("A tool whose last rule is `\"*\": \"deny\"` is removed from the model's tool list, "
                     "so the allows written before it can never be used: the agent cannot even call the "
                     "tool.",
                     '{"permission": {"webfetch": {"https://docs.example.com/*": "allow", "*": "deny"}}}',
                     '{"permission": {"webfetch": {"*": "deny", "https://docs.example.com/*": "allow"}}}',
                     autofix=True),
    "FT105": RuleDoc("A deny with a specific pattern rejects matching calls, but the model still sees the "
                     "tool and may try it. Usually intended; ignore the code (`check: {ignore: [FT105]}`) "
                     "if you write such denies on purpose.",
                     '{"permission": {"bash": {"rm *": "deny"}}}'),
    "FT106": RuleDoc("A reference to an agent that does not exist selects nothing: `default_agent` fails "
                     "to start and a `task` pattern never matches.",
                     '{"default_agent": "biuld"}', '{"default_agent": "build"}'),
    "FT107": RuleDoc("The legacy `tools: {name: bool}` map still works, but mixing it with `permission` "
                     "makes the order of rules hard to see; `permission` says the same in one vocabulary.",
                     '{"tools": {"webfetch": false}}', '{"permission": {"webfetch": "deny"}}', autofix=True),
    "FT108": RuleDoc("Reads outside the project also need an `external_directory` allow; without it the "
                     "read allow is never enough and every such read asks.",
                     '{"permission": {"read": {"/opt/docs/*": "allow"}}}',
                     '{"permission": {"read": {"/opt/docs/*": "allow"}, '
                     '"external_directory": {"/opt/docs/*": "allow"}}}'),
    "FT109": RuleDoc("Without --load-code, plugins are not run, so the tools they add are not checked and "
                     "unknown names may be plugin tools."),
    "FT110": RuleDoc("write, apply_patch, multiedit and patch ask the `edit` permission; a rule under their "
                     "own names never matches a call.",
                     '{"permission": {"write": "deny"}}', '{"permission": {"edit": "deny"}}', autofix=True),
    "FT111": RuleDoc("opencode accepts only one action for doom_loop, question, todowrite, webfetch and "
                     "websearch in opencode.json and refuses to start with a pattern map there.",
                     '// opencode.json\n{"permission": {"webfetch": {"*": "ask"}}}',
                     '// opencode.json\n{"permission": {"webfetch": "ask"}}'),
    "FT114": RuleDoc("A suppression comment outlives the problem it was for, and would hide the next "
                     "problem of that code on its line.",
                     '{"permission": {"grep": "deny"}}  // forge-tools: ignore FT101 -- no FT101 here',
                     '{"permission": {"grep": "deny"}}'),
    "FT115": RuleDoc("opencode hands any key it does not know under `agent.<name>` to the model as an "
                     "option, so a misspelt setting (`temprature`, `desription`) is accepted and silently "
                     "has no effect.",
                     '{"agent": {"build": {"temprature": 0.2}}}',
                     '{"agent": {"build": {"temperature": 0.2}}}'),
    "FT116": RuleDoc("opencode 1.18.33 matches a bash rule against each command's text as written, so "
                     "`\"rm *\": \"deny\"` does not stop `/bin/rm x`, `command rm x`, `env rm x`, "
                     "`bash -c 'rm x'`, `'rm' x` or `FOO=1 rm x`: they run rm and opencode allows them "
                     "under `\"*\": \"allow\"`. `check` writes the rule's command each known other way "
                     "(path-qualified names, wrappers, nested shells, `eval`, quoting, `$(...)`, "
                     "options before a subcommand) and decides each with the agent's runtime, without "
                     "running anything; each spelling that gets through is listed. An allow-list has "
                     "nothing to get around: what is not listed is denied.",
                     '{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}',
                     '{"permission": {"bash": {"*": "deny", "ls *": "allow", "git status": "allow"}}}'),
    "FT117": RuleDoc("opencode 1.18.33 drops every key it does not know from its files without a word, so "
                     "a misspelt setting (`permisions`) silently does nothing; forge-tools loads the file "
                     "the same way (the key is ignored, every command runs) and `check` names the key "
                     "with the closest known one. forge's own files (forge.json, forge.yaml, ...) stay "
                     "strict: there an unknown key is FT004 and stops the load.",
                     '{"permisions": {"bash": "deny"}}  // in opencode.json',
                     '{"permission": {"bash": "deny"}}'),
    "FT201": RuleDoc("An assertion of the --expect file states what the team relies on (a tool hidden, "
                     "a call denied); a config change broke it."),
    "FT202": RuleDoc("An assertion that cannot be evaluated checks nothing, so the file is refused at the "
                     "problem."),
    # Claude Code (runtimes/claude/findings.py)
    "FT301": RuleDoc("Claude Code skips a settings file it cannot parse and a rule it rejects; in a "
                     "headless session nobody is told, so the rules meant are silently missing.",
                     '{"permissions": {"allow": ["bash(ls)"]}}  // .claude/settings.json',
                     '{"permissions": {"allow": ["Bash(ls)"]}}'),
    "FT302": RuleDoc("Claude Code reads `:*` as a prefix only at the very end of a Bash rule; elsewhere it "
                     "is a `:` and a wildcard, and a `*` inside a prefix is literal.",
                     '{"permissions": {"deny": ["Bash(git push:* --force)"]}}',
                     '{"permissions": {"deny": ["Bash(git push * --force)"]}}'),
    "FT303": RuleDoc("Claude Code decides its file-writing tools by Edit(...) rules; a Write(path) rule is "
                     "never consulted, so a deny there protects nothing.",
                     '{"permissions": {"deny": ["Write(.env)"]}}',
                     '{"permissions": {"deny": ["Edit(.env)"]}}'),
    "FT304": RuleDoc("In a workspace whose trust dialog was not accepted, Claude Code does not load the "
                     "allow rules of .claude/settings.json (its deny and ask rules it does load)."),
    "FT305": RuleDoc("A rule naming a tool Claude Code does not have (a typo, another agent's name) never "
                     "applies.",
                     '{"permissions": {"deny": ["Webfetch"]}}',
                     '{"permissions": {"deny": ["WebFetch"]}}'),
    "FT306": RuleDoc("Claude Code merges every file's rules and a deny or ask always beats an allow, so an "
                     "allow inside a broader deny never decides (unlike opencode's last match).",
                     '{"permissions": {"deny": ["Bash(git *)"], "allow": ["Bash(git status)"]}}',
                     '{"permissions": {"deny": ["Bash(git push *)"], "allow": ["Bash(git status)"]}}'),
    "FT307": RuleDoc("Claude Code 2.1.328 matches a Bash deny against the command's forms (quotes removed, "
                     "`VAR=x`, `env`, `timeout` removed, the program's path reduced), but not options "
                     "before a subcommand, `builtin`, `eval` or `$(echo rm)`; under a broad allow those "
                     "spellings run unasked. `check` decides each with the claude runtime, runs nothing.",
                     '{"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(git push *)"]}}',
                     '{"permissions": {"allow": ["Bash(git status)", "Bash(git log *)"]}}'),
}


def doc_for(code: str) -> RuleDoc | None:
    return _DOCS.get(code)


def help_uri(code: str) -> str:
    return f"{DOCS_URL}#{code.lower()}"


def full_description(info: CodeInfo) -> str:
    doc = _DOCS.get(info.code)
    return f"{info.summary} {doc.why}" if doc else info.summary


def title(info: CodeInfo) -> str:
    """`FT104 trailing deny hides tool`: the code with words, for annotation titles."""
    return f"{info.code} {info.name.replace('-', ' ')}"


def render(info: CodeInfo, markdown: bool = False) -> str:
    """The whole text of one rule (`forge-tools rule`, SARIF help)."""
    doc = _DOCS.get(info.code)
    fence = "```jsonc\n{}\n```" if markdown else "    {}"
    lines = [f"{'# ' if markdown else ''}{info.code} {info.name} ({info.level})", "", info.summary]
    if doc is not None:
        lines += ["", f"{'**Why it matters.** ' if markdown else 'Why it matters: '}{doc.why}"]
        if doc.example:
            lines += ["", "Example that triggers it:" if not markdown else "**Example.**",
                      fence.format(doc.example.replace("\n", "\n    " if not markdown else "\n"))]
    lines += ["", f"{'**Fix.** ' if markdown else 'Fix: '}{info.help}"]
    if doc is not None and doc.fixed:
        lines += ["", "Fixed:" if not markdown else "**Fixed.**",
                  fence.format(doc.fixed.replace("\n", "\n    " if not markdown else "\n"))]
    if doc is not None and doc.autofix:
        lines += ["", "`forge-tools check --fix` applies this fix where it is safe."]
    return "\n".join(lines) + "\n"
