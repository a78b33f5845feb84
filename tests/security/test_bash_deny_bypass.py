"""Red-team cases: a `bash` deny must hold however the denied command is spelled (SPEC 4.1, 4.4).

Each line below really runs `rm victim` under bash. With `* allow` and `rm *` deny, no line may come out
as allowed: it must be denied, or at least asked (an opaque command whose name is known only at run time).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_tools.origin import Origin
from forge_tools.permission.calls import decide_pattern
from forge_tools.rule import Rule
from forge_tools.tools.shell import split_command_line

ORIGIN = Origin("file", path="forge.json", line=1, column=1)
RULES = tuple(Rule("bash", pattern, action, ORIGIN)  # type: ignore[arg-type]
              for pattern, action in (("*", "allow"), ("rm *", "deny"), ("rm", "deny")))

BYPASSES = [
    # a glob or brace expansion in the command word picks the program at run time
    "/bin/r[m] victim",
    "/bin/[r]m victim",
    "/usr/bin/r[m] victim",
    "r{m,} victim",
    "/bin/r{m,} victim",
    "/bin/r? victim",
    "/bin/rm* victim",
    "env /bin/r[m] victim",
    "command /bin/r[m] victim",
    "find . -name victim -exec /bin/r[m] {} +",
    "bash -c '/bin/r[m] victim'",
    "eval '/bin/r[m] victim'",
    # nesting deeper than the splitter follows must not end in an unchecked allow
    "nice " * 10 + "rm victim",
    "command " * 10 + "rm victim",
    "eval " * 10 + "rm victim",
    "env " * 11 + "rm victim",
    "nohup " * 11 + "/bin/rm victim",
]


def _worst(line: str) -> str:
    split = split_command_line(line)
    actions = {decide_pattern("bash", p, RULES, p in split.opaque).action for p in split.commands}
    return "deny" if "deny" in actions else "ask" if "ask" in actions else "allow"


@pytest.mark.parametrize("line", BYPASSES)
def test_a_denied_command_is_never_allowed(line: str) -> None:
    assert _worst(line) != "allow", split_command_line(line)


@pytest.mark.parametrize("line", ["ls *.py", "[ -f x ] && echo y", "echo {a,b}", "git log -- '*.md'",
                                  "test -d x || mkdir x", "echo a?b [x]"])
def test_globs_in_arguments_stay_static(line: str) -> None:
    assert split_command_line(line).opaque == (), line


def test_run_does_not_delete_through_a_glob_named_command(cli, project: Path) -> None:
    rules = {"bash": {"*": "allow", "rm *": "deny"}}
    (project / "opencode.json").write_text(json.dumps({"permission": rules}))
    victim = project / "victim"
    victim.write_text("x")
    code, out, err = cli("run", "bash", "--args", json.dumps({"command": "/bin/r[m] victim"}))
    assert victim.exists(), (code, out, err)
    assert code == 4


# Values bash evaluates as code: an array subscript in a variable's value runs command substitutions
# when the variable is used in arithmetic (or `${x@P}`, `${!x}`, ...). The value can be built at run
# time, so the evaluation site itself must not be allowed by a narrow allow rule, and under `* allow`
# with a deny it must be asked.
EVALUATED = [
    "x='a[$(rm victim)]'; echo $((x))",
    "echo $(( 'a[$(rm victim)]' ))",
    "x='$(rm victim)'; echo ${x@P}",
    "y='f[$(rm victim)]'; echo ${!y}",
    "x='a[$(rm victim)]'; echo ${arr[x]}",
    "printf -v 'd[$(rm victim)]' x",
    "read 'b[$(rm victim)]' <<< 1",
    "declare -n r='e[$(rm victim)]'; echo $r",
    "declare -i n; n='a[$(rm victim)]'",
    "env 'BASH_FUNC_ls%%=() { rm victim; }' bash -c ls",
    "echo 'rm victim' > .e; BASH_ENV=.e bash -c true",
    "x='a[$(rm victim)]'; for ((i=0;i<x;i++)); do :; done",
    "x='a[$(rm victim)]'; ((x))",
    "x='a[$(rm victim)]'; let y=x",
    "x='a[$(rm victim)]'; [[ $x -eq 0 ]]",
]
CONTAINED = tuple(Rule("bash", pattern, action, ORIGIN)  # type: ignore[arg-type]
                  for pattern, action in (("*", "deny"), ("echo *", "allow"), ("printf *", "allow"),
                                          ("read *", "allow"), ("declare *", "allow"), ("env *", "allow"),
                                          ("bash *", "allow"), ("true", "allow"), (":", "allow")))


@pytest.mark.parametrize("line", EVALUATED)
def test_code_evaluated_from_a_value_is_never_allowed(line: str) -> None:
    assert _worst(line) != "allow", split_command_line(line)
    split = split_command_line(line)
    contained = {decide_pattern("bash", p, CONTAINED, p in split.opaque).action for p in split.commands}
    assert contained - {"allow"}, (line, split)


@pytest.mark.parametrize("line", ["echo $((1 + 2))", "[[ $# -eq 0 ]]", "echo ${a[0]} ${a[@]} ${s:1:2}",
                                  "echo ${!a[@]}", "a[1]=2", "test -v x", "[[ ${#x} -gt 2 ]]"])
def test_plain_arithmetic_and_expansions_stay_static(line: str) -> None:
    assert split_command_line(line).opaque == (), line


# Substitutions tree-sitter-bash leaves as plain text; bash runs them.
UNPARSED = [
    'echo "${x:-`rm victim`}"',
    "echo ${x:-`rm victim`}",
    "cat <<EOF\n`rm victim`\nEOF",
    "cat <<-EOF\n\t$(rm victim)\n\tEOF",
    "cat <<EOF\n  $((rm victim) )\nEOF",
]


@pytest.mark.parametrize("line", UNPARSED)
def test_substitutions_the_parser_misses_are_still_checked(line: str) -> None:
    assert _worst(line) == "deny", split_command_line(line)


@pytest.mark.parametrize("line", ["cat <<'EOF'\n`rm x`\nEOF", "cat <<\\EOF\n$(rm x)\nEOF",
                                  "cat <<EOF\n\\`rm x\\` \\$(rm x)\nEOF"])
def test_quoted_heredocs_and_escaped_substitutions_are_text(line: str) -> None:
    assert "rm x" not in split_command_line(line).commands


@pytest.mark.parametrize("line", ["hash -p /bin/rm foo; foo victim", "hash -rp /usr/bin/rm ls; ls victim"])
def test_hash_binding_a_denied_program_is_denied(line: str) -> None:
    assert _worst(line) == "deny", split_command_line(line)


def test_hash_with_a_dynamic_path_is_opaque() -> None:
    assert _worst('hash -p "$P" foo; foo victim') == "ask"


def test_nested_expansions_are_split_once() -> None:
    # Re-scanning each nested `${x:-$(...)}` level from every outer one took exponential time.
    line = "echo " + "${x:-$(echo " * 30 + "rm victim" + ")}" * 30
    assert "echo rm victim" in split_command_line(line).commands


# Options before a subcommand (`git -C . push`): a prefix deny (`git push *`) names the words after the
# program, and the options between them are the program's own to read. Under an allow of `git *` such
# a line is asked, never allowed; an allow-list keeps working for everything no narrower rule names.
GIT_RULES = {"bash": {"*": "deny", "git *": "allow", "git push *": "deny"}}
OPTION_SPELLINGS = [
    "git -C . push origin main",
    "git --git-dir=.git push origin main",
    "git -C . --no-pager push origin main",
    "git --no-pager -C . push origin main",
    "git -p -C . push origin main",
    "sudo git -C . push origin main",
    "/usr/bin/git -C . push origin main",
    "git status && git -C . push origin main",
]


def _git_repo_with_remote(project: Path) -> Path:
    """`project` as a git repository with one commit and a bare `origin` beside it: a push is seen in
    the remote's refs."""
    import subprocess

    remote = project.parent / "origin.git"
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "PATH": "/usr/bin:/bin", "HOME": str(project.parent)}
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, env=env)
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "one"],
                 ["remote", "add", "origin", str(remote)]):
        subprocess.run(["git", *args], cwd=project, check=True, env=env)
    return remote


def _pushed(remote: Path) -> bool:
    return (remote / "refs" / "heads" / "main").exists()


@pytest.mark.parametrize("rules", [GIT_RULES, {"bash": {"*": "allow", "git push *": "deny"}}],
                         ids=["allow-list", "open"])
@pytest.mark.parametrize("line", OPTION_SPELLINGS)
def test_options_before_the_subcommand_are_never_allowed(cli, project: Path, rules: dict, line: str) -> None:
    (project / "forge.json").write_text(json.dumps({"permission": rules}))
    code, out, err = cli("explain", "bash", "--call", json.dumps({"command": line}), "--format", "json")
    assert code in (0, 1), (code, err)
    call = json.loads(out)["call"]
    assert call["action"] in ("ask", "deny"), (line, call)
    if call["action"] == "ask":  # asked because of a reading, and the note says which
        worst = next(c for c in call["checks"] if c["action"] == "ask")
        assert worst["escalation"] == "options" and worst["escalated_by"]["pattern"] == "git push *", worst
        assert "git push origin main" in worst["note"]


def test_run_does_not_push_through_options_before_the_subcommand(cli, project: Path) -> None:
    remote = _git_repo_with_remote(project)
    (project / "forge.json").write_text(json.dumps({"permission": GIT_RULES}))
    code, out, err = cli("run", "bash", "--args", json.dumps({"command": "git -C . push -q origin main"}))
    assert code == 4 and not _pushed(remote), (code, out, err)
    code, out, err = cli("run", "bash", "--args", json.dumps({"command": "git -C . log --oneline"}))
    assert code == 0 and "one" in out, (code, out, err)  # a subcommand no narrower rule names still runs


@pytest.mark.parametrize(("line", "action"), [
    ("git -C . status", "allow"),  # no reading meets a narrower rule
    ("git -C . log --grep push", "allow"),  # `push` is not the subcommand in any reading
    ("git push origin main", "deny"),
    ("ls -la src", "deny"),  # the catch-all deny decides, with or without readings
])
def test_readings_only_ask_what_a_narrower_rule_names(cli, project: Path, line: str, action: str) -> None:
    (project / "forge.json").write_text(json.dumps({"permission": GIT_RULES}))
    code, out, err = cli("explain", "bash", "--call", json.dumps({"command": line}), "--format", "json")
    assert code in (0, 1), (code, err)
    assert json.loads(out)["call"]["gate"]["action"] == action, (line, out)


def test_an_allow_written_after_the_deny_stands(cli, project: Path) -> None:
    """Last match: `git -C *` allow after the `git push *` deny allows every `git -C` line, push too
    (the person wrote so); the reading only asks for a deny or ask written after the allow."""
    rules = {"bash": {"*": "deny", "git push *": "deny", "git -C *": "allow"}}
    (project / "forge.json").write_text(json.dumps({"permission": rules}))
    code, out, err = cli("explain", "bash", "--call", json.dumps({"command": "git -C . push x"}),
                         "--format", "json")
    assert code in (0, 1), (code, err)
    assert json.loads(out)["call"]["gate"]["action"] == "allow", out
