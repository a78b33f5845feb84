"""Static script ids: the SPEC 2 id rule without importing anything."""

from __future__ import annotations

from pathlib import Path

from forge_tools.sources.static_scripts import scan_static_scripts, static_script_ids


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_id_rule_and_every_binding_form(tmp_path: Path) -> None:
    cfg = tmp_path / ".forge"
    write(cfg / "tools" / "deploy.py", '''
import forge_tools
import forge_tools as ft
from forge_tools import tool, Tool
from forge_tools import tool as make_tool

@tool
def deploy(target: str) -> str:
    return target

@tool
def status() -> str:
    return ""

@make_tool(name="explicit_name")
def whatever() -> str:
    return ""

@forge_tools.tool()
def rollback() -> str:
    return ""

def plain():
    return ""

default_helper = 3
default = tool(plain)
other = ft.tool(plain)
built: Tool = Tool(id="x", description="", parameters={}, execute=plain)
chained = tool(name="chained_id")(plain)
_private = tool(plain)
''')
    write(cfg / "tool" / "single.py", "from forge_tools import tool\n\n@tool\ndef single():\n    pass\n")
    found = static_script_ids([cfg])
    ids = {t.id: t for t in found}
    # SPEC 2: the binding decides the id; an @tool(name=...) does not change a script tool's id
    assert set(ids) == {"deploy", "deploy_status", "deploy_whatever", "deploy_rollback", "deploy_other",
                        "deploy_built", "deploy_chained", "single"}
    assert ids["deploy_status"].line == 12
    assert ids["single"].path.name == "single.py"
    assert all(t.path.suffix == ".py" for t in found)


def test_undecorated_functions_and_rebound_names_are_not_tools(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    write(cfg / "tools" / "misc.py", '''
from forge_tools import tool

def helper():
    pass

@tool
def gone():
    pass

gone = None

@other_decorator
def not_ours():
    pass
''')
    assert static_script_ids([cfg]) == []


def test_all_narrows_exports(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    write(cfg / "tools" / "pick.py", '''
from forge_tools import tool
__all__ = ["kept"]

@tool
def kept():
    pass

@tool
def dropped():
    pass
''')
    assert [t.id for t in static_script_ids([cfg])] == ["pick_kept"]


def test_syntax_error_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    write(cfg / "tools" / "broken.py", "def oops(:\n")
    write(cfg / "tools" / ".hidden.py", "from forge_tools import tool\n@tool\ndef default():\n    pass\n")
    write(cfg / "tools" / "nested" / "deep.py",
          "from forge_tools import tool\n@tool\ndef deep():\n    pass\n")
    scan = scan_static_scripts([cfg])
    assert [t.id for t in scan.tools] == [".hidden"]  # dotfiles count, subfolders do not
    assert len(scan.problems) == 1
    problem = scan.problems[0]
    assert problem.path.name == "broken.py" and problem.line == 1 and "syntax error" in problem.message


def test_scan_never_executes_the_script(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    marker = tmp_path / "marker"
    write(cfg / "tools" / "evil.py", f'''
from pathlib import Path
Path({str(marker)!r}).write_text("imported")
from forge_tools import tool

@tool
def evil():
    pass
''')
    assert [t.id for t in static_script_ids([cfg])] == ["evil"]
    assert not marker.exists()


def test_oversized_script_is_a_problem_not_a_read(tmp_path: Path, monkeypatch) -> None:
    """A script (e.g. a symlink in an untrusted checkout) larger than the config size cap is reported,
    never read whole."""
    import forge_tools.config.files as files
    from forge_tools.sources.static_scripts import scan_static_scripts

    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "big.py").write_text("x = 1\n" * 100)
    monkeypatch.setattr(files, "MAX_BYTES", 64)
    scan = scan_static_scripts([tmp_path])
    assert scan.tools == [] and len(scan.problems) == 1
    assert "larger than" in scan.problems[0].message
