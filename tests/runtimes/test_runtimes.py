"""The runtime seam (issue 17): which runtime answers, opencode 1.18.33's lowering and decisions, the
gate beside it, `check --expect` on the runtime's answer, and FT116."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import forge_tools
from forge_tools.runtimes import RUNTIMES, get_runtime, runtime_for
from forge_tools.runtimes.opencode.shell import bash_patterns, lower

RM_DENY = {"permission": {"bash": {"*": "allow", "rm *": "deny"}}}
ALLOW_LIST = {"permission": {"bash": {"*": "deny", "ls *": "allow", "git status": "allow",
                                      "rm *": "deny"}}}


@pytest.mark.parametrize(("line", "patterns"), [
    ("/bin/rm v2.txt", ["/bin/rm v2.txt"]),
    ("command rm v3.txt", ["command rm v3.txt"]),
    ('bash -c "rm v5.txt"', ['bash -c "rm v5.txt"']),
    ("echo hi > /tmp/x/f", ["echo hi > /tmp/x/f"]),
    ("FOO=1 rm x", ["FOO=1 rm x"]),
    ("git status && rm -rf build", ["git status", "rm -rf build"]),
    ("echo $(rm a)", ["echo $(rm a)", "rm a"]),
    ("cd /tmp && ls", ["ls"]),
])
def test_opencode_matches_each_command_as_written(line: str, patterns: list[str]) -> None:
    assert bash_patterns(line) == patterns


def test_opencode_path_checks_only_its_own_commands() -> None:
    args = {c.words[0]: c.path_args for c in lower("head -1 /etc/a; ls /tmp/x; cat /etc/b; chmod +x /c")}
    assert args == {"head": (), "ls": (), "cat": ("/etc/b",), "chmod": ("/c",)}


def test_the_config_chooses_the_runtime_and_the_flag_overrides(project: Path) -> None:
    (project / "opencode.json").write_text(json.dumps(RM_DENY))
    loaded = forge_tools.load_project(project)
    assert runtime_for(loaded).runtime.name == "opencode"
    assert runtime_for(loaded, "forge").runtime.name == "forge"
    (project / "forge.json").write_text("{}")
    chosen = runtime_for(forge_tools.load_project(project))
    assert chosen.runtime.name == "forge" and "forge.json" in chosen.chosen_by
    assert set(RUNTIMES) == {"opencode", "forge", "claude", "codex", "gemini"}
    with pytest.raises(forge_tools.errors.UsageError, match="did you mean 'forge'"):
        get_runtime("forj")


@pytest.mark.parametrize(("command", "opencode", "gate"), [
    ("/bin/rm v2.txt", "allow", "deny"),
    ("command rm v3.txt", "allow", "deny"),
    ("env rm v4.txt", "allow", "deny"),
    ('bash -c "rm v5.txt"', "allow", "deny"),
    ("rm v1.txt", "deny", "deny"),
    ("ls", "allow", "allow"),
])
def test_both_answers_are_given(project: Path, command: str, opencode: str, gate: str) -> None:
    (project / "opencode.json").write_text(json.dumps(RM_DENY))
    both = forge_tools.call_answers(project, "bash", {"command": command})
    assert (both.runtime.action, both.gate.action) == (opencode, gate)
    assert (both.difference is not None) == (opencode != gate)
    assert forge_tools.decide_call(project, "bash", {"command": command}).action == gate
    assert forge_tools.call_answers(project, "bash", {"command": command},
                                    runtime="forge").runtime.action == gate


def test_external_directory_is_asked_only_where_opencode_asks(project: Path, tmp_path: Path) -> None:
    (project / "opencode.json").write_text(json.dumps({"permission": {"external_directory": "deny"}}))
    outside = tmp_path / "outside"
    outside.mkdir()
    for command, action in [("head -1 /etc/hostname", "allow"), (f"ls {outside}", "allow"),
                            (f"echo hi > {outside}/f", "allow"), ("cat /etc/hostname", "deny"),
                            (f"cp x {outside}/", "deny"), ("cat ~/x", "deny"), ("cat README.md", "allow")]:
        both = forge_tools.call_answers(project, "bash", {"command": command})
        assert both.runtime.action == action, (command, both.runtime.reason)
    denied = forge_tools.call_answers(project, "bash", {"command": "cat /etc/hostname"})
    assert next((c.permission, c.pattern) for c in denied.runtime.decision.checks) == (
        "external_directory", "/etc/*")
    read = forge_tools.call_answers(project, "read", {"filePath": str(project / ".env")})
    assert [c.pattern for c in read.runtime.decision.checks] == [".env"]


def test_check_expect_asserts_the_runtime_s_answer(project: Path, cli) -> None:
    (project / "opencode.json").write_text(json.dumps(RM_DENY))
    (project / "expect.yaml").write_text(
        '- agent: build\n  call: {tool: bash, args: {command: "/bin/rm -rf build"}}\n  expect: deny\n'
        '- agent: build\n  call: {tool: bash, args: {command: "/bin/rm -rf build"}}\n  expect: deny\n'
        "  runtime: forge\n"
        '- agent: build\n  call: {tool: bash, args: {command: "rm -rf build"}}\n  expect: deny\n')
    code, out, _ = cli("check", "--expect", "expect.yaml", "--select", "FT2", "--format", "json")
    results = json.loads(out)["expectations"]["results"]
    assert [r["passed"] for r in results] == [False, True, True]
    assert ('opencode 1.18.33 runs this: its rule "rm *" does not match "/bin/rm -rf build"; '
            "forge-tools run would deny it") in results[0]["explanation"]
    assert code == 1
    code, out, _ = cli("check", "--expect", "expect.yaml", "--select", "FT2", "--runtime", "forge")
    assert code == 0, out


def test_ft116_reports_the_spellings_that_get_around_a_deny(project: Path, cli) -> None:
    (project / "opencode.json").write_text(json.dumps(RM_DENY))
    _code, out, _ = cli("check", "--select", "FT116", "--format", "json")
    findings = json.loads(out)["findings"]
    assert [f["code"] for f in findings] == ["FT116"]
    assert findings[0]["location"]["line"] == 1
    forms = {f["command"] for f in findings[0]["data"]["forms"]}
    assert {"/bin/rm x", "command rm x", "env rm x", "bash -c 'rm x'"} <= forms
    assert "rm x" not in forms and findings[0]["data"]["runtime"]["name"] == "opencode"


def test_ft116_finds_nothing_for_an_allow_list(project: Path, cli) -> None:
    (project / "opencode.json").write_text(json.dumps(ALLOW_LIST))
    _code, out, _ = cli("check", "--select", "FT116", "--format", "json")
    assert json.loads(out)["findings"] == []


def test_ft116_under_the_gate_keeps_what_the_gate_resolves(project: Path, cli) -> None:
    (project / "opencode.json").write_text(json.dumps(RM_DENY))
    _code, out, _ = cli("check", "--select", "FT116", "--format", "json", "--runtime", "forge")
    assert json.loads(out)["findings"] == []


def test_rule_ft116_is_documented_with_an_example(cli) -> None:
    code, out, _ = cli("rule", "FT116")
    assert code == 0 and '"rm *": "deny"' in out and "allow-list" in out.lower()


def _commands(seed: int, count: int) -> list[str]:
    """Commands of plain words (and some that are not): programs opencode path-checks, wrappers,
    names tree-sitter reads otherwise after `FOO=1`, and arguments that are numbers, options, paths,
    assignments or the spellings' own words."""
    import random

    rnd = random.Random(seed)
    programs = ["git", "rm", "cat", "chmod", "cd", "echo", "env", "sh", "xargs", "kill", "rm12", "tool.v2",
                "a-b", "_x", "bin", "time", "if", "export", "1", "x:y", "-", "%b", "QQ1QQ"]
    args = ["x", "sub12", "--flag", "-c", "-9", "12", "+x", "a=b", "0x1f", "/etc/x", "a/b", "dev", "null",
            "bin", "echo", "env", "rm", "git", "10", "2", "if", ":b", "x:", "@c", ".g", "..", "~/x", "a*",
            "$HOME", "{a}", "-", "--", "'q'", "/", "QQ0QQ"]
    chars = "abxz019_./::@%+=,--"
    found = []
    for _ in range(count):
        words = [rnd.choice(programs)]
        for _ in range(rnd.randint(1, 3)):
            words.append(rnd.choice(args) if rnd.random() < 0.6
                         else "".join(rnd.choices(chars, k=rnd.randint(1, 5))))
        found.append(" ".join(words))
    return found


def test_a_spelling_lowered_by_its_shape_is_lowered_as_written() -> None:
    from forge_tools.runtimes.opencode.shell import fill, shape_words, slot_values, slotted_lowering
    from forge_tools.tools.spellings import PIECES, spelling_templates

    shaped = 0
    for command in _commands(seed=31, count=600):
        words = shape_words(command)
        if words is None:
            continue
        shaped += 1
        templates, parts = spelling_templates(command)
        count = len(parts) - PIECES
        values = slot_values(words, parts[:count])
        for template in [" ".join(f"{{{i}}}" for i in range(count)), *templates]:  # itself, then each
            filled = slotted_lowering(template.format(*values, *parts[count:]))
            if filled is not None:
                line = template.format(*parts)
                assert fill(filled, parts[:count]) == lower(line), (command, line)
    assert shaped > 150  # most are shaped: the comparison is not empty
    assert shape_words("git push x") == ("git", "push", "x")
    assert shape_words("rm sub x") == ("", "sub", "x")  # rm: its name is read
    assert shape_words("rm -rf x") is None  # its path checks read `-`: no slot for it
    assert shape_words("chmod +x f") is None
    assert shape_words("kill -9 12") is None  # numbers are no words
    assert shape_words("git 12 x") is None


def test_ft116_names_the_agents_each_spelling_runs_under(project: Path, cli) -> None:
    from forge_tools.config.loader import LoadOptions, load_config

    # no catch-all bash rule: a spelling none of the rules match is decided by each agent's own rules
    # before them (the builtin agents differ there), and by each agent's own bash rules
    (project / "opencode.json").write_text(json.dumps({
        "permission": {"bash": {"rm *": "deny", "git push *": "ask", "kubectl delete *": "deny"},
                       "external_directory": {"/tmp/*": "allow"}},
        "agent": {"strict": {"permission": {"bash": {"*": "deny", "ls *": "allow"}}},
                  "loose": {"permission": {"bash": {"sh -c *": "allow", "nice *": "deny", "*": "allow"}}},
                  "nobash": {"tools": {"bash": False}}}}))
    _code, out, _ = cli("check", "--select", "FT116", "--format", "json")
    findings = json.loads(out)["findings"]
    assert {f["location"]["key_path"][-1] for f in findings} == {"rm *", "git push *", "kubectl delete *"}
    loaded = load_config(LoadOptions(cwd=project))
    runtime = get_runtime("opencode")
    agents = sorted({a for f in findings for a in f["data"]["agents"]} | {"strict", "nobash"})
    results = {a: forge_tools.resolve(loaded, a) for a in agents}
    for finding in findings:
        listed = {form["command"]: set(form["agents"]) for form in finding["data"]["forms"]}
        assert all(form["action"] == "allow" for form in finding["data"]["forms"])
        for command, names in listed.items():
            args = {"command": command}
            runs = {a for a, result in results.items() if (verdict := result.get("bash")) and verdict.visible
                    and runtime.decide(result, "bash", args, project, project).action == "allow"}
            assert names == runs, (finding["message"], command)
    assert not any("strict" in f["data"]["agents"] or "nobash" in f["data"]["agents"] for f in findings)


_PROGRAMS = ("rm", "git", "npm", "kubectl")
_SHAPE_RULES = ("{p} *", "{p} sub *", "{p}", "{p} sub x", "command *", "command {p} *", "env *",
                "/bin/*", "/bin/{p} *", "*", "*{p}*", "timeout *", "timeout 10 {p} *", "{p} -C *",
                "FOO=1 *", "sh -c *", "'{p}' *", "nice *", "echo *", "xargs {p}*", "2>*", "$(*", "c*",
                "{p} .. *", "{p} --flag1", "{p} x1*", "{p} sub --fl*", "{p}  *", "{p} -C . *")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(top=st.lists(st.tuples(st.sampled_from(_SHAPE_RULES), st.sampled_from(_PROGRAMS),
                              st.sampled_from(["allow", "ask", "deny"])), min_size=1, max_size=14),
       own=st.lists(st.tuples(st.sampled_from(_SHAPE_RULES), st.sampled_from(_PROGRAMS),
                              st.sampled_from(["allow", "ask", "deny"])), max_size=5))
def test_ft116_decides_a_shape_at_once_as_it_decides_each_spelling(
        project: Path, cli, monkeypatch: pytest.MonkeyPatch, top: list[tuple[str, str, str]],
        own: list[tuple[str, str, str]]) -> None:
    """FT116 decides the spellings of a family of commands at once (`_Decider.family`: what a slotted
    lowering's rules decide alike for any words once per shape, the rest finished per command); the
    report is the same, byte for byte, as when every spelling is decided as written, on generated
    rules (wrappers, paths, wildcard heads, an agent of its own)."""
    from forge_tools.check import deny_strength

    def rules(specs: list[tuple[str, str, str]]) -> dict[str, str]:
        return {shape.format(p=program): action for shape, program, action in specs}

    (project / "opencode.json").write_text(json.dumps({
        "permission": {"bash": rules(top)}, "agent": {"own": {"permission": {"bash": rules(own)}}}}))
    _code, at_once, _ = cli("check", "--select", "FT116", "--format", "json")
    with monkeypatch.context() as patch:
        patch.setattr(deny_strength._Decider, "at_once", False)
        _code, each, _ = cli("check", "--select", "FT116", "--format", "json")
    assert at_once == each
