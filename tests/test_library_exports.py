"""Issue 18: the library takes paths as strings and exports the types it returns and raises."""

from __future__ import annotations

from pathlib import Path

import pytest

import forge_tools
from forge_tools import errors
from forge_tools.call import RunOutcome
from forge_tools.config.loader import LoadedConfig
from forge_tools.visibility.pipeline import LayerVerdict, PipelineResult, ToolHidden, ToolVerdict


def test_load_project_and_resolve_take_a_str(project: Path) -> None:
    (project / "opencode.json").write_text('{"permission": {"todowrite": "deny"}}\n')
    loaded = forge_tools.load_project(str(project), overlays=[], cwd=str(project))
    assert isinstance(loaded, forge_tools.LoadedConfig) and loaded.project_root == project.resolve()
    result = forge_tools.resolve(str(project))
    assert isinstance(result, forge_tools.PipelineResult)
    verdict = result.get("todowrite")
    assert isinstance(verdict, forge_tools.ToolVerdict) and not verdict.visible
    assert isinstance(verdict.deciding, forge_tools.LayerVerdict) and verdict.hidden_at == "permission"
    with pytest.raises(forge_tools.ToolHidden):
        result.require("todowrite")
    with pytest.raises(forge_tools.UnknownNameError):
        result.require("todowrit")


def test_the_result_types_and_errors_are_exported() -> None:
    exported = {"LoadedConfig": LoadedConfig, "PipelineResult": PipelineResult, "ToolVerdict": ToolVerdict,
                "LayerVerdict": LayerVerdict, "RunOutcome": RunOutcome, "ToolHidden": ToolHidden,
                "ExitCode": errors.ExitCode}
    for name in ("ForgeToolsError", "UsageError", "UnknownNameError", "ConfigError", "PluginError",
                 "ToolInputError", "PermissionDenied", "PermissionRejected"):
        exported[name] = getattr(errors, name)
    for name, value in exported.items():
        assert getattr(forge_tools, name) is value, name
        assert name in forge_tools.__all__
    assert issubclass(forge_tools.ToolHidden, forge_tools.PermissionDenied)


def test_a_bad_config_raises_the_exported_config_error(project: Path) -> None:
    (project / "opencode.json").write_text('{"permission": ')
    with pytest.raises(forge_tools.ConfigError) as caught:
        forge_tools.load_project(str(project))
    assert caught.value.origin is not None and caught.value.origin.line == 1


def test_the_type_stub_declares_each_lazy_name_from_its_module() -> None:
    """`__init__.pyi` is what type checkers read for the lazily imported API: the same names, each from
    the module `__getattr__` imports it from (the root itself imports nothing of forge_tools)."""
    import ast

    stub = ast.parse((Path(forge_tools.__file__).with_suffix(".pyi")).read_text(encoding="utf-8"))
    declared = {alias.asname or alias.name: (node.module, alias.name) for node in stub.body
                if isinstance(node, ast.ImportFrom) and node.module != "__future__" for alias in node.names}
    assert declared == forge_tools._LAZY
    root = ast.parse(Path(forge_tools.__file__).read_text(encoding="utf-8"))
    imported = [(n.lineno, n.module or "") for n in ast.walk(root) if isinstance(n, ast.ImportFrom)]
    imported += [(n.lineno, a.name) for n in ast.walk(root) if isinstance(n, ast.Import) for a in n.names]
    ours = [line for line, name in imported if name.split(".")[0] == "forge_tools"]
    assert not ours, f"forge_tools/__init__.py imports forge_tools at line(s) {ours}"
