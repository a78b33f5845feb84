"""Types of the lazily imported public API (`__init__.py` imports each name on first use)."""

from __future__ import annotations

from forge_tools.api import answers_by_runtime as answers_by_runtime
from forge_tools.api import call_answers as call_answers
from forge_tools.api import decide_call as decide_call
from forge_tools.api import new_session as new_session
from forge_tools.api import resolve as resolve
from forge_tools.api import run_call as run_call
from forge_tools.api import tool_visibility as tool_visibility
from forge_tools.call import RunOutcome as RunOutcome
from forge_tools.config import load_project as load_project
from forge_tools.config.loader import LoadedConfig as LoadedConfig
from forge_tools.errors import ConfigError as ConfigError
from forge_tools.errors import ExitCode as ExitCode
from forge_tools.errors import ForgeToolsError as ForgeToolsError
from forge_tools.errors import PermissionDenied as PermissionDenied
from forge_tools.errors import PermissionRejected as PermissionRejected
from forge_tools.errors import PluginError as PluginError
from forge_tools.errors import ToolInputError as ToolInputError
from forge_tools.errors import UnknownNameError as UnknownNameError
from forge_tools.errors import UsageError as UsageError
from forge_tools.permission.calls import CallDecision as CallDecision
from forge_tools.permission.calls import PatternDecision as PatternDecision
from forge_tools.permission.calls import PermissionRequest as PermissionRequest
from forge_tools.permission.gate import Answer as Answer
from forge_tools.permission.gate import PermissionSession as PermissionSession
from forge_tools.permission.gate import Question as Question
from forge_tools.sources.hookspecs import hookimpl as hookimpl
from forge_tools.tools.context import ToolContext as ToolContext
from forge_tools.tools.context import ToolResult as ToolResult
from forge_tools.tools.contract import Tool as Tool
from forge_tools.tools.contract import ToolSource as ToolSource
from forge_tools.tools.contract import tool as tool
from forge_tools.visibility.pipeline import LayerVerdict as LayerVerdict
from forge_tools.visibility.pipeline import PipelineResult as PipelineResult
from forge_tools.visibility.pipeline import ToolHidden as ToolHidden
from forge_tools.visibility.pipeline import ToolVerdict as ToolVerdict

__version__: str
__all__: list[str]
_LAZY: dict[str, tuple[str, str]]
