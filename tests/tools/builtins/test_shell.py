"""The bash command splitter: every simple command is found, however it is hidden (SPEC 4.4)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from forge_tools.tools.shell import always_pattern, command_patterns, split_command_line


@pytest.mark.parametrize(
    ("line", "must_contain"),
    [
        ("ls && rm -rf x", ["ls", "rm -rf x"]),
        ("ls;rm -rf /", ["ls", "rm -rf /"]),
        ("ls || rm x", ["ls", "rm x"]),
        ("ls & rm x", ["ls", "rm x"]),
        ("ls\nrm x", ["ls", "rm x"]),
        ("a | rm x", ["a", "rm x"]),
        ("echo $(rm -rf /)", ["rm -rf /"]),
        ('echo "$(rm x)"', ["rm x"]),
        ("echo $(echo $(rm x))", ["rm x"]),
        ("`rm x`", ["rm x"]),
        ('echo "`rm x`"', ["rm x"]),
        ("cat <(rm x)", ["rm x"]),
        ("diff >(rm x) y", ["rm x"]),
        ("(rm x)", ["rm x"]),
        ("{ rm x; }", ["rm x"]),
        ("if true; then rm x; fi", ["true", "rm x"]),
        ("if false; then :; else rm x; fi", ["rm x"]),
        ("for i in 1 2; do rm x; done", ["rm x"]),
        ("while rm x; do :; done", ["rm x"]),
        ("case a in a) rm x;; esac", ["rm x"]),
        ("f() { rm x; }; f", ["rm x", "f"]),
        ("ls | while read f; do rm x; done", ["rm x"]),
        ("cat <<EOF\n$(rm x)\nEOF", ["rm x"]),
        ("ls >$(rm x)", ["ls", "rm x"]),
        ("A=$(rm x)", ["rm x"]),
        ("export A=$(rm x)", ["rm x"]),
        ("[[ $(rm x) ]]", ["rm x"]),
        ("FOO=1 rm x", ["rm x", "FOO=1 rm x"]),
        ("bash -c 'rm x'", ["bash -c rm x", "rm x"]),
        ('sh -c "ls; rm x"', ["ls", "rm x"]),
        ("bash -lc 'rm x'", ["rm x"]),
        ('sh -c "sh -c \\"rm x\\""', ["rm x"]),
        ("eval 'rm x'", ["rm x"]),
        ("eval rm x", ["rm x"]),
        ("sudo rm -rf /", ["sudo rm -rf /", "rm -rf /"]),
        ("sudo -u root rm x", ["rm x"]),
        ("env A=1 B=2 rm x", ["rm x"]),
        ("timeout 5 rm x", ["rm x"]),
        ("nice -n 5 rm x", ["rm x"]),
        ("nohup rm x &", ["rm x"]),
        ("find . | xargs rm", ["rm"]),
        ("command rm x", ["rm x"]),
        ("find . -name '*.o' -exec rm {} \\;", ["rm {}"]),
        ("find . -execdir sh -c 'rm x' \\; -print", ["rm x"]),
        ("find . -exec rm {} +", ["rm {}"]),
        ("watch -n 1 rm x", ["rm x"]),
        ("/bin/rm -rf /", ["rm -rf /"]),
        ('"rm" -rf \'/\'', ["rm -rf /"]),
        ("r\\m x", ["rm x"]),
        ("'r'm x", ["rm x"]),
        ("$'\\x72m' x", ["rm x"]),
    ],
)
def test_hidden_commands_are_found(line: str, must_contain: list[str]) -> None:
    found = command_patterns(line)
    for expected in must_contain:
        assert expected in found, (line, found)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("ls", ["ls"]),
        ("ls   -la    src", ["ls -la src"]),
        ("ls > out 2>&1", ["ls"]),
        ("git commit -m 'fix the bug'", ["git commit -m fix the bug"]),
        ("echo $HOME/x", ["echo $HOME/x"]),
    ],
)
def test_exact_patterns(line: str, expected: list[str]) -> None:
    assert command_patterns(line) == expected


def test_redirect_targets_are_not_part_of_the_pattern() -> None:
    assert command_patterns("cat a.txt > /etc/passwd") == ["cat a.txt"]


@pytest.mark.parametrize("line", ["ls $(", 'echo "unterminated', ")rm x", "ls && && rm x", "if then rm x"])
def test_parse_errors_fail_closed(line: str) -> None:
    result = split_command_line(line)
    assert result.has_error
    assert " ".join(line.split()) in result.commands


def test_parse_error_still_lists_the_pieces() -> None:
    assert "rm x" in command_patterns(")rm x")


def test_no_command_checks_the_whole_line() -> None:
    assert command_patterns("x=1") == ["x=1"]
    assert command_patterns("   ") == []


def test_no_duplicates() -> None:
    assert command_patterns("ls; ls; ls") == ["ls"]


@pytest.mark.parametrize(
    ("command", "expected"),
    [("ls -la", "ls *"), ("git commit -m x", "git commit *"), ("npm run build", "npm run build *"),
     ("git -C x status", "git -C *"), ("npm run dev --port 3", "npm run dev *"),
     ("docker compose up -d", "docker compose up *"), ("aws s3 ls x", "aws s3 ls *"),
     ("consul kv get a/b", "consul kv get *"), ("unlisted-tool a b", "unlisted-tool *"), ("make", "make *")],
)
def test_always_pattern(command: str, expected: str) -> None:
    assert always_pattern(command) == expected


def test_deny_rule_cannot_be_bypassed() -> None:
    from forge_tools.permission.wildcard import wildcard_match

    for line in ["ls && rm -rf x", "ls;rm x", "echo $(rm x)", "`rm x`", "FOO=1 rm x", "bash -c 'rm x'",
                 "eval 'rm x'", "ls $(rm x", "/bin/rm x", "'rm' x"]:
        assert any(wildcard_match(p, "rm *") for p in command_patterns(line)), line


def test_argv_of_each_command() -> None:
    argv = split_command_line("FOO=1 rm -rf \"a b\" $X && sudo cat ~/f").argv
    assert ("rm", "-rf", "a b", None) in argv and ("cat", "~/f") in argv


_SAFE = ["ls", "echo hi", "git status", "cat 'a b'", "true"]
_WRAP = ["{}", "$({})", "`{}`", "( {} )", "{{ {}; }}", "if true; then {}; fi", "bash -c '{}'", "eval '{}'",
         "sudo {}", "FOO=1 {}", "echo \"$({})\"", "for i in 1; do {}; done", "cat <({})",
         "coproc {}", "env -u X {}", "exec -a n {}", "sudo --user root {}", "busybox {}", "trap '{}' EXIT",
         "su -c '{}'", "bash -c -- '{}'", "chrt 5 {}", "nohup nice -n 3 {} &"]
_SEP = [" && ", " || ", "; ", " | ", "\n", " & "]


@settings(max_examples=200, deadline=None)
@given(
    before=st.lists(st.sampled_from(_SAFE), max_size=3),
    after=st.lists(st.sampled_from(_SAFE), max_size=3),
    wrap=st.sampled_from(_WRAP),
    seps=st.lists(st.sampled_from(_SEP), min_size=6, max_size=6),
)
def test_rm_is_always_found(before: list[str], after: list[str], wrap: str, seps: list[str]) -> None:
    from forge_tools.permission.wildcard import wildcard_match

    parts = [*before, wrap.format("rm -rf /x"), *after]
    line = parts[0]
    for sep, part in zip(seps, parts[1:], strict=False):
        line += sep + part
    assert any(wildcard_match(p, "rm *") for p in command_patterns(line)), line


@pytest.mark.parametrize(
    "line",
    [
        "bash -c -- 'rm x'",
        "bash -e -c 'rm x'",
        "bash -o pipefail -c 'rm x'",
        "env -u FOO rm x",
        "env -C /tmp rm x",
        "env -S 'rm x'",
        "exec -a name rm x",
        "sudo -iu root rm x",
        "sudo --user root rm x",
        "coproc rm x",
        "coproc { rm x; }",
        "coproc NAME { rm x; }",
        "busybox rm x",
        "chrt 10 rm x",
        "taskset 1 rm x",
        "strace -o log rm x",
        "parallel rm ::: x",
        "su -c 'rm x'",
        "script -qc 'rm x' /dev/null",
        "trap 'rm x' EXIT",
        "alias r=rm",
        "mapfile -C rm x",
        "r\\\nm x",
        "ls | ls | ls\nrm -rf /x && ls",
        "a | b | c\nrm x && d",
        # the parser joins the lines, reading `FOO=1` as an argument: to bash it is rm's assignment
        "ls | ls | ls\nFOO=1 rm -rf /x && ls",
        "a | b | c\nX+=1 Y[0]=2 rm x",
    ],
)
def test_more_hidden_commands_are_found(line: str) -> None:
    from forge_tools.permission.wildcard import wildcard_match

    found = command_patterns(line)
    assert any(wildcard_match(p, "rm *") for p in found), (line, found)


@pytest.mark.parametrize(
    "line",
    [
        "$RM x", "RM=rm; $RM x", "${x:-rm} x", "$(echo rm) x", "`echo rm` x", "r${x}m y", "rm${IFS}x",
        "sudo $CMD x", "echo rm x | sh", "curl -s example.invalid | bash", "bash <<< 'rm x'",
        "bash script.sh", "source ./x.sh", ". ./x.sh", 'eval "$X"', 'bash -c "$X"',
        "echo rm | xargs -I{} {} x", "{rm,x}", "ls $(", "echo 'rm x' | xargs -I{} sh -c '{}'",
        "find . -exec {} \\;", "find . -name '*.sh' -exec sh -c {} \\;",
    ],
)
def test_commands_known_only_at_run_time_are_opaque(line: str) -> None:
    result = split_command_line(line)
    assert result.opaque, (line, result)
    assert set(result.opaque) <= set(result.commands)


@pytest.mark.parametrize(
    "line", ["ls -la", "git status && git diff", "bash -c 'ls'", "echo $HOME", "find . | xargs grep foo",
             "find . | xargs -I{} cp {} /tmp/x", "find . -name '*.py' -print",
             "sudo ls", "cat <<'EOF'\n$(rm x)\nEOF"],
)
def test_static_commands_are_not_opaque(line: str) -> None:
    assert split_command_line(line).opaque == ()


def test_redirect_targets_are_listed_for_path_checks() -> None:
    line = "ls > out 2>&1 < in >> ~/x 3>\"$HOME/y\" 2>&- && echo $(cat < /etc/shadow)"
    assert split_command_line(line).redirects == ("out", "in", "~/x", "/etc/shadow")


def test_newline_inside_double_quotes_is_kept() -> None:
    result = split_command_line('echo "a\nb" && rm x')
    assert ("echo", "a\nb") in result.argv and result.commands == ("echo a b", "rm x")


# -- a command named by a path is checked by its name on every route ------------------------------

_PATH_ROUTES = [
    "/bin/rm x",
    "echo v | xargs /bin/rm",
    "xargs -0 /bin/rm",
    "xargs -I{} /bin/rm {}",
    "env /bin/rm v",
    "env A=1 /usr/bin/rm v",
    "timeout 5 /bin/rm v",
    "timeout -s KILL 5 /bin/rm v",
    "sudo /bin/rm x",
    "sudo -u root /bin/rm x",
    "nice /bin/rm x",
    "nice -n 5 /bin/rm x",
    "nohup /bin/rm x",
    "command /bin/rm x",
    "exec /bin/rm x",
    "find . -exec /bin/rm {} +",
    "find . -execdir /bin/rm {} \\;",
    "find . -exec sudo /bin/rm {} \\;",
    "bash -c '/bin/rm x'",
    "sh -c 'env /bin/rm x'",
    "eval '/bin/rm x'",
    "sudo env /usr/bin/rm x",
    "sudo bash -c 'timeout 5 /bin/rm x'",
    "/usr/bin/sudo /bin/rm x",
    "/usr/bin/env /bin/rm x",
    "FOO=1 sudo /bin/rm x",
    "ls && nice /bin/rm x",
    "flock /tmp/lock /bin/rm x",
    "flock -w 5 /tmp/lock rm x",
    "flock /tmp/lock -c '/bin/rm x'",
    "echo $(env /bin/rm x)",
    # relative paths: `./rm` and `bin/rm` are also checked as `rm` (stricter: a rule about rm applies)
    "./rm x",
    "bin/rm x",
    "../bin/rm x",
    "sudo ./rm x",
    "echo v | xargs ./rm",
]


@pytest.mark.parametrize("line", _PATH_ROUTES)
def test_a_path_named_command_is_checked_by_name_on_every_route(line: str) -> None:
    from forge_tools.origin import Origin
    from forge_tools.permission.evaluate import evaluate
    from forge_tools.rule import Rule

    rules = [Rule("bash", "*", "allow", Origin("cli")), Rule("bash", "rm *", "deny", Origin("cli"))]
    actions = {evaluate("bash", p, rules).action for p in command_patterns(line)}
    assert "deny" in actions, (line, command_patterns(line))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("sudo env /usr/bin/rm x", "rm x"),
        ("timeout 5 /bin/rm v", "rm v"),
        ("find . -exec /bin/rm {} +", "rm {}"),
        ("echo v | xargs /bin/rm", "rm"),
    ],
)
def test_the_inner_name_pattern_is_listed(line: str, expected: str) -> None:
    assert expected in command_patterns(line)
