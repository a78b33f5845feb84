"""The understood subset of the bash splitter (issue 9): what stays static, what is opaque, and how an
opaque pattern is decided. The effects of real attacks are in tests/security/test_bash_redteam.py."""

from __future__ import annotations

import pytest

from forge_tools.origin import Origin
from forge_tools.permission.calls import decide_pattern, decide_request
from forge_tools.rule import Rule
from forge_tools.tools.shell import split_command_line
from forge_tools.tools.shell_wrappers import parse

ORIGIN = Origin("file", path="forge.json", line=1, column=1)


def _rules(*pairs: tuple[str, str], permission: str = "bash") -> tuple[Rule, ...]:
    return tuple(Rule(permission, p, a, ORIGIN) for p, a in pairs)  # type: ignore[arg-type]


EVERYDAY = [
    "git status", "git log --oneline -5 | head -3", "npm test", "ls -la | grep x",
    "for f in *.py; do echo $f; done", "echo ${x:-default}", "cat <<EOF\nhi $USER\nEOF", "python script.py",
    "python3 -m pytest -q", "sed -n 1p file", "sed 's/error/warn/g' f", "sed -i 's/foo/bar/' x.txt",
    "awk '{print $1}' f", "awk '$2 > 100 {print}' f", "make build", "grep -rn foo src | wc -l",
    "if [ -f x ]; then cat x; fi", "while read l; do echo $l; done < f", "x=$(git rev-parse HEAD); echo $x",
    'echo "$(date)"', "timeout 10 npm test", "env FOO=1 npm test", "sudo -u bob ls", "xargs -n1 echo",
    "echo ${#arr[@]} ${file%.py} ${file##*/}", 'echo "${x/foo/bar}"', "[[ $x == foo* ]]",
    "[[ $x =~ ^[0-9]+$ ]]", "case $x in a) echo a;; esac", "f() { echo hi; }; f", "echo $HOME",
    "cat <<'E'\n$(x)\nE", "cat <<\"E\"\n`x`\nE", "nice -n 5 make", "env -i LANG=C ls",
]


@pytest.mark.parametrize("line", EVERYDAY)
def test_everyday_lines_are_understood(line: str) -> None:
    assert split_command_line(line).opaque == (), line


@pytest.mark.parametrize(("line", "inner"), [
    ("env - rm x", "rm x"), ("env -i -- A=1 rm x", "rm x"), ("env -S'rm x'", "rm x"),
    ("env --split='rm x'", "rm x"), ("su -c'rm x'", "rm x"), ("script -qc'rm x' /dev/null", "rm x"),
    ("runuser -u bob -- rm x", "rm x"), ("unshare -r --setuid 0 rm x", "rm x"), ("nice -5 rm x", "rm x"),
    ("timeout --signal=KILL 5 rm x", "rm x"), ("eval -- 'rm x'", "rm x"), ("command -- eval 'rm x'", "rm x"),
    ("echo `echo \\`rm x\\``", "rm x"), ("xargs -r -n1 rm x", "rm x"), ("flock f -c 'rm x'", "rm x"),
])
def test_wrappers_are_read_with_their_option_grammar(line: str, inner: str) -> None:
    assert inner in split_command_line(line).commands, split_command_line(line)


@pytest.mark.parametrize("line", [
    "env --frobnicate rm x", "sudo --weird rm x", "nice -q rm x", "env -S 'rm $X'", "unshare -r",
    "su bob", "script out.txt", "strace rm x", "parallel rm ::: x", "timeout $T rm x",
])
def test_a_wrapper_outside_its_grammar_is_opaque(line: str) -> None:
    assert split_command_line(line).opaque, line


def test_the_grammar_finds_where_the_command_starts() -> None:
    parsed = parse("sudo", ["sudo", "-iu", "root", "--preserve-env=A", "rm", "x"])
    assert parsed is not None and parsed.start == 4 and parsed.options["u"] == ["root"]
    env = parse("env", ["env", "--unset", "A", "-C/tmp", "B=1", "ls"])
    assert env is not None and env.start == 5 and env.options["C"] == ["/tmp"]
    assert parse("env", ["env", "--un=A", "ls"]) is not None  # a unique prefix of --unset
    assert parse("timeout", ["timeout", "-k", "1", "5", "ls"]).start == 4  # type: ignore[union-attr]
    assert parse("env", ["env", None, "ls"]) is None


@pytest.mark.parametrize("line", [
    "echo \"${x-'$(rm v)'}\"", "echo ${@:x}", "$'rm\\0x' v", "echo $'\\u00e9'", "[[ x =~ `rm v` ]]",
    "read PS4", "BASH_CMDS[ls]=/bin/rm", "cat <<E''OF\nEOF\nrm v\nE''OF", "cat <<$'EOF'\nx\n$'EOF'",
    "compgen -W '$(x)' y", "fc -s", "history -s x", "python3 -c 'x'", "perl -e 1", "find . -delete",
    "git -c alias.x=!x x", "awk 'BEGIN{system(\"x\")}'", "sed '1e x' f", "$\"rm\" x", "env PATH=. ls",
])
def test_outside_the_subset_is_opaque(line: str) -> None:
    assert split_command_line(line).opaque, line


def test_an_opaque_pattern_is_denied_under_a_catch_all_deny_and_asked_otherwise() -> None:
    allow_list = _rules(("*", "deny"), ("echo *", "allow"))
    assert decide_pattern("bash", "echo ${@:x}", allow_list, opaque=True).action == "deny"
    assert decide_pattern("bash", "echo ${@:x}", allow_list).action == "allow"
    narrow = _rules(("*", "allow"), ("rm *", "deny"))
    assert decide_pattern("bash", "echo ${@:x}", narrow, opaque=True).action == "ask"
    assert decide_pattern("bash", "echo ${@:x}", _rules(("*", "allow")), opaque=True).action == "allow"


def test_a_write_to_the_agent_config_is_always_asked() -> None:
    rules = _rules(("*", "allow"), permission="edit")
    decided = decide_request("edit", ["opencode.json", "x"], {"ask": ["opencode.json"]}, rules)
    assert [d.action for d in decided] == ["ask", "allow"]
    assert decided[0].note is not None and "agent config" in decided[0].note
    denied = decide_request("edit", ["opencode.json"], {"ask": ["opencode.json"]},
                            _rules(("*", "deny"), permission="edit"))
    assert denied[0].action == "deny"  # a deny stays a deny


def test_a_nul_in_the_command_is_bad_input() -> None:
    from pydantic import ValidationError

    from forge_tools.tools.builtins.bash import BashArgs

    with pytest.raises(ValidationError, match="NUL"):
        BashArgs(command="echo a\x00b")


def test_explain_says_why_an_agent_config_write_is_asked(cli, project) -> None:  # type: ignore[no-untyped-def]
    import json

    (project / "opencode.json").write_text(json.dumps({"permission": {"bash": "allow", "edit": "allow"}}))
    code, out, err = cli("explain", "bash", "--call", json.dumps({"command": "echo x > opencode.json"}))
    assert code == 0, err
    # opencode itself runs it (its `bash: allow` matches); forge-tools' gate asks, and says why
    assert "Call decision: ALLOW" in out and "opencode 1.18.33's answer" in out
    assert "forge-tools run would ask first" in out and "the project's agent config" in out
    assert "forge-tools gate: ASK" in out
    assert "known only when it runs" not in out
