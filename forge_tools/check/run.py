"""`check` as a library call: scan every config source, load, analyse, test expectations.

Nothing here imports project code unless `load_code` is set: tool scripts are read as syntax trees
and plugins are not loaded (the report says so).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forge_tools.check.codes import CODES
from forge_tools.check.config_errors import (
    echoed_substitutions,
    finding_for,
    ignored_finding,
    redact,
    scan_config,
    scrub,
    scrub_finding,
)
from forge_tools.errors import ConfigError, ExitCode
from forge_tools.named_tuple import NamedTuple
from forge_tools.origin import Node, Origin
from forge_tools.report.findings import CheckReport, Finding, enclosing_repo

if TYPE_CHECKING:
    from forge_tools.check.context import CheckContext
    from forge_tools.config.loader import LoadedConfig


class CheckOptions(NamedTuple):
    """What `check` was asked to look at: the project, overlays, expectations, and the code selection."""

    cwd: Path
    project: Path | None = None
    overlays: tuple[Path, ...] = ()
    expect: Path | None = None
    load_code: bool = False
    select: tuple[str, ...] | None = None  # --select: replaces the config's `check.select`
    ignore: tuple[str, ...] = ()  # --ignore: added to the config's `check.ignore`
    extend_select: tuple[str, ...] = ()  # --extend-select: added to what is selected
    runtime: str | None = None  # --runtime: whose answers expectations and FT116 use (default: config's)
    progress: Callable[[str], None] | None = None  # hears what check is doing (a status line)


def project_paths(project: Path | None, cwd: Path | None = None) -> tuple[Path, Path | None]:
    """(cwd, project) for a `PROJECT` argument: discovery starts in the project itself."""
    here = (cwd or Path.cwd()).resolve()
    if project is None:
        return here, None
    root = project if project.is_absolute() else here / project
    if not root.is_dir():
        raise ConfigError(f"project {project}: not a directory")
    return root.resolve(), root.resolve()


def run_check(opts: CheckOptions) -> CheckReport:
    """The whole report, less what the selection and inline suppressions leave out. Raises ConfigError
    (exit 3) only when there is no project to look at."""
    from forge_tools.check.select import Selection, apply, config_layers

    report, trees, texts = _run_check(opts)
    selection = Selection()
    for select, ignore, extend in config_layers(trees, report.project_root):
        selection = selection.then(select, ignore, extend)
    selection = selection.then(opts.select, opts.ignore, opts.extend_select)
    return apply(report, selection, report.files, texts)


def static_script_findings(config_dirs: Any) -> list[Finding]:
    """FT009 for each script the sources' static scan could not read (`forge_tools.sources.ask`
    without code: nothing is imported), when the config has errors and no turn is resolved (else the
    turn's own scan gives them: `code_problems.script_problems`); made by the one maker
    `--load-code`'s script problems go through."""
    from forge_tools.sources import ask
    from forge_tools.sources.candidates import ScriptProblem
    from forge_tools.tools.contract import SourceQuery

    problems = [problem
                for _source, listing in ask(SourceQuery(config_dirs=tuple(config_dirs)), load_code=False)
                for problem in listing.problems if isinstance(problem, ScriptProblem)]
    if not problems:
        return []
    from forge_tools.check.code_problems import script_finding

    return [script_finding(problem) for problem in problems]


def _run_check(opts: CheckOptions) -> tuple[CheckReport, list[Node], dict[Path, str]]:
    """The report, each valid source's tree and each file's text, as the scan read them (once)."""
    from forge_tools.check.analysis import analyse
    from forge_tools.check.context import build_context
    from forge_tools.check.opencode_compat import action_only_maps
    from forge_tools.config import LoadOptions, load_config
    from forge_tools.sources.plugin_refs import NOTE_PLUGINS_UNKNOWN

    def tell(text: str) -> None:
        if opts.progress is not None:
            opts.progress(text)

    tell("reading the config files")
    scan = scan_config(opts.cwd, opts.project, opts.overlays)
    report = CheckReport(project_root=scan.project_root, codes=dict(CODES), files=scan.files,
                         expect_file=opts.expect, repo_root=enclosing_repo(scan.project_root))
    trees = [source.tree for source in scan.sources if source.tree is not None and not source.errors]
    texts = {source.where: source.text for source in scan.sources
             if isinstance(source.where, Path) and source.text is not None}
    report.findings += [redact(finding_for(e), scan.substituted) for e in scan.errors]
    report.findings += [redact(ignored_finding(e), scan.substituted) for e in scan.ignored]
    for source in scan.sources:
        if isinstance(source.where, Path) and source.tree is not None:
            report.findings += action_only_maps(source.tree, source.where.name)

    assertions = _load_assertions(opts.expect, report)
    if scan.errors:
        if not opts.load_code:  # the sources are asked here only: no turn is resolved
            report.findings += static_script_findings(scan.config_dirs)
        _not_checked(assertions, report, "not checked: the config has errors")
        return report, trees, texts
    try:
        read = {(s.step, s.where): s.tree for s in scan.sources if s.tree is not None and not s.errors}
        loaded = load_config(LoadOptions(cwd=opts.cwd, project=opts.project, overlays=opts.overlays), read)
        tell("resolving the agents' tools")
        ctx = build_context(loaded, load_code=opts.load_code, progress=opts.progress)
        ctx.runtime_name = opts.runtime
    except ConfigError as exc:
        report.findings.append(redact(finding_for(exc), scan.substituted))
        if not opts.load_code:
            report.findings += static_script_findings(scan.config_dirs)
        _not_checked(assertions, report, "not checked: the config has errors")
        return report, trees, texts
    ctx.source_trees = {key: source.tree for source in scan.sources
                        if isinstance(source.where, Path) and source.tree is not None
                        for key in (str(source.where), str(source.where.resolve()))}
    from forge_tools.sources.config_warnings import config_warnings

    report.findings += [Finding(w.finding, "warning", w.message, w.hint, w.origin)
                        for w in config_warnings(loaded)]  # the ignored keys are the scan's (above)
    tell("analysing the rules")
    report.findings += analyse(ctx)
    report.findings += runtime_findings(loaded)
    report.findings += _hook_findings(loaded, report.findings)
    # the pipeline's "plugin tools unknown" note is FT109 here, which names the plugins: said only when
    # there are some (a project without plugins misses nothing)
    report.notes += [n for n in ctx.notes if n != NOTE_PLUGINS_UNKNOWN]
    if ctx.problems:  # imported only when there is something to report (start-up stays lean)
        from forge_tools.check.code_problems import problem_findings, script_problems

        # the turn's sources were asked once (build_context): with code, every problem is a finding;
        # without, what the static scan of the scripts could not read
        report.findings += problem_findings(
            ctx.problems if opts.load_code else script_problems(ctx.problems), loaded)
    if assertions:
        from forge_tools.runtimes import refuse_start

        refuse_start(loaded, opts.runtime)  # expectations about an agent that does not start: exit 3
        tell("testing the expectations")
        _check_assertions(assertions, ctx, report, opts.load_code)
    return _redacted(report, scan.substituted, echoed_substitutions(loaded.tree)), trees, texts


def runtime_findings(loaded: LoadedConfig) -> list[Finding]:
    """The findings of every other agent runtime whose config the project holds, in this one report:
    each runtime package's `files.findings(loaded)` when it has one (Claude Code: FT301-FT307 over the
    files Claude would read there, the person's and managed ones too, read as Claude reads them).
    opencode's and forge-tools' own are `analyse`'s."""
    from importlib import import_module

    from forge_tools.runtimes import RUNTIMES
    from forge_tools.runtimes.found import found_runtimes

    found: list[Finding] = []
    for runtime in found_runtimes(loaded):
        package = import_module(f"{RUNTIMES[runtime.name]}.files")
        produce = getattr(package, "findings", None)
        if produce is not None:
            found += produce(loaded)
    return found


def _hook_findings(loaded: LoadedConfig, found: list[Finding]) -> list[Finding]:
    """FT361-FT364 for the agents the project configures (`check/hook_findings.py`)."""
    from forge_tools.check.hook_findings import hook_findings
    from forge_tools.runtimes.found import found_runtimes

    agents = [r.name for r in found_runtimes(loaded)]
    return hook_findings(Path(loaded.project_root), agents, found)


def _redacted(report: CheckReport, substituted: dict[Any, str], echoed: dict[str, str]) -> CheckReport:
    """No finding or explanation shows a value that came from `{env:}`/`{file:}` (see `redact`)."""

    if substituted:
        report.findings = [redact(f, substituted) for f in report.findings]
    if echoed:
        report.findings = [scrub_finding(f, echoed) for f in report.findings]
        report.expectations = [e._replace(explanation=scrub(e.explanation, echoed))
                               for e in report.expectations]
    return report


def _load_assertions(path: Path | None, report: CheckReport) -> list[Any]:
    """The file's assertions; every problem of its form becomes an FT202 finding at its own position
    (an assertion with problems is kept: its names are still checked, it is not evaluated)."""
    if path is None:
        return []
    from forge_tools.check.expect import read_expectations

    if not path.is_file():
        raise ConfigError("expectations file not found (--expect)", Origin("file", path=str(path)))
    found = read_expectations(path)
    hint = "fix the expectations file; see the `--expect` forms in docs/check-and-diff.md"
    report.findings += [Finding("FT202", "error", message, hint, origin)
                        for message, origin in found.all_problems]
    return found.assertions


def _not_checked(assertions: list[Any], report: CheckReport, why: str) -> None:
    from forge_tools.report.findings import ExpectationOutcome

    report.expectations += [ExpectationOutcome(a.describe(), False, why, a.origin) for a in assertions]


def _check_assertions(assertions: list[Any], ctx: CheckContext, report: CheckReport, load_code: bool) -> None:
    from forge_tools.check.expect import check_expectations
    from forge_tools.visibility.pipeline import Request, load_sources, resolve
    from forge_tools.visibility.switches import turn_switches

    cache: dict[tuple[str, str | None], Any] = {}
    client, flags = turn_switches()  # the same turn as `explain --call` in this environment
    sources = load_sources(ctx.loaded, Request(client=client, flags=flags), load_code=load_code)

    def result_for(agent: str, model: str | None) -> Any:
        key = (agent, model)
        if key not in cache:
            request = Request(agent=agent, model=model, client=client, flags=flags)
            cache[key] = resolve(ctx.loaded, request, load_code=load_code, sources=sources,
                                 agents=ctx.agents)
        return cache[key]

    names = [a.name for a in ctx.enabled_agents]
    outcomes, findings = check_expectations(assertions, names, result_for, ctx.loaded.project_root,
                                            ctx.plugin_tools_known, ctx.runtime, ctx.loaded)
    report.expectations += outcomes
    report.findings += findings


def exit_code(report: CheckReport, strict: bool = False) -> ExitCode:
    """0 clean; 1 on errors or failed expectations, and on warnings too with --strict."""
    if report.count("error") or report.failed_expectations:
        return ExitCode.FINDINGS
    if strict and report.count("warning"):
        return ExitCode.FINDINGS
    return ExitCode.OK
