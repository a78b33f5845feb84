"""Loading and validating a config imports none of pydantic's model machinery and builds no model: the
shipped core schema (`config.core_schema`) does the checking. Importing `pydantic.main` and building the
config models would cost more than everything else a command does at start-up."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

MODEL_MODULES = ("pydantic.main", "pydantic.fields", "pydantic._internal._model_construction",
                 "forge_tools.config.schema")

PROBE = f"""
import json, os, sys
from pathlib import Path
from forge_tools.config import LoadOptions, load_config
from forge_tools.config.reader import read_source
from forge_tools.config.validation import agent_option_keys, config_keys
from forge_tools.errors import ConfigError
from forge_tools.visibility.pipeline import load_session_overlay

here = Path.cwd()
env = dict(os.environ)
env["FORGE_CONFIG_CONTENT"] = '{{"tool_output": {{"max_lines": 50}}}}'
env["OPENCODE_PERMISSION"] = '{{"webfetch": "ask"}}'
loaded = load_config(LoadOptions(cwd=here, env=env))
errors = []
for bad in sorted((here / "bad").iterdir()):
    errors += [e.one_line() for e in read_source("project", bad, env, here, here).errors]
try:
    load_config(LoadOptions(cwd=here, overlays=(here / "bad" / "forge.toml",), env=env))
except ConfigError as exc:
    errors.append(exc.one_line())
rules = load_session_overlay(here / "session.yaml", here)
print(json.dumps({{"agents": sorted(loaded.tree.get("agent").value), "errors": errors,
                  "options": [key for _, key, _, _ in agent_option_keys(loaded.tree)],
                  "keys": "permission" in config_keys(), "rules": len(rules),
                  "loaded": [m for m in {MODEL_MODULES!r} if m in sys.modules]}}))
"""


def test_loading_and_validating_configs_builds_no_model(project: Path) -> None:
    (project / "forge.json").write_text('{"permission": {"bash": {"*": "ask", "rm *": "deny"}},'
                                        ' "agent": {"plan": {"reasoningEffort": "high"}}}')
    (project / "forge.toml").write_text('model = "p/m"\n[agent.build.permission]\nedit = "ask"\n')
    (project / ".forge" / "agent").mkdir(parents=True)
    agent = "---\ndescription: reviews\nsteps: 3\n---\nbody\n"
    (project / ".forge" / "agent" / "review.md").write_text(agent)
    (project / "bad").mkdir()
    (project / "bad" / "forge.json").write_text('{"tool_output": {"max_byte": 1}}')
    (project / "bad" / "forge.toml").write_text('[agent.plan]\nmode = "prim"\n')
    (project / "session.yaml").write_text("permission:\n  bash: deny\n")
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=project, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["agents"] == ["build", "plan", "review"]
    assert found["options"] == ["reasoningEffort"] and found["keys"] and found["rules"] == 1
    toml_error = (f"{project}/bad/forge.toml:2:8: agent.plan.mode: 'prim' is not one of 'primary', "
                  "'subagent' or 'all' (did you mean 'primary'?)")
    assert found["errors"] == [
        f"{project}/bad/forge.json:1:18: unknown key 'max_byte' in tool_output (did you mean 'max_bytes'?)",
        toml_error,  # every error of the file (check)
        toml_error,  # the first, stopping the load (as a --config overlay)
    ]
    assert found["loaded"] == []


CLI_PROBE = f"""
import io, json, sys
from contextlib import redirect_stderr, redirect_stdout
from forge_tools.cli.app import run
with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
    code = run(sys.argv[1:])
print(json.dumps({{"code": code, "err": err.getvalue(),
                  "loaded": [m for m in {MODEL_MODULES!r} if m in sys.modules]}}))
"""


def test_the_config_command_builds_no_model(project: Path) -> None:
    """The CLI path (typer's parameter conversion included) as far as `config` goes; `explain`, `layers`
    and `check` also build the builtin tools' argument models."""
    (project / "forge.json").write_text('{"permission": {"bash": "ask"}}')
    (project / "forge.toml").write_text('[agent.plan]\nsteps = 3\n')
    runs = [("config",), ("config", "--format", "json")]
    for args in runs:
        proc = subprocess.run([sys.executable, "-c", CLI_PROBE, *args], cwd=project, capture_output=True,
                              text=True, timeout=60)
        found = json.loads(proc.stdout.strip().splitlines()[-1])
        assert (found["code"], found["loaded"]) == (0, []), args
    (project / "forge.toml").write_text('[agent.plan]\nsteps = 0\n')
    proc = subprocess.run([sys.executable, "-c", CLI_PROBE, "config"], cwd=project, capture_output=True,
                          text=True, timeout=60)
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["code"] == 3 and f"{project}/forge.toml:2:9: agent.plan.steps:" in found["err"]
    assert found["loaded"] == []
