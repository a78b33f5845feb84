"""`forge-tools hook`: forge-tools' gate inside the agent's own pre-tool hook (issue 32; docs/hooks.md).

`main` is the process (one outer guard: whatever happens, the agent gets a deny it honours),
`runtimes.hook_gate` the one decision (the gate over the agent's rules; `explain` asks it too), one
small protocol module per agent (`claude`, `codex`, `gemini`, `opencode`: payload in, answer out, in
that agent's exact form; they know nothing about rules), `audit` the decision log and `install` the
hook entries. The decision path imports neither typer nor rich (`cli/entry.py` dispatches `hook`
before the CLI is built).
"""
