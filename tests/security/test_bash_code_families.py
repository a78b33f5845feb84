"""What the bash splitter must treat as code (issue 18): each family is a test class, replayed with a
real bash and a canary file.

Principle: a program that can run code it is given, in *any* form (stdin, a file descriptor, an option
glued or long, an environment variable, another name), is opaque unless the rules allow it by name;
opaque means asked, and denied under `"*": "deny"`. Each case first runs with plain `bash -c` in a
scratch copy of the project and must change the canary there (a case whose program is missing here is
skipped, never counted as closed); then `forge-tools run bash` must leave the canary alone and refuse
(exit 4, non-interactive), and `explain --call` and `check --expect` must give the same decision.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import pytest

CLI = Callable[..., tuple[int, str, str]]
ORIGINAL = "original\n"
RM_DENY = {"bash": {"*": "allow", "rm *": "deny"}}
ALLOW_LIST = {"bash": {"*": "deny", "echo *": "allow", "cat *": "allow", "python3 *": "allow",
                       "perl *": "allow", "awk *": "allow", "sed *": "allow", "git *": "allow",
                       "vim *": "allow", "node *": "allow", "declare *": "allow", "x=*": "allow"}}
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _setup(root: Path, home: Path, policy: dict[str, object]) -> None:
    (root / "opencode.json").write_text(json.dumps({"permission": policy}))
    (root / "victim").write_text(ORIGINAL)
    (root / "script.pl").write_text("1;\n")
    (root / "sub").mkdir(exist_ok=True)
    config = home / ".config" / "opencode"
    config.mkdir(parents=True, exist_ok=True)
    (config / "opencode.json").write_text(json.dumps({"permission": policy}))
    (home / "owned").unlink(missing_ok=True)
    for link in ("h", "l"):
        if (root / link).is_symlink():
            (root / link).unlink()


def _snapshot(root: Path, home: Path, targets: tuple[str, ...]) -> list[str | None]:
    found: list[str | None] = []
    for name in targets:
        path = home / name[2:] if name.startswith("~/") else root / name
        found.append(path.read_text() if path.is_file() else None)
    return found


def _line(template: str, home: Path) -> str:
    return template.replace("{home}", str(home))


def _decision_of_run(err: str) -> str:
    return "deny" if "permission denied" in err else \
        "ask" if "not approved" in err or "rejected" in err else "?"


class Family:
    policy: ClassVar[dict[str, object]] = RM_DENY
    targets: ClassVar[tuple[str, ...]] = ("victim",)
    exact: ClassVar[str | None] = None
    cases: ClassVar[tuple[str, ...]] = ()

    def check(self, cli: CLI, project: Path, home: Path, tmp_path: Path, template: str,
              policy: dict[str, object] | None = None, exact: str | None = None) -> None:
        policy = policy or self.policy
        line = _line(template, home)
        scratch = tmp_path / "scratch"
        scratch.mkdir(exist_ok=True)
        _setup(scratch, home, policy)
        before = _snapshot(scratch, home, self.targets)
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
        subprocess.run(["/bin/bash", "-c", line], cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20, check=False)
        if _snapshot(scratch, home, self.targets) == before:
            pytest.skip(f"bash itself does not change {self.targets} here: {line!r}")

        _setup(project, home, policy)
        before = _snapshot(project, home, self.targets)
        code, out, err = cli("run", "bash", "--args", json.dumps({"command": line}))
        assert _snapshot(project, home, self.targets) == before, (line, code, out, err)
        assert code == 4, (line, code, out, err)
        ran = _decision_of_run(err)

        code, out, err = cli("explain", "bash", "--call", json.dumps({"command": line}), "--format", "json")
        assert code == 0, err
        explained = json.loads(out)["call"]["gate"]["action"]
        # run stops at the first refused request (an external_directory ask can precede a bash deny)
        assert explained == ran or (explained, ran) == ("deny", "ask"), (line, explained, err)
        if exact or self.exact:
            assert explained == (exact or self.exact), (line, explained)

        expect = project / "expect.json"
        # the gate's answer (what run enforces), whatever runtime the config belongs to
        expect.write_text(json.dumps([{"agent": "build", "call": {"tool": "bash", "args": {"command": line}},
                                       "expect": explained, "runtime": "forge"}]))
        _, out, err = cli("check", "--expect", str(expect), "--format", "json")
        assert json.loads(out)["expectations"]["results"][0]["passed"], (line, out, err)


class TestInterpretersReadingStdinOrFd(Family):
    cases = (
        "python3 /dev/stdin <<< 'import os; os.remove(\"victim\")'",
        "python3 /proc/self/fd/0 <<< 'import os; os.remove(\"victim\")'",
        "python3 /dev/fd/0 <<< 'import os; os.remove(\"victim\")'",
        "python3 /dev/fd/3 3<<< 'import os; os.remove(\"victim\")'",
        "python3 -i /dev/null <<< 'import os; os.remove(\"victim\")'",
        "python3 -m code <<< 'import os; os.remove(\"victim\")'",
        "perl /dev/stdin <<< 'unlink \"victim\"'",
        "perl -x <<< $'#!perl\\nunlink \"victim\"'",
        "tclsh <<< 'file delete victim'",
        "vim -es -u NONE <<< '!rm victim'",
        "awk -W exec /dev/stdin <<< 'BEGIN { system(\"rm victim\") }'",
        "node /dev/stdin <<< 'require(\"fs\").unlinkSync(\"victim\")'",
    )

    @pytest.mark.parametrize("template", cases)
    def test_rm_deny(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                     template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template, exact="ask")

    @pytest.mark.parametrize("template", cases)
    def test_allow_list(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                        template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template, ALLOW_LIST, exact="deny")


class TestCodeInOptions(Family):
    cases = (
        "perl '-MPOSIX;unlink(q(victim))' script.pl",
        "perl -MPOSIX -e 'unlink q(victim)'",
        "python3 -m timeit -n1 -r1 'import os; os.remove(\"victim\")'",
        "node --eval='require(\"fs\").unlinkSync(\"victim\")'",
        "node --import 'data:text/javascript,import fs from \"fs\"; fs.unlinkSync(\"victim\")' -e 0",
        "sed -e'1e rm victim' <<< x",
        "sed -ne'1e rm victim' <<< x",
        "sed --expression='1e rm victim' <<< x",
        "sed --expr '1e rm victim' <<< x",
        "awk -- 'BEGIN { system(\"rm victim\") }'",
        "vim -es -u NONE '+!rm victim' '+q!'",
        "git -C . -c alias.x='!rm victim' x",
        "X='!rm victim' git -C . --config-env=alias.x=X x",
        "git --no-pager -c 'alias.x=!rm victim' x",
        "git init -q . && git config alias.x '!rm victim' && git x",
    )

    @pytest.mark.parametrize("template", cases)
    def test_rm_deny(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                     template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template, exact="ask")

    @pytest.mark.parametrize("template", cases)
    def test_allow_list(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                        template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template, ALLOW_LIST, exact="deny")


class TestEnvironmentThatRunsCode(Family):
    cases = (
        "GIT_CONFIG_PARAMETERS=\"'alias.x=!rm victim'\" git x",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm victim' git x",
        "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm victim' git x",
        "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm victim'; git x",
        "GIT_SSH_COMMAND='rm victim #' git ls-remote ssh://example.invalid/x",
        "git init -q . && GIT_EXTERNAL_DIFF='rm victim #' git diff --ext-diff --no-index /dev/null script.pl",
        "PERL5OPT='-Mstrict;unlink(q(victim))' perl script.pl",
        "PERL5DB='BEGIN { unlink q(victim) }' perl -d script.pl",
        "export PERL5OPT='-Mstrict;unlink(q(victim))'; perl script.pl",
        "echo 'rm victim' > .e; ENV=.e sh -i < /dev/null",
        "echo 'rm victim' > .e; env ENV=.e sh -i < /dev/null",
        "echo 'rm victim' > .e; BASH_ENV=.e bash script.pl",
    )

    @pytest.mark.parametrize("template", cases)
    def test_rm_deny(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                     template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template, exact="ask")

    @pytest.mark.parametrize("template", cases)
    def test_allow_list(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                        template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template, ALLOW_LIST, exact="deny")


class TestShellsAndEditorsUnderOtherNames(Family):
    cases = (
        "rbash -c 'rm victim'",
        "rbash <<< 'rm victim'",
        "ex -s -u NONE '+!rm victim' '+q!'",
        "vi -es -u NONE '+!rm victim' '+q!'",
        "view -es -u NONE '+!rm victim' '+q!'",
        "vimdiff -es -u NONE '+!rm victim' '+q!'",
        "vim.basic -es -u NONE '+!rm victim' '+q!'",
        "ex -s -u NONE <<< '!rm victim'",
    )

    @pytest.mark.parametrize("template", cases)
    def test_rm_deny(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                     template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template)

    @pytest.mark.parametrize("template", cases)
    def test_allow_list(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                        template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template, ALLOW_LIST, exact="deny")


class TestBuiltinsThatEvaluate(Family):
    cases = (
        "declare 'a[$(rm victim)]=1'",
        "typeset 'a[$(rm victim)]=1'",
        "f() { local 'a[$(rm victim)]=1'; }; f",
        "x='a[$(rm victim)]'; a=([x]=1)",
        "x='a[$(rm victim)]'; cat <<EOF\n$((x))\nEOF",
        "x='a[$(rm victim)]'; cat <<EOF\n$[x]\nEOF",
        "x='$(rm victim)'; echo ${x@P}",
        "n='a[$(rm victim)]'; declare \"$n=1\"",
        "declare -a 'b=([$(rm victim)]=1)'",
    )

    @pytest.mark.parametrize("template", cases)
    def test_rm_deny(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                     template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template)

    @pytest.mark.parametrize("template", cases)
    def test_allow_list(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                        template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template, ALLOW_LIST, exact="deny")


class TestPathsTheSplitterCannotResolve(Family):
    policy: ClassVar[dict[str, object]] = {"bash": "allow"}  # external_directory keeps its default: ask
    targets = ("~/owned",)
    cases = (
        "ln -s {home} h && touch h/owned",
        "ln -s {home} h; echo x > h/owned",
        "ln -s {home}/owned l && echo x > l",
        "echo x > ~+/../home/owned",
        "touch ~+/../home/owned",
        "cd sub && echo x > ~-/../home/owned",
    )

    @pytest.mark.parametrize("template", cases)
    def test_outside_is_asked(self, cli: CLI, project: Path, isolated_env: dict[str, Path], tmp_path: Path,
                              template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template)


class TestRewritingTheRules(Family):
    policy: ClassVar[dict[str, object]] = {"bash": "allow", "edit": "allow"}
    targets = ("opencode.json", "~/.config/opencode/opencode.json", ".opencode/agent.md")
    exact = "ask"
    cases = (
        "sed -i 's/allow/deny/' opencode.json",
        "cp /dev/null opencode.json",
        "tee opencode.json < /dev/null",
        "python3 -c 'open(\"opencode.json\", \"w\").write(\"{}\")'",
        "perl -pi -e 's/allow/deny/' opencode.json",
        "sed -i 's/allow/deny/' ~/.config/opencode/opencode.json",
        "cp /dev/null {home}/.config/opencode/opencode.json",
        "echo x > ~/.config/opencode/opencode.json",
        "mkdir -p .opencode && cp script.pl .opencode/agent.md",
        "ln -s opencode.json l && echo '{}' > l",
    )

    @pytest.mark.parametrize("template", cases)
    def test_config_write_is_asked(self, cli: CLI, project: Path, isolated_env: dict[str, Path],
                                   tmp_path: Path, template: str) -> None:
        self.check(cli, project, isolated_env["home"], tmp_path, template)


class TestAllowedByName:
    """The other half of the principle: an exact allow rule (no wildcard) names the command, so the
    code it carries may run; run, explain --call and check --expect agree, and run really runs it."""

    def test_an_exact_rule_lets_inline_code_run(self, cli: CLI, project: Path) -> None:
        line = "python3 -c 'open(\"made\", \"w\").write(\"x\")'"
        pattern = 'python3 -c open("made", "w").write("x")'
        (project / "opencode.json").write_text(json.dumps(
            {"permission": {"bash": {"*": "deny", pattern: "allow"}}}))
        call = json.dumps({"command": line})
        _, out, _ = cli("explain", "bash", "--call", call, "--runtime", "forge", "--format", "json")
        assert json.loads(out)["call"]["gate"]["action"] == "allow"
        expect = project / "expect.json"
        expect.write_text(json.dumps([{"agent": "build", "call": {"tool": "bash", "args": {"command": line}},
                                       "expect": "allow", "runtime": "forge"}]))
        code, out, err = cli("check", "--expect", str(expect), "--format", "json")
        assert json.loads(out)["expectations"]["results"][0]["passed"], (out, err)
        code, out, err = cli("run", "bash", "--args", call, "--no-sandbox")
        assert code == 0, err
        assert (project / "made").read_text() == "x"

    def test_a_wildcard_rule_does_not(self, cli: CLI, project: Path) -> None:
        line = "python3 -c 'open(\"made\", \"w\").write(\"x\")'"
        (project / "opencode.json").write_text(json.dumps(
            {"permission": {"bash": {"*": "deny", "python3 -c *": "allow"}}}))
        code, _, err = cli("run", "bash", "--args", json.dumps({"command": line}), "--no-sandbox")
        assert code == 4 and "permission denied" in err
        assert "no wildcard" in err or "exactly" in err
        assert not (project / "made").exists()
