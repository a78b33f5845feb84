"""Red team for the `bash` permission (issue 9): differential against a real bash, effects observed.

Every case is a command line that really changes a protected file (or creates one outside the
project) when bash runs it: the test first runs it with plain `bash -c` in a scratch copy and checks
the effect happened (a case with no effect on this machine, say a missing program, is skipped, so the
suite never counts a harmless line as a closed hole). Then the same line goes through `forge-tools run
bash` in a project with the policy of its family, non-interactively (asks are rejected): the file must
survive and the run must be refused. Last, `explain --call` must give the answer the run acted on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

CLI = Callable[..., tuple[int, str, str]]
ORIGINAL = "original\n"


@dataclass(frozen=True)
class Family:
    policy: dict[str, object]
    cases: tuple[str, ...]
    targets: tuple[str, ...] = ("victim",)  # protected files, relative to the project ("~/": to home)
    exact: str | None = None  # the decision explain must give, when the family fixes it


RM_DENY = {"bash": {"*": "allow", "rm *": "deny"}}
ALLOW_LIST = {"bash": {"*": "deny", "echo *": "allow", "ls *": "allow", "cat *": "allow", ":": "allow",
                       "true": "allow", "x=*": "allow"}}

# Each string deletes ./victim under real bash.
HIDDEN_RM = {
    "nested backquotes": (
        "echo `echo \\`rm victim\\``",
        "x=`echo \\`rm victim\\``",
        'echo "`echo \\`rm victim\\``"',
        "echo `echo \\`echo \\\\\\`rm victim\\\\\\`\\``",
        "ls `echo \\`rm victim\\`` 2>/dev/null",
        "cat `true \\`rm victim\\``",
    ),
    "regexes and patterns in [[ ]]": (
        "[[ x =~ `rm victim` ]]",
        "[[ x =~ ^(a|$(rm victim))$ ]]",
        "[[ x =~ x`rm victim` ]]",
        "[[ x == @($(rm victim)) ]]",
        "[[ x == *`rm victim`* ]]",
        "[[ x =~ $(rm victim) ]] || echo",
    ),
    "quotes inside ${x-'..'}": (
        "echo \"${x-'$(rm victim)'}\"",
        "echo \"${x:-'$(rm victim)'}\"",
        "x=1; echo \"${x+'$(rm victim)'}\"",
        "x=1; echo \"${x:+'`rm victim`'}\"",
        "echo \"${x='$(rm victim)'}\"",
        "echo \"${x:-\"$(rm victim)\"}\"",
        "echo ${x:-`rm victim`}",
    ),
    "here-doc delimiters": (
        "cat <<E''OF\nEOF\nrm victim\nE''OF",
        'cat <<E"O"F\nEOF\nrm victim\nE"O"F',
        "cat <<$'EOF'\nEOF\nrm victim\n$'EOF'",
        "cat <<'E'OF\nEOF\nrm victim\n'E'OF",
        "cat <<E\\OF\nEOF\nrm victim\nE\\OF",
        "cat <<EOF\nEOF \n`rm victim`\nEOF",
        "cat <<-E''OF\n\tEOF\nrm victim\n\tE''OF",
        "echo $(cat <<E''OF\nEOF\nrm victim\nE''OF\n)",
    ),
    "eval and string-running builtins": (
        "eval -- 'rm victim'",
        "command eval 'rm victim'",
        "builtin eval 'rm victim'",
        "command -- eval 'rm victim'",
        "mapfile -c1 -C 'rm victim #' a <<< x",
        "readarray -c1 -C'rm victim #' a <<< x",
        "compgen -W '$(rm victim)' x",
        "compgen -C 'rm victim' x",
        "trap -- 'rm victim' EXIT",
        "x='rm victim'; eval -- \"$x\"",
    ),
    "BASH_ALIASES, BASH_CMDS and hash": (
        "shopt -s expand_aliases; BASH_ALIASES[zz]='rm victim'\nzz",
        "shopt -s expand_aliases; declare BASH_ALIASES[zz]='rm victim'\nzz",
        "BASH_CMDS[ls]=/bin/rm; ls victim",
        "BASH_CMDS+=([ls]=/bin/rm); ls victim",
        "declare -A BASH_CMDS=([cat]=/bin/rm); cat victim",
        "read 'BASH_CMDS[ls]' <<< /bin/rm; ls victim",
        "printf -v 'BASH_CMDS[ls]' /bin/rm; ls victim",
        "hash -p/bin/rm ls; ls victim",
        "hash -p /bin/rm ls; ls victim",
        "hash -tp /bin/rm ls 2>/dev/null; hash -p /bin/rm ls; ls victim",
    ),
    "wrapper option grammars": (
        "env - rm victim",
        "env -i rm victim",
        "env -- rm victim",
        "env -i FOO=1 rm victim",
        "env -u HOME -- rm victim",
        "env -S'rm victim'",
        "env -S 'rm victim'",
        "env --split-string='rm victim'",
        "env --split='rm victim'",
        "env -iS 'rm victim'",
        "env -vS'rm victim'",
        "script -qc'rm victim' /dev/null",
        "script -q -c 'rm victim' /dev/null",
        "script --command='rm victim' -q /dev/null",
        "su -c'rm victim'",
        "su root -c 'rm victim'",
        "su -s /bin/bash -c 'rm victim'",
        "runuser -u root -- rm victim",
        "runuser -u root rm victim",
        "unshare -r rm victim",
        "unshare --map-root-user rm victim",
        "unshare -r --setuid 0 rm victim",
        "timeout -s KILL 5 rm victim",
        "timeout --signal=KILL 5 rm victim",
        "nice -5 rm victim",
        "nice -n 5 rm victim",
        "nice --adj=5 rm victim",
        "stdbuf -oL rm victim",
        "setsid -w rm victim",
        "flock lockf -c 'rm victim'",
        "flock -n lockf rm victim",
        "time -p rm victim",
        "command -p rm victim",
        "exec -a x rm victim",
        "echo victim | xargs -r rm",
        "echo victim | xargs -n1 -P1 rm",
        "taskset -c 0 rm victim",
        "ionice -c 3 rm victim",
        "env nice -n 1 timeout 9 rm victim",
    ),
    "bytes the word cannot hold": (
        "$'rm\\0x' victim",
        "$'rm\\x00x' victim",
        "$'rm\\u0000' victim",
        "$'r\\x6d' victim",
        "x=$'rm\\0junk'; $x victim",
        "$'\\162\\155' victim",
    ),
    "arithmetic and code variables": (
        "RANDOM='a[$(rm victim)]'",
        "set -- a; x='a[$(rm victim)]'; echo ${@:x}",
        "x='a[$(rm victim)]'; echo ${x:x}",
        "a=(); x='b[$(rm victim)]'; a[x]=1",
        "x='b[$(rm victim)]'; declare -a a; a[x]=1",
        "x='a[$(rm victim)]'; echo $((x))",
        "read PS4 <<< '$(rm victim)'; set -x; :",
        "mapfile PS4 <<< '$(rm victim)'; set -x; :",
        "printf -v PS4 '$(rm victim)'; set -x; :",
        "for PS4 in '$(rm victim)'; do set -x; :; done",
        "PS4='$(rm victim)'; set -x; :",
        "x='$(rm victim)'; cat <<EOF\n${x@P}\nEOF",
        "BASH_ENV=<(echo rm victim) bash -c :",
        "echo rm victim > .e; export BASH_ENV=.e; bash -c :",
    ),
    "interpreters with inline code": (
        "python3 -c 'import os; os.remove(\"victim\")'",
        "python3 - <<< 'import os;os.remove(\"victim\")'",
        "echo 'import os;os.remove(\"victim\")' | python3",
        "perl -e 'unlink \"victim\"'",
        "perl -we 'unlink \"victim\"'",
        "node -e 'require(\"fs\").unlinkSync(\"victim\")'",
        "awk 'BEGIN{system(\"rm victim\")}'",
        "awk 'BEGIN{print | \"rm victim\"}'",
        "sed 's/.*/rm victim/e' <<< x",
        "echo | sed '1e rm victim'",
        "find . -name victim -delete",
        "find . -name victim -exec rm {} +",
        "git -c alias.x='!rm victim' x",
        "X='!rm victim' git --config-env=alias.x=X x",
        "git -c 'alias.x=!rm victim' x",
        "echo rm victim | xargs -I{} sh -c {}",
        "echo victim | xargs $(echo rm)",
    ),
}

# Each string truncates ./victim; the family's policy denies edits of it (and allows everything else).
EDIT_DENY = {"bash": "allow", "edit": {"*": "allow", "victim": "deny"}}
REDIRECTS = (
    ": > victim",
    "echo x > victim",
    "echo x >> victim",
    "echo x >| victim",
    "echo x &> victim",
    "echo x &>> victim",
    "echo x 2> victim",
    "exec 3> victim",
    "echo x > ./victim",
    "mkdir -p sub && echo x > sub/../victim",
    "mkdir -p sub && cd sub && echo x > ../victim",
    'echo x > "vic"tim',
    "echo x > $'victim'",
    "echo x > vic*",
    "echo x > vict[i]m",
    "f=victim; echo x > $f",
    "echo x > $(echo victim)",
    "echo x > `echo victim`",
    "bash -c 'echo x > victim'",
    "eval 'echo x > victim'",
    "{ echo x; } > victim",
    "(echo x) > victim",
    "if true; then echo x; fi > victim",
    "echo x 1<>victim",
)
# Each string writes into the project's agent config; the policy allows every edit.
AGENT_CONFIG = {"bash": "allow", "edit": "allow"}
CONFIG_WRITES = (
    "echo '{}' > opencode.json",
    "echo '{}' >> opencode.json",
    "echo x > ./opencode.json",
    "cat opencode.json > forge.json",
    "echo x > sub/../opencode.json",
    "echo x > link",
    "cp link forge.json",
    "tee opencode.json < /dev/null",
    "echo x > .forge/agent.md",
    "echo x >> ./.forge/agent.md",
    "mkdir -p .opencode && echo x > .opencode/agent.md",
    "bash -c 'echo x > .forge/agent.md'",
    "cd .forge && echo x > agent.md",
    "cd sub && echo x > ../.forge/agent.md",
)
# Each string creates `owned` outside the project; external_directory is the default ask.
OUTSIDE = {"bash": "allow"}
OUTSIDE_WRITES = (
    "cd ~ && touch owned",
    "cd && touch owned",
    "cd $HOME && touch owned",
    'cd "$HOME" && touch owned',
    "cd ${HOME} && touch owned",
    "cd - >/dev/null && touch owned",
    "cd ~/ && touch owned",
    "(cd; touch owned)",
    "pushd ~ >/dev/null && touch owned",
    "cd .. && cd home && touch owned",
    "touch $HOME/owned",
    "touch ~/owned",
    'touch "$HOME"/owned',
    "touch ${HOME}/owned",
    "mkdir ~/owned",
    "echo x > ~/owned",
    "echo x > $HOME/owned",
    "echo x | tee $HOME/owned",
    "cp victim --target-directory=$HOME && mv ~/victim ~/owned",
    "cp victim --target-directory={home} && mv {home}/victim {home}/owned",
    "cp -t {home} victim && mv {home}/victim {home}/owned",
    "cp victim $(echo $HOME)/owned",
    "h=$HOME; touch $h/owned",
    "CDPATH={parent} cd home && touch owned",
    "x=~; touch $x/owned",
)


def _families() -> list[tuple[str, str, Family]]:
    cases: list[tuple[str, str, Family]] = []
    for name, lines in HIDDEN_RM.items():
        for line in lines:
            cases.append((name, line, Family(RM_DENY, lines)))
            cases.append((f"{name} (allow-list)", line, Family(ALLOW_LIST, lines, exact="deny")))
    cases += [("redirects as edit", line, Family(EDIT_DENY, REDIRECTS)) for line in REDIRECTS]
    config = ("opencode.json", "forge.json", ".forge/agent.md", ".opencode/agent.md")
    cases += [("agent config", line, Family(AGENT_CONFIG, CONFIG_WRITES, config, exact="ask"))
              for line in CONFIG_WRITES]
    cases += [("outside the project", line, Family(OUTSIDE, OUTSIDE_WRITES, targets=("~/owned",)))
              for line in OUTSIDE_WRITES]
    return cases


CASES = _families()


def _setup(root: Path, home: Path, policy: dict[str, object]) -> None:
    (root / "opencode.json").write_text(json.dumps({"permission": policy}))
    (root / "victim").write_text(ORIGINAL)
    (root / "sub").mkdir(exist_ok=True)
    (root / ".forge").mkdir(exist_ok=True)
    link = root / "link"
    if not link.is_symlink():
        link.symlink_to("opencode.json")
    for name in ("owned", "victim"):
        path = home / name
        if path.is_dir():
            shutil.rmtree(path)
        path.unlink(missing_ok=True)


def _snapshot(root: Path, home: Path, family: Family) -> list[str | None]:
    """The protected files' contents (None for one that does not exist)."""
    found: list[str | None] = []
    for name in family.targets:
        target = home / name[2:] if name.startswith("~/") else root / name
        found.append("(a directory)" if target.is_dir() else target.read_text() if target.is_file() else None)
    return found


def _line(template: str, project: Path, home: Path) -> str:
    return (template.replace("{project}", str(project)).replace("{home}", str(home))
            .replace("{parent}", str(home.parent)))


def _bash_changes_it(line: str, scratch: Path, home: Path, family: Family) -> bool:
    """Run `line` with plain bash in a fresh copy of the project: does the protected file change?"""
    _setup(scratch, home, family.policy)
    before = _snapshot(scratch, home, family)
    env = {**os.environ, "HOME": str(home), "OLDPWD": str(home)}
    env.pop("CDPATH", None)
    subprocess.run(["/bin/bash", "-c", line], cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20, check=False)
    return _snapshot(scratch, home, family) != before


def _explained(cli: CLI, line: str) -> str:
    code, out, err = cli("explain", "bash", "--call", json.dumps({"command": line}), "--format", "json")
    assert code == 0, err
    return str(json.loads(out)["call"]["gate"]["action"])


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("family_name", "template", "family"), CASES,
                         ids=[f"{name}: {line}" for name, line, _ in CASES])
def test_no_deny_is_passed(cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch, family_name: str, template: str,
                           family: Family) -> None:
    home = isolated_env["home"]
    monkeypatch.setenv("OLDPWD", str(home))
    monkeypatch.delenv("CDPATH", raising=False)
    line = _line(template, project, home)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if not _bash_changes_it(line, scratch, home, family):
        pytest.skip(f"bash itself does not change {', '.join(family.targets)} here: {line!r}")

    _setup(project, home, family.policy)
    before = _snapshot(project, home, family)
    code, out, err = cli("run", "bash", "--args", json.dumps({"command": line}))
    assert _snapshot(project, home, family) == before, (family_name, line, code, out, err)
    assert code == 4, (family_name, line, code, out, err)

    ran = "deny" if "permission denied" in err else "ask" if "not approved" in err or "rejected" in err \
        else "?"
    explained = _explained(cli, line)
    # run stops at the first request it refuses: an ask of one permission (external_directory) that
    # comes before a deny of another is where a non-interactive run ends, while explain reports the deny.
    assert explained == ran or (explained, ran) == ("deny", "ask"), (line, explained, err)
    if family.exact is not None:
        assert explained == family.exact, (line, explained, err)
