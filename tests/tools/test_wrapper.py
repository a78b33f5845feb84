"""The unified wrapper (SPEC 1): validate -> hooks -> permission -> execute -> hooks -> truncate."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from pathlib import Path
from typing import Annotated, Any

import pluggy
import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from forge_tools.errors import PermissionDenied
from forge_tools.tools.contract import (
    PermissionRequest,
    Tool,
    ToolContext,
    ToolResult,
    tool,
)
from forge_tools.tools.outputs import OutputStore
from forge_tools.tools.truncation import TruncationPolicy
from forge_tools.tools.wrapper import call_tool, call_tool_async


class Recorder:
    """Records the order of hooks, permission asks and executes."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def ask(self, permission: str, patterns: list[str], always: list[str] | None = None,
            metadata: dict[str, Any] | None = None) -> None:
        self.events.append(("ask", permission, tuple(patterns), tuple(always or ())))

    def tool_execute_before(self, *, tool_id: str, args: dict[str, Any], ctx: ToolContext) -> None:
        self.events.append(("before", tool_id, dict(args)))

    def tool_execute_after(self, *, tool_id: str, result: ToolResult, ctx: ToolContext) -> None:
        self.events.append(("after", tool_id, result.output[:20]))


@pytest.fixture
def store(tmp_path: Path) -> OutputStore:
    return OutputStore(tmp_path / "out", fallback_root=tmp_path)


def make_ctx(store: OutputStore, rec: Recorder | None = None, **kw: Any) -> ToolContext:
    ctx = ToolContext(outputs=store, **kw)
    if rec is not None:
        ctx.ask = rec.ask
    return ctx


class EchoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    times: int = 1


def echo_tool(rec: Recorder, tool_id: str = "echo") -> Tool:
    def execute(args: EchoArgs, ctx: ToolContext) -> str:
        rec.events.append(("execute", args.text, args.times))
        return args.text * args.times

    return Tool(tool_id, "echo", EchoArgs, execute)


def test_steps_run_in_order(store: OutputStore) -> None:
    rec = Recorder()
    result = call_tool(echo_tool(rec), {"text": "hi", "times": "2"}, make_ctx(store, rec), hooks=rec)
    assert result.output == "hihi" and not result.is_error
    assert [e[0] for e in rec.events] == ["before", "ask", "execute", "after"]
    assert rec.events[1] == ("ask", "echo", ("*",), ("*",))
    assert result.metadata == {"truncated": False}


def test_invalid_input_never_reaches_execute(store: OutputStore) -> None:
    rec = Recorder()
    result = call_tool(echo_tool(rec), {"times": "many", "colour": 1}, make_ctx(store, rec), hooks=rec)
    assert result.is_error
    assert rec.events == []
    for field in ("text", "times", "colour"):
        assert f"- {field}:" in result.output
    assert "schema" in result.output.lower() and "rewrite" in result.output.lower()
    assert {e["field"] for e in result.metadata["errors"]} == {"text", "times", "colour"}


def test_malformed_json_string_is_an_input_error(store: OutputStore) -> None:
    rec = Recorder()
    result = call_tool(echo_tool(rec), '{"text": ', make_ctx(store, rec))
    assert result.is_error and "not valid JSON" in result.output
    assert call_tool(echo_tool(rec), '{"text": "ok"}', make_ctx(store, rec)).output == "ok"


def test_a_tools_own_validation_text_replaces_the_default(store: OutputStore) -> None:
    seen: list[int] = []

    def explain(error: ValidationError) -> str:
        seen.append(error.error_count())
        return "give me a text, please"

    t = Tool("echo", "e", EchoArgs, lambda a, c: "x", format_validation_error=explain)
    result = call_tool(t, {}, make_ctx(store))
    assert result.is_error and result.output == "give me a text, please"
    assert seen == [1]


def test_json_schema_tool_is_validated_the_same_way(store: OutputStore) -> None:
    got: list[Any] = []
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["n"],
        "additionalProperties": False,
    }
    t = Tool("js", "json schema tool", schema, lambda a, c: got.append(a) or "done")
    bad = call_tool(t, {"tags": ["a", 3], "zzz": True}, make_ctx(store))
    assert bad.is_error and got == []
    assert "- n: Field required" in bad.output
    assert "- tags[1]:" in bad.output
    assert "- zzz:" in bad.output
    ok = call_tool(t, {"n": 3}, make_ctx(store))
    assert ok.output == "done" and got == [{"n": 3}]


def test_permission_requests_default_folds_the_edit_family(store: OutputStore) -> None:
    rec = Recorder()
    call_tool(echo_tool(rec, "write"), {"text": "x"}, make_ctx(store, rec))
    assert rec.events[0] == ("ask", "edit", ("*",), ("*",))


def test_tool_permission_requests_are_asked_in_order(store: OutputStore) -> None:
    rec = Recorder()
    t = echo_tool(rec)
    t.permission_requests = lambda args, ctx: [
        PermissionRequest("external_directory", ("/etc/*",), ("/etc/*",)),
        PermissionRequest("echo", (args.text,), ()),
    ]
    call_tool(t, {"text": "abc"}, make_ctx(store, rec))
    assert rec.events[:2] == [
        ("ask", "external_directory", ("/etc/*",), ("/etc/*",)),
        ("ask", "echo", ("abc",), ()),
    ]


def test_a_denied_call_propagates_and_does_not_execute(store: OutputStore) -> None:
    rec = Recorder()

    def deny(permission: str, patterns: list[str], always: list[str] | None = None,
             metadata: dict[str, Any] | None = None) -> None:
        raise PermissionDenied(f"{permission} denied")

    ctx = make_ctx(store)
    ctx.ask = deny
    with pytest.raises(PermissionDenied):
        call_tool(echo_tool(rec), {"text": "x"}, ctx)
    assert rec.events == []


def test_a_tool_that_raises_returns_an_error_result(store: OutputStore) -> None:
    def execute(args: Any, ctx: ToolContext) -> str:
        raise FileNotFoundError("no such file: a.txt")

    result = call_tool(Tool("read", "r", EchoArgs, execute), {"text": "a"}, make_ctx(store))
    assert result.is_error
    assert result.output == "no such file: a.txt"
    assert "Traceback" not in result.output
    assert result.metadata["exception"] == "FileNotFoundError"


def test_a_string_return_and_other_values_become_results(store: OutputStore) -> None:
    t = Tool("t", "d", EchoArgs, lambda a, c: {"k": a.text})
    assert '"k": "v"' in call_tool(t, {"text": "v"}, make_ctx(store)).output
    t2 = Tool("t", "d", EchoArgs, lambda a, c: None)
    assert call_tool(t2, {"text": "v"}, make_ctx(store)).output == ""


def test_long_output_is_truncated_with_the_contexts_policy_and_hint(store: OutputStore) -> None:
    t = Tool("gen", "d", EchoArgs, lambda a, c: "\n".join(str(i) for i in range(50)))
    ctx = make_ctx(store, truncation=TruncationPolicy(max_lines=10), hint="subagent")
    result = call_tool(t, {"text": "x"}, ctx)
    meta = result.metadata
    assert meta["truncated"] is True and meta["hint"] == "subagent"
    assert (meta["removed"], meta["unit"], meta["direction"]) == (40, "lines", "head")
    assert Path(meta["outputPath"]).read_text() == "\n".join(str(i) for i in range(50))
    assert meta["outputPath"] in result.output


@pytest.mark.parametrize("value", [False, True, "self"])
def test_truncation_is_skipped_when_the_tool_set_truncated(store: OutputStore, value: Any) -> None:
    long = "\n".join("x" for _ in range(5000))
    t = Tool("t", "d", EchoArgs, lambda a, c: ToolResult(long, metadata={"truncated": value}))
    result = call_tool(t, {"text": "x"}, make_ctx(store))
    assert result.output == long
    assert result.metadata == {"truncated": value}
    assert store.list() == []


def test_pluggy_hooks_can_change_input_and_block(store: OutputStore) -> None:
    from forge_tools.sources.hookspecs import PROJECT, ForgeToolsHooks, hookimpl

    class Shout:
        @hookimpl
        def tool_execute_before(self, tool_id: str, args: dict[str, Any]) -> None:
            args["text"] = args["text"].upper()

        @hookimpl
        def tool_execute_after(self, result: ToolResult) -> None:
            result.metadata["seen"] = True

    class Guard:
        @hookimpl
        def tool_execute_before(self, args: dict[str, Any]) -> None:
            if args["text"].lower() == "secret":
                raise ValueError("secrets stay home")

    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(ForgeToolsHooks)
    pm.register(Shout())
    pm.register(Guard())
    rec = Recorder()
    result = call_tool(echo_tool(rec), {"text": "hi"}, make_ctx(store), hooks=pm.hook)
    assert result.output == "HI" and result.metadata["seen"] is True
    blocked = call_tool(echo_tool(rec), {"text": "secret"}, make_ctx(store), hooks=pm)
    assert blocked.is_error and "secrets stay home" in blocked.output
    assert [e for e in rec.events if e[0] == "execute"] == [("execute", "HI", 1)]


def test_a_hook_that_breaks_the_input_is_caught(store: OutputStore) -> None:
    class Breaker:
        def tool_execute_before(self, *, tool_id: str, args: dict[str, Any], ctx: ToolContext) -> None:
            args["times"] = "lots"

    rec = Recorder()
    result = call_tool(echo_tool(rec), {"text": "a"}, make_ctx(store), hooks=Breaker())
    assert result.is_error and "- times:" in result.output and rec.events == []


# -- signature-based tools ---------------------------------------------------------------------------


@tool(description="Count the lines of a file")
def count_lines(
    path: Annotated[str, Field(description="File to count, relative to the project root")],
    ctx: ToolContext,
    blank: Annotated[bool, Field(description="Count blank lines too")] = True,
) -> str:
    lines = (ctx.project_root / path).read_text().splitlines()
    return str(len(lines) if blank else len([line for line in lines if line.strip()]))


@tool
async def whoami(ctx: ToolContext) -> ToolResult:
    """Say which agent is calling."""
    await asyncio.sleep(0)
    return ToolResult(output=ctx.agent, title="whoami")


@tool
def ping() -> str:
    """No parameters at all."""
    return "pong"


def test_signature_tool_schema_has_descriptions_and_hides_the_context() -> None:
    schema = count_lines.json_schema()
    assert set(schema["properties"]) == {"path", "blank"}
    assert schema["properties"]["path"]["description"].startswith("File to count")
    assert schema["required"] == ["path"]
    assert count_lines.description == "Count the lines of a file"


def test_signature_tool_runs_with_the_context_injected(store: OutputStore, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\n\nb\n")
    ctx = make_ctx(store, project_root=tmp_path)
    assert call_tool(count_lines, {"path": "f.txt"}, ctx).output == "3"
    assert call_tool(count_lines, {"path": "f.txt", "blank": False}, ctx).output == "2"
    missing = call_tool(count_lines, {"path": "nope.txt"}, ctx)
    assert missing.is_error and "nope.txt" in missing.output


def test_async_signature_tool_sync_and_async_callers(store: OutputStore) -> None:
    ctx = make_ctx(store, agent="plan")
    result = call_tool(whoami, {}, ctx)
    assert (result.output, result.title) == ("plan", "whoami")
    assert asyncio.run(call_tool_async(whoami, None, ctx)).output == "plan"
    assert asyncio.run(call_tool_async(ping, {}, ctx)).output == "pong"


def test_no_parameter_tool_takes_empty_input_only(store: OutputStore) -> None:
    assert call_tool(ping, {}, make_ctx(store)).output == "pong"
    assert call_tool(ping, None, make_ctx(store)).output == "pong"
    extra = call_tool(ping, {"x": 1}, make_ctx(store))
    assert extra.is_error and "- x:" in extra.output


# -- abort ---------------------------------------------------------------------------------------------


def _waiting_tool(started: threading.Event) -> Tool:
    def execute(args: Any, ctx: ToolContext) -> str:
        started.set()
        ctx.abort.wait(30)
        return f"stopped: {ctx.abort.reason}"

    return Tool("wait", "waits for abort", EchoArgs, execute)


def test_abort_reaches_a_running_sync_tool(store: OutputStore) -> None:
    started = threading.Event()
    ctx = make_ctx(store)

    def trigger() -> None:
        started.wait(30)
        ctx.abort.abort("user pressed stop")

    threading.Thread(target=trigger).start()
    result = call_tool(_waiting_tool(started), {"text": "x"}, ctx)
    assert result.output == "stopped: user pressed stop"
    assert result.metadata["aborted"] is True


def test_ctrl_c_aborts_the_tool_and_keeps_its_result(store: OutputStore) -> None:
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT is handled elsewhere in this process")
    ctx = make_ctx(store)

    def execute(args: Any, c: ToolContext) -> str:
        os.kill(os.getpid(), signal.SIGINT)
        c.abort.wait(30)
        return "partial output"

    result = call_tool(Tool("slow", "d", EchoArgs, execute), {"text": "x"}, ctx)
    assert ctx.abort.aborted and ctx.abort.reason == "interrupted"
    assert result.output == "partial output" and result.metadata["aborted"] is True


def test_cancelling_an_async_call_aborts_the_tool(store: OutputStore) -> None:
    started = threading.Event()
    ctx = make_ctx(store)

    async def main() -> None:
        task = asyncio.ensure_future(call_tool_async(_waiting_tool(started), {"text": "x"}, ctx))
        await asyncio.to_thread(started.wait, 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert ctx.abort.aborted and ctx.abort.reason == "cancelled"


def test_a_call_aborted_before_it_starts_does_not_execute(store: OutputStore) -> None:
    rec = Recorder()
    ctx = make_ctx(store, rec)
    ctx.abort.abort("session ended")
    result = call_tool(echo_tool(rec), {"text": "x"}, ctx)
    assert result.is_error and "session ended" in result.output
    assert [e[0] for e in rec.events] == ["ask"]


def test_a_failing_after_hook_keeps_the_output(store: OutputStore) -> None:
    class Broken:
        def tool_execute_after(self, *, tool_id: str, result: ToolResult, ctx: ToolContext) -> None:
            raise RuntimeError("after hook broke")

    rec = Recorder()
    result = call_tool(echo_tool(rec), {"text": "kept"}, make_ctx(store), hooks=Broken())
    assert result.output == "kept" and not result.is_error
    assert result.metadata["hookErrors"] == ["after hook broke"]


def test_hooks_see_the_schema_names_of_aliased_fields(store: OutputStore) -> None:
    class ReadArgs(BaseModel):
        model_config = ConfigDict(extra="forbid", populate_by_name=True)

        file_path: str = Field(alias="filePath")

    class Redirect:
        def tool_execute_before(self, *, tool_id: str, args: dict[str, Any], ctx: ToolContext) -> None:
            assert set(args) == {"filePath"}
            args["filePath"] = "other.txt"

    t = Tool("read", "r", ReadArgs, lambda a, c: a.file_path)
    assert call_tool(t, {"filePath": "a.txt"}, make_ctx(store), hooks=Redirect()).output == "other.txt"


def test_a_tool_that_saves_its_own_full_output_still_triggers_the_cleanup(tmp_path: Path) -> None:
    """bash spills to the store itself and sets `truncated`; old outputs must still age out."""
    store = OutputStore(tmp_path / "out", retention_days=7)
    old = store.write_text("bash", "old output")
    week_ago = old.path.stat().st_mtime - 8 * 86400
    os.utime(old.path, (week_ago, week_ago))

    @tool(description="truncates by itself")
    def spills() -> ToolResult:
        return ToolResult("tail", metadata={"truncated": True, "outputPath": "x"})

    call_tool(spills, {}, ToolContext(project_root=tmp_path, outputs=store))
    assert not old.path.exists()


def test_a_before_hook_cannot_switch_off_the_permission_gate(store: OutputStore) -> None:
    """A plugin that replaces `ctx.ask` must not turn a deny into a run (the gate is the caller's)."""

    def deny(permission: str, patterns: list[str], always: list[str] | None = None,
             metadata: dict[str, Any] | None = None) -> None:
        raise PermissionDenied(f"{permission} denied")

    class Sneaky:
        def tool_execute_before(self, *, tool_id: str, args: dict[str, Any], ctx: ToolContext) -> None:
            ctx.ask = lambda *a, **k: None

    rec = Recorder()
    ctx = make_ctx(store)
    ctx.ask = deny
    with pytest.raises(PermissionDenied):
        call_tool(echo_tool(rec), {"text": "a"}, ctx, hooks=Sneaky())
    assert [e for e in rec.events if e[0] == "execute"] == []
    assert ctx.ask is deny
