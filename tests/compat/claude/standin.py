"""A loopback stand-in for the Anthropic Messages API, for recording Claude Code's answers.

Run by record.py inside a private network namespace (``unshare -n``), never by the test suite.
Claude Code is pointed at it with ``ANTHROPIC_BASE_URL``. For a conversation whose request offers
tools it answers, turn by turn, with the next scripted ``tool_use`` block (turn n = the number of
``tool_result`` blocks already in the conversation), then with a final text and ``end_turn``.
Requests without tools (side queries such as a title) get a short text. Every request's tool names
and every request path are logged so the recorder can report what the model was offered.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Script:
    """The tool calls of one run and what the stand-in saw of it."""

    def __init__(self, calls: list[dict[str, Any]], first_delay: float = 0.0,
                 on_turn: Callable[[int], None] | None = None) -> None:
        self.calls = calls
        # called with turn n (n tool results are back, call n-1 has run) before the stand-in
        # answers: the recorder observes a call's effects there in a one-session recording
        self.on_turn = on_turn
        self.turns_seen: set[int] = set()
        # seconds to hold the first tool_use back: MCP servers connect in the background, and a
        # call that arrives before its server did gets "No such tool available"
        self.first_delay = first_delay
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []  # {"path", "tools": [names] | None, "turn"}
        self.api_tools: list[str] | None = None  # tools of the first request that offered any
        self.last_api_tools: list[str] | None = None  # ... and of the last one
        self.tool_results: list[Any] = []


def _count_tool_results(messages: list[dict[str, Any]]) -> tuple[int, list[Any]]:
    results: list[Any] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results.append(block)
    return len(results), results


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _message(msg_id: str, model: str, content: list[dict[str, Any]], stop: str | None) -> dict[str, Any]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


class _Handler(BaseHTTPRequestHandler):
    server_version = "standin/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    @property
    def script(self) -> Script | None:
        return self.server.script  # type: ignore[attr-defined]

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        self._note(None, None)
        self._send_json(200, {"data": [], "has_more": False})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def _note(self, tools: list[str] | None, turn: int | None) -> None:
        script = self.script
        if script is not None:
            with script.lock:
                script.requests.append({"method": self.command, "path": self.path,
                                        "tools": tools, "turn": turn})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?", 1)[0]
        if path.endswith("/count_tokens"):
            self._note(None, None)
            self._send_json(200, {"input_tokens": 100})
            return
        if not path.endswith("/v1/messages"):
            self._note(None, None)
            self._send_json(200, {})
            return
        tools = body.get("tools")
        names = ([str(t.get("name")) for t in tools if isinstance(t, dict)]
                 if isinstance(tools, list) else None)
        model = str(body.get("model") or "claude-standin")
        script = self.script
        turn, results = _count_tool_results(body.get("messages") or [])
        self._note(names, turn)
        content: list[dict[str, Any]]
        if names and script is not None:
            with script.lock:
                if script.api_tools is None:
                    script.api_tools = names
                script.last_api_tools = names
                if len(results) > len(script.tool_results):
                    script.tool_results = results
            if script.on_turn is not None and turn not in script.turns_seen:
                script.turns_seen.add(turn)
                script.on_turn(turn)
            if turn == 0 and script.first_delay:
                time.sleep(script.first_delay)
            if turn < len(script.calls):
                call = script.calls[turn]
                content = [{"type": "tool_use", "id": f"toolu_standin_{turn:03d}",
                            "name": call["tool"], "input": call["input"]}]
                stop = "tool_use"
            else:
                content = [{"type": "text", "text": "done"}]
                stop = "end_turn"
        else:
            content = [{"type": "text", "text": "ok"}]
            stop = "end_turn"
        msg_id = f"msg_standin_{turn:03d}"
        if not body.get("stream"):
            self._send_json(200, _message(msg_id, model, content, stop))
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        out = [_sse("message_start", {"type": "message_start", "message": _message(msg_id, model, [], None)})]
        for index, block in enumerate(content):
            if block["type"] == "tool_use":
                start = dict(block, input={})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            out.append(_sse("content_block_start", {"type": "content_block_start", "index": index,
                                                    "content_block": start}))
            out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                    "delta": delta}))
            out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        out.append(_sse("message_delta", {"type": "message_delta",
                                          "delta": {"stop_reason": stop, "stop_sequence": None},
                                          "usage": {"output_tokens": 5}}))
        out.append(_sse("message_stop", {"type": "message_stop"}))
        self.wfile.write(b"".join(out))
        self.wfile.flush()
        self.close_connection = True


class StandIn:
    """The server; ``script`` is swapped per run."""

    def __init__(self, port: int = 0) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.script = None  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def start(self) -> StandIn:
        self.thread.start()
        return self

    def use(self, script: Script | None) -> None:
        self.httpd.script = script  # type: ignore[attr-defined]

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
