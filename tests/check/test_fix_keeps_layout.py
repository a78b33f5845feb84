"""Issue 18: `check --fix` keeps everything but the fix. Comments belong to their entries when FT104
moves them, YAML keeps its quoting, anchors and the comments after them, one fix that cannot be made
does not drop the others, one run reaches a fixed point, and a `json5` module that is not json-five's
is a clear error rather than an internal one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

JSONC_TRAILING = """{
  "permission": {
    "bash": {
      // the read-only ones
      "git status": "allow",  // read-only git
      "git diff": "allow",  /* also read-only */
      "*": "deny"  // everything else
    }
  }
}
"""


def codes(cli) -> list[str]:
    code, out, err = cli("check", "--format", "json")
    assert code in (0, 1), err
    return [f["code"] for f in json.loads(out)["findings"]]


def test_jsonc_comments_move_with_their_entries(project: Path, cli) -> None:
    path = project / "opencode.jsonc"
    path.write_text(JSONC_TRAILING)
    assert "FT104" in codes(cli)
    code, _, err = cli("check", "--fix")
    assert code == 0, err
    assert path.read_text() == """{
  "permission": {
    "bash": {
      "*": "deny",  // everything else
      // the read-only ones
      "git status": "allow",  // read-only git
      "git diff": "allow"  /* also read-only */
    }
  }
}
"""
    assert "FT104" not in codes(cli)


def test_jsonc_trailing_comma_is_kept_where_it_was(project: Path, cli) -> None:
    path = project / "opencode.jsonc"
    path.write_text('{\n  "permission": {\n    "edit": {\n      "src/*": "allow", // ours\n'
                    '      "*": "deny", // the rest\n    },\n  },\n}\n')
    cli("check", "--fix")
    assert path.read_text() == ('{\n  "permission": {\n    "edit": {\n      "*": "deny", // the rest\n'
                                '      "src/*": "allow", // ours\n    },\n  },\n}\n')


YAML = """\
permission:
  bash: &shell  # shared shell rules
    "git status": allow  # read-only
    'git diff': allow
    "*": deny
  grpe: deny  # no searching
  "edti": ask
"""


def test_yaml_keeps_quoting_anchors_and_comments(project: Path, cli) -> None:
    path = project / "forge.yaml"
    path.write_text(YAML)
    code, _, err = cli("check", "--fix")
    assert code == 0, err
    assert path.read_text() == """\
permission:
  bash: &shell  # shared shell rules
    "*": deny
    "git status": allow  # read-only
    'git diff': allow
  grep: deny  # no searching
  "edit": ask
"""
    assert not set(codes(cli)) & {"FT101", "FT104"}


def test_yaml_nested_block_values_move_whole(project: Path, cli) -> None:
    path = project / "forge.yaml"
    path.write_text("agent:\n  build:\n    permission:\n      edit:\n        src/*: allow  # ours\n"
                    "        '*': deny\n")
    cli("check", "--fix")
    assert path.read_text() == ("agent:\n  build:\n    permission:\n      edit:\n        '*': deny\n"
                                "        src/*: allow  # ours\n")


def test_one_conflicting_fix_does_not_drop_the_others(project: Path, cli) -> None:
    path = project / "opencode.json"
    original = '{"permission": {"edti": "ask", "write": "allow", "grpe": "deny"}}\n'
    path.write_text(original)
    code, out, err = cli("check", "--fix", "--diff")
    assert code == 1  # something would change
    assert '+{"permission": {"edit": "ask", "write": "allow", "grep": "deny"}}' in out
    assert path.read_text() == original
    # the conflict is said once, where it is, and with the fix it collides with
    lines = [line for line in err.splitlines() if "not fixed" in line]
    assert len(lines) == 1, err
    assert lines[0].startswith("forge-tools: not fixed: opencode.json:1:32: FT110's fix")
    assert "FT101's fix at 1:17 (renamed 'edti' to 'edit')" in lines[0]
    assert "permission.edit" in lines[0]

    code, _, err = cli("check", "--fix")
    assert path.read_text() == '{"permission": {"edit": "ask", "write": "allow", "grep": "deny"}}\n'
    assert "fixed opencode.json: renamed 'edti' to 'edit'" in err
    assert "fixed opencode.json: renamed 'grpe' to 'grep'" in err
    assert "FT110" in codes(cli)  # what was not fixed is still reported


def test_fix_reaches_a_fixed_point_in_one_run(project: Path, cli) -> None:
    path = project / "opencode.json"
    path.write_text('{"permission": {"edti": {"src/*": "allow", "*": "deny"}}}\n')
    code, out, _ = cli("check", "--fix", "--diff")
    assert code == 1
    assert '+{"permission": {"edit": {"*": "deny", "src/*": "allow"}}}' in out  # both fixes, one diff
    code, out, err = cli("check", "--fix", "--format", "json")
    assert path.read_text() == '{"permission": {"edit": {"*": "deny", "src/*": "allow"}}}\n'
    assert "renamed 'edti' to 'edit'" in err and 'moved permission.edit."*" = deny first' in err
    assert not [f for f in json.loads(out)["findings"] if f["code"] in ("FT101", "FT104")]
    assert cli("check", "--fix", "--diff")[0] == 0  # nothing left to change


def test_diff_exits_zero_when_nothing_would_change(project: Path, cli) -> None:
    (project / "opencode.json").write_text('{"permission": {"edit": "ask"}}\n')
    code, out, _ = cli("check", "--fix", "--diff")
    assert (code, out) == (0, "")


# ------------------------------------------------------------------ a `json5` that is not json-five


def _forge_with_shadowed_json5(tmp: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """forge-tools in a subprocess whose `json5` is another package's (as PyPI json5 installs it)."""
    shadow = tmp / "shadow"
    (shadow / "json5").mkdir(parents=True, exist_ok=True)
    (shadow / "json5" / "__init__.py").write_text('def loads(s):\n    raise ValueError\n')
    (shadow / "json5" / "parser.py").write_text("# PyPI json5's parser: no parse_source\n")
    env = {**os.environ, "PYTHONPATH": str(shadow)}
    return subprocess.run([sys.executable, "-m", "forge_tools", *args], cwd=project, capture_output=True,
                          text=True, env=env, timeout=120)


def test_json_syntax_error_with_a_shadowed_json5_is_located(project: Path, tmp_path: Path) -> None:
    (project / "opencode.json").write_text('{\n  "permission": {"edit": "ask"\n}\n')
    done = _forge_with_shadowed_json5(tmp_path, project, "check", "--format", "json")
    assert "Traceback" not in done.stderr and "parse_source" not in done.stderr + done.stdout
    finding = next(f for f in json.loads(done.stdout)["findings"] if f["code"] == "FT001")
    assert finding["location"]["line"] == 4  # where the standard library stops
    assert "json-five" in finding["message"]
    done = _forge_with_shadowed_json5(tmp_path, project, "config")
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert done.stderr.startswith("forge-tools: error: ") and "opencode.json:4:1" in done.stderr


def test_fix_with_a_shadowed_json5_says_what_to_do(project: Path, tmp_path: Path) -> None:
    path = project / "opencode.jsonc"
    path.write_text(JSONC_TRAILING)
    done = _forge_with_shadowed_json5(tmp_path, project, "check", "--fix")
    assert "Traceback" not in done.stderr, done.stderr
    assert path.read_text() == JSONC_TRAILING
    assert "not fixed: opencode.jsonc" in done.stderr
    assert "pip uninstall json5" in done.stderr and "json-five" in done.stderr
