"""The console process keeps the code `dataclasses` and `collections.namedtuple` compile for each class
(`forge_tools/cli/compiled.py`), as Python keeps bytecode: written once, owner-only, read back only
when it is this interpreter's and private, never by the library or the hook."""

from __future__ import annotations

import json
import marshal
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from forge_tools.cli.compiled import MAX_ENTRIES, _header, cache_file

#: defines a dataclass and a namedtuple through an installed cache, and says what it compiled
PROBE = """
import dataclasses, json, sys
from pathlib import Path
from typing import Any
from forge_tools.cli import compiled
compiled.install(Path(sys.argv[1]))

@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int = 2

import collections
Pair = collections.namedtuple("Pair", "a b")
p = Point(1)
try:
    p.x = 5
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
out = {"repr": repr(p), "eq": p == Point(1, 2), "hash": hash(p) == hash(Point(1, 2)), "frozen": frozen,
       "pair": repr(Pair(1, 2)), "kept": len(compiled._active.kept), "new": len(compiled._active.new)}
compiled.keep()
print(json.dumps(out))
"""


def writing(**extra: str) -> dict[str, str]:
    """This environment, with bytecode (and so kept code) writing on."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def probe(data: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(data)], capture_output=True, text=True,
                          timeout=60, env=writing() if env is None else env)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def test_the_methods_are_compiled_once_then_read_back(tmp_path: Path) -> None:
    data = tmp_path / "kept"
    made = probe(data)
    assert made["kept"] == 0 and made["new"] >= 5  # __init__, __repr__, __eq__, frozen's, __new__
    assert (made["repr"], made["eq"], made["hash"], made["frozen"]) == ("Point(x=1, y=2)", True, True, True)
    assert made["pair"] == "Pair(a=1, b=2)"
    path = cache_file(data)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    kept = probe(data)
    assert kept["new"] == 0 and kept["kept"] >= made["new"]  # nothing compiled the second time
    assert {k: kept[k] for k in ("repr", "eq", "hash", "frozen", "pair")} == \
        {k: made[k] for k in ("repr", "eq", "hash", "frozen", "pair")}


def test_a_file_not_private_or_of_another_interpreter_is_not_read(tmp_path: Path) -> None:
    data = tmp_path / "kept"
    probe(data)
    path = cache_file(data)
    for mode in (0o664, 0o644):  # as a checkout or an archive would leave it
        path.chmod(mode)
        assert probe(data)["kept"] == 0
        assert stat.S_IMODE(path.stat().st_mode) == 0o600  # written again, private
    assert probe(data)["kept"] > 0
    path.parent.chmod(0o755)
    assert probe(data)["kept"] == 0  # a folder others may read is not one `keep` made
    path.parent.chmod(0o700)
    path.write_bytes(b"\0\0\0\0\0" + path.read_bytes()[len(_header()):])  # another bytecode magic
    assert probe(data)["kept"] == 0
    path.write_bytes(_header() + b"not marshal data")
    result = probe(data)
    assert result["kept"] == 0 and result["repr"] == "Point(x=1, y=2)"


def test_nothing_is_written_when_bytecode_writing_is_off(tmp_path: Path) -> None:
    data = tmp_path / "kept"
    result = probe(data, writing(PYTHONDONTWRITEBYTECODE="1"))
    assert result["new"] >= 5 and not cache_file(data).exists()


def test_a_full_file_is_started_afresh(tmp_path: Path) -> None:
    data = tmp_path / "kept"
    cache_file(data).parent.mkdir(mode=0o700, parents=True)
    code = compile("1", "<string>", "eval")
    crowd = {("eval", f"{i}"): code for i in range(MAX_ENTRIES)}
    cache_file(data).write_bytes(_header() + marshal.dumps(crowd))
    cache_file(data).chmod(0o600)
    assert probe(data)["kept"] == MAX_ENTRIES
    assert probe(data)["kept"] < MAX_ENTRIES  # the crowd is gone, this run's code kept


@pytest.mark.parametrize("args", [["layers"], ["explain", "bash"]])
def test_the_console_keeps_its_classes_code_in_the_data_dir(project: Path, isolated_env: dict[str, Path],
                                                            args: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "forge_tools", *args], cwd=project, capture_output=True,
                          text=True, timeout=60, env=writing())
    assert proc.returncode == 0, proc.stderr
    assert cache_file(isolated_env["data"]).is_file()


def test_the_library_and_the_hook_leave_dataclasses_alone(project: Path,
                                                         isolated_env: dict[str, Path]) -> None:
    code = ("import dataclasses, forge_tools; forge_tools.tool_visibility(None, 'bash');"
            "print(hasattr(dataclasses, 'exec'))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True,
                          timeout=60, env=writing())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
    payload = {"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "ls"}, "cwd": str(project)}
    subprocess.run([sys.executable, "-m", "forge_tools", "hook", "--runtime", "claude"], cwd=project,
                   input=json.dumps(payload), capture_output=True, text=True, timeout=60, env=writing())
    assert not cache_file(isolated_env["data"]).exists()


def test_the_kept_code_is_what_the_modules_compile_themselves(tmp_path: Path) -> None:
    """Compiled through `_Compiled`, a dataclass's and a namedtuple's methods are the same code, with
    the same annotations, as `dataclasses` and `collections` make with the builtins."""
    import collections
    import dataclasses

    from forge_tools.cli.compiled import _Compiled

    def make() -> tuple[Any, Any]:
        @dataclasses.dataclass(frozen=True)
        class Point:
            x: int
            y: list[str] = dataclasses.field(default_factory=list)

        return Point, collections.namedtuple("Pair", "a b", defaults=[0])

    plain = make()
    shim = _Compiled(cache_file(tmp_path))
    dataclasses.exec = shim.exec  # type: ignore[attr-defined]
    collections.eval = shim.eval  # type: ignore[attr-defined]
    try:
        kept = make()
    finally:
        del dataclasses.exec  # type: ignore[attr-defined]
        del collections.eval  # type: ignore[attr-defined]
    assert len(shim.new) >= 6
    for name in ("__init__", "__repr__", "__eq__", "__setattr__", "__delattr__", "__hash__"):
        a, b = getattr(plain[0], name), getattr(kept[0], name)
        assert (a.__code__.co_code, a.__code__.co_consts, a.__code__.co_names, a.__code__.co_filename) == \
            (b.__code__.co_code, b.__code__.co_consts, b.__code__.co_names, b.__code__.co_filename), name
        assert a.__annotations__ == b.__annotations__, name
    assert plain[1].__new__.__code__.co_code == kept[1].__new__.__code__.co_code
    assert kept[0](1) == kept[0](1, []) and kept[1](1) == (1, 0)
