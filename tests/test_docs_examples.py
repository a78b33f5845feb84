"""Issue 33 item 4: the docs agree with the code.

Every CLI example in docs/ (a `$ forge-tools ...` or `forge-tools ...` line of a code block, a
`run:`/`script:` line of a CI recipe, an inline `forge-tools COMMAND ...`) runs, in real bash, in a
git project that holds an opencode config, a Claude settings file and an expectation file: none may be
a usage error (exit 2), an unknown command or option, or a traceback. A usage line's placeholders are
filled in (`TOOL` -> bash, `[--flag]` dropped, `a|b` -> a). The lists the pages show (runtimes, output
formats, findings) are compared with the registries the code reads.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BIN = Path(sys.executable).parent
#: a placeholder of a usage line -> the value an example gets
PLACEHOLDERS = {
    "TOOL": "bash", "JSON": "'{\"command\": \"true\"}'", "NAME": "claude", "CODE": "FT104",
    "PROJECT": ".", "DIR": ".", "GIT_REF": "HEAD", "OLD": "HEAD", "NEW": "HEAD", "FILE": "opencode.json",
    "${{ github.base_ref }}": "main",
}


def _commands() -> set[str]:
    import typer

    from forge_tools.cli.app import full_app

    return set(typer.main.get_command(full_app()).commands)  # type: ignore[attr-defined]


COMMANDS = _commands()


def _fill(example: str) -> str:
    example = re.sub(r"\s+#.*$", "", example).strip()  # a comment after the command
    example = re.sub(r"\s*\[[^\]]*\]", "", example)  # optional parts
    example = re.sub(r"(\S+)\|\S+", r"\1", example)  # a|b: the first
    example = re.sub(r"<([a-z]+)\|[^>]*>", r"\1", example)
    for name, value in PLACEHOLDERS.items():
        example = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", value, example)
    return example


def examples() -> list[tuple[str, str]]:
    """(page, example as written) for every CLI example of the docs, each once."""
    found: dict[tuple[str, str], None] = {}
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for block in re.finditer(r"```[a-z]*\n(.*?)```", text, re.S):
            for line in block.group(1).splitlines():
                line = line.strip().removeprefix("$ ")
                line = re.sub(r"^-?\s*(run|script):\s*", "", line).removeprefix("- ")
                if line.startswith("forge-tools ") and line.split()[1] in COMMANDS:
                    found[(page.name, line)] = None
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        for span in re.finditer(r"`(forge-tools [^`]+)`", prose):
            words = span.group(1).split()
            if words[1] in COMMANDS and len(words) > 2:  # `forge-tools run` alone names the command
                found[(page.name, " ".join(words))] = None
    return list(found)


EXAMPLES = examples()


def test_the_docs_have_examples_of_every_command() -> None:
    named = {example.split()[1] for _, example in EXAMPLES}
    assert len(EXAMPLES) > 40
    assert {"check", "explain", "layers", "run", "diff", "hook", "rule", "schema"} <= named


@pytest.fixture(scope="module")
def docs_project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("docs")
    work, home = base / "project", base / "home"
    (work / ".forge").mkdir(parents=True)
    (work / ".claude").mkdir()
    home.mkdir()
    (work / "opencode.json").write_text('{"permission": {"bash": {"*": "allow", "git push *": "deny"}}}\n')
    (work / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash(git *)"]}}\n')
    (work / ".forge" / "expect.yaml").write_text(
        '- {agent: build, call: {tool: bash, args: {command: "git push origin main"}}, expect: deny}\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORGE_", "OPENCODE_"))}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", HOME=str(home),
               FORGE_DATA_DIR=str(base / "data"), NO_COLOR="1", COLUMNS="200",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    git = ("git init -q -b main . && git add -A && git commit -qm one && git commit -q --allow-empty -m two"
           " && git commit -q --allow-empty -m three"
           " && git update-ref refs/remotes/origin/main HEAD~1")
    subprocess.run(["bash", "-c", git], cwd=work, env=env, check=True, capture_output=True)
    return work, env


@pytest.mark.parametrize(("page", "example"), EXAMPLES, ids=[f"{p}: {e}" for p, e in EXAMPLES])
def test_every_docs_example_runs(page: str, example: str, docs_project: tuple[Path, dict[str, str]]) -> None:
    work, env = docs_project
    command = _fill(example)
    if " run " in f" {command} " and "--yes" not in command:
        command += " --yes" if " --args " in command else ""
    done = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    said = done.stdout[-1500:] + done.stderr[-1500:]
    assert done.returncode != 2, f"{page}: `{example}` (ran `{command}`) is a usage error: {said}"
    assert "Traceback" not in said and "No such command" not in said and "No such option" not in said, said


def test_the_runtime_list_is_the_registry() -> None:
    from forge_tools.check.codes import RUNTIMES_END, RUNTIMES_START, runtimes_table
    from forge_tools.runtimes import RUNTIMES
    from forge_tools.runtimes.found import display_name

    page = (DOCS / "runtimes.md").read_text(encoding="utf-8")
    assert f"{RUNTIMES_START}\n{runtimes_table()}\n{RUNTIMES_END}" in page, \
        "docs/runtimes.md is stale: run `python -m forge_tools.check.codes`"
    for name in RUNTIMES:
        assert f"| `{name}` |" in runtimes_table()
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for name in ("claude", "codex", "gemini"):
        assert display_name(name) in index, name
    expect = (DOCS / "check-and-diff.md").read_text(encoding="utf-8")
    listed = re.search(r"`runtime: NAME` asserts one runtime's answer \(([^:]*):", expect)
    assert listed is not None
    assert set(re.findall(r"`(\w+)`", listed.group(1))) == set(RUNTIMES)


def test_the_format_and_finding_lists_are_the_registries() -> None:
    from forge_tools.check.codes import markdown_table
    from forge_tools.report.findings import FORMATS

    page = (DOCS / "check-and-diff.md").read_text(encoding="utf-8")
    assert markdown_table() in page  # generated: `python -m forge_tools.check.codes`
    usage = re.search(r"forge-tools check \[PROJECT.*?\[--format ([a-z|]+)\]", page, re.S)
    assert usage is not None
    assert set(usage.group(1).split("|")) == set(FORMATS)


def test_the_docs_say_what_expect_decides_by() -> None:
    """check --expect (and diff --expect) is about the answering agent's answer, not the gate's; the
    GitHub Actions recipe's SARIF upload carries the expectations."""
    page = (DOCS / "check-and-diff.md").read_text(encoding="utf-8")
    assert "A call's `expect` is the answering agent's answer" in page
    sarif = [line for line in page.splitlines() if "--format sarif" in line]
    assert sarif and all("--expect" in line for line in sarif)
