"""FT113: a `read` or `edit` rule whose pattern is an absolute or `~/` path, which never matches.

`read` and `edit` calls are checked against the path relative to the project root (`../x` outside
it), as opencode 1.18.33 does (SPEC 4.4; recorded in tests/compat/layouts/read-patterns). A pattern
such as `"~/.ssh/*": "deny"` (expanded to the home directory) is then never met: people write it
believing it protects them. The finding says what does work: an `external_directory` rule for a
directory outside the project, or the pattern relative to the project root.
"""

from __future__ import annotations

import json
import os
from pathlib import PurePosixPath

from forge_tools.check.context import CheckContext
from forge_tools.permission.wildcard import normalize, wildcard_match
from forge_tools.report.findings import Finding

#: the permissions whose call pattern is a path relative to the project root
RELATIVE_PATH_PERMISSIONS = ("read", "edit")


def _is_absolute(pattern: str) -> bool:
    text = normalize(pattern)
    return text.startswith("/") or (len(text) > 2 and text[1] == ":" and text[2] == "/")


def _literal_dir(pattern: str) -> str:
    """The directory part before the first wildcard (`/a/b/*.md` -> `/a/b`)."""
    text = normalize(pattern)
    cut = min((i for i, c in enumerate(text) if c in "*?"), default=len(text))
    literal = text[:cut]
    if literal.endswith("/"):
        return literal.rstrip("/") or "/"
    return str(PurePosixPath(literal).parent)


def absolute_path_patterns(ctx: CheckContext) -> list[Finding]:
    """FT113 for each rule a person wrote for `read`/`edit` with an absolute (or `~/`) pattern."""
    from forge_tools.check.analysis import _syntax, _unique_rules, rule_text

    root = normalize(str(ctx.loaded.project_root)).rstrip("/")
    findings: list[Finding] = []
    for _scope, rule in _unique_rules(ctx):
        if rule.permission == "*" or not _is_absolute(rule.pattern):
            continue
        names = [p for p in RELATIVE_PATH_PERMISSIONS if wildcard_match(p, rule.permission)]
        if not names:
            continue
        text = normalize(rule.pattern)
        inside = text == root or text.startswith(root + "/")
        if inside:
            relative = text[len(root) + 1:] or "*"
            hint = f"write it relative to the project root: {json.dumps(relative)}"
        else:
            directory = _literal_dir(rule.pattern)
            relative = normalize(os.path.relpath(directory, root)) + text[len(directory):]
            snippet = _syntax(rule.origin).assignment(
                ["external_directory"], [(directory.rstrip("/") + "/*", rule.action)], nested=False)
            hint = (f"for a directory outside the project add {snippet}, or write the pattern relative "
                    f"to the project root ({json.dumps(relative)})")
        findings.append(Finding(
            "FT113", "warning",
            f"rule {rule_text(rule)} never matches: {' and '.join(names)} calls are checked against the "
            "path relative to the project root (as opencode does), so an absolute or ~/ pattern is never "
            f"met{' and this deny protects nothing' if rule.action == 'deny' else ''}",
            hint, rule.origin))
    return findings
