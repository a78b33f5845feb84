"""The stdio transport to a local MCP server: newline-delimited JSON-RPC over the server's stdin/stdout.

The `mcp` SDK's own `stdio_client` (2.3) joins every 64 KiB chunk it reads to the part of the line it
has buffered so far and splits the whole again, so one message of N bytes costs O(N**2): a 4 MB tool
result took seconds, 100 MB minutes. Here a line grows in one buffer, each chunk is searched for a
newline once, and the line is parsed as it stands when its newline arrives: reading costs O(N).
Messages are the SDK's own (`SessionMessage`, parsed by its JSON-RPC adapter) and the streams are what
`ClientSession` takes; the server runs in its own process group and is stopped as the SDK stops it:
stdin closed, then SIGTERM to the group, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, TextIO

#: bytes asked of the pipe per read (the SDK reads 64 KiB)
READ_SIZE = 1 << 20
#: seconds a server may take to exit after its stdin closes, then after SIGTERM
EXIT_GRACE_S = 2.0


@contextlib.asynccontextmanager
async def stdio_streams(command: str, args: list[str], env: Mapping[str, str], cwd: Path,
                        errlog: TextIO) -> AsyncIterator[tuple[Any, Any]]:
    """Start the server and yield (read stream, write stream) for `mcp.ClientSession`; on exit the
    server is stopped (also when the caller is cancelled)."""
    import anyio
    import anyio.lowlevel
    from mcp.shared.message import SessionMessage

    process = await anyio.open_process([command, *args], env=dict(env), cwd=cwd, stderr=errlog,
                                       start_new_session=True)
    to_session, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        line = bytearray()  # grows in place (amortised linear); parsed as it is, with no joined copy
        delivering = True
        async with to_session:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError,
                                     OSError):
                while True:
                    chunk = await process.stdout.receive(READ_SIZE)
                    if not delivering:
                        continue  # the session is gone: drain, so a server blocked on a full pipe can exit
                    start = 0
                    while (end := chunk.find(b"\n", start)) != -1:
                        line += memoryview(chunk)[start:end]
                        start = end + 1
                        message = _parse(line) if line.strip() else None
                        line = bytearray()
                        if message is None:
                            continue
                        try:
                            await to_session.send(message)
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                            delivering = False
                            break
                    if delivering and start < len(chunk):
                        line += memoryview(chunk)[start:]

    async def writer() -> None:
        assert process.stdin is not None
        try:
            async with from_session:
                async for message in from_session:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(text.encode("utf-8") + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()  # the server stopped reading: the session sees the end

    async with anyio.create_task_group() as group:
        group.start_soon(reader)
        group.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                await _stop(process)
                for stream in (read_stream, write_stream, to_session, from_session):
                    await stream.aclose()
            group.cancel_scope.cancel()


def _parse(line: bytearray) -> Any:
    """One JSON-RPC message, or the parse error as a value (the session reports it), as the SDK does."""
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def _stop(process: Any) -> None:
    """Close stdin and give the server `EXIT_GRACE_S` to exit, then SIGTERM its process group, then
    SIGKILL it; the pipes are closed last (a child that kept them open cannot hold the transport)."""
    import anyio

    for stream in (process.stdin,):
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await stream.aclose()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
        if await _exited(process, EXIT_GRACE_S):
            break
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # what the server started and left behind
    for stream in (process.stdout,):
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await stream.aclose()


async def _exited(process: Any, seconds: float) -> bool:
    """Whether the process exits within `seconds` (its return code polled: `wait()` would also wait
    for the pipes, which a child of the server may hold)."""
    import anyio

    deadline = anyio.current_time() + seconds
    while process.returncode is None:
        if anyio.current_time() >= deadline:
            return False
        await anyio.sleep(0.02)
    return True
