"""Issue 33 item 6: the papercuts a newcomer meets, each with a test that failed before the change."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


def _commit(project: Path, config: dict[str, object], message: str) -> None:
    (project / "opencode.json").write_text(json.dumps(config))
    subprocess.run([*GIT, "add", "-A"], cwd=project, check=True, capture_output=True)
    subprocess.run([*GIT, "commit", "-qm", message], cwd=project, check=True, capture_output=True)


def test_diff_compares_two_commits(project: Path, cli) -> None:  # type: ignore[no-untyped-def]
    import shutil

    shutil.rmtree(project / ".git")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    _commit(project, {"permission": {"bash": "allow"}}, "one")
    _commit(project, {"permission": {"bash": "ask"}}, "two")
    _commit(project, {"permission": {"bash": "deny"}}, "three")
    code, out, err = cli("diff", "HEAD~2", "HEAD", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["old"]["root"] == "git HEAD~2" and data["new"]["root"] == "git HEAD"
    assert '"allow"' in out and '"deny"' in out
    code, _out, err = cli("diff", "HEAD~1", "no-such-ref")
    assert code == 2 and "NEW: 'no-such-ref' is not a commit" in err
