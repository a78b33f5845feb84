"""`check` reads and parses each config source once: the scan that reports every problem of every
source hands its trees to the loader (`load_config(..., already_read)`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import forge_tools.config.reader as reader

TOML = """model = "anthropic/claude-sonnet-4"

[permission]
bash = { "*" = "ask", "git *" = "allow", "rm *" = "deny" }
"""


def test_check_reads_each_source_once(project: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "forge.toml").write_text(TOML)
    (project / ".forge").mkdir()
    (project / ".forge" / "forge.json").write_text('{"agent": {"plan": {"permission": {"edit": "deny"}}}}')
    reads: Counter[str] = Counter()
    real = reader.read_text

    def counted(path: Path, what: str) -> str:
        reads[Path(path).name] += 1
        return real(path, what)

    monkeypatch.setattr(reader, "read_text", counted)
    code, out, _err = cli("check", "--select", "FT")
    assert code == 0, out
    assert 'rule bash "rm *" deny' in out  # the loaded config was analysed
    assert reads == {"forge.toml": 1, "forge.json": 1}
    code, out, _err = cli("layers", "--agent", "plan")  # the loader alone still reads the files
    assert code == 0 and "edit" in out
    assert reads == {"forge.toml": 2, "forge.json": 2}
