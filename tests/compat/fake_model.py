"""A stand-in model for recording many opencode tool calls in one opencode process (not run by the
test suite; used by `runtime/generate.py --corpus`).

`opencode debug agent NAME --tool T --params P` runs one call per process, and each process spends
seconds starting; a corpus of thousands of calls cannot be recorded that way on a small machine. So
`opencode run --auto` is pointed at this stand-in, an OpenAI-compatible chat endpoint on 127.0.0.1:
each time opencode asks it for the next step it answers with the next queued tool call, and once the
queue is empty it answers with text, which ends the run. opencode runs each call through its own
permission check: a denied call's result is opencode's refusal text; an `ask` is approved by `--auto`
(opencode logs "asking ... permission=P" first, which `--print-logs` shows); an allowed call just
runs. The next request opencode sends holds the call's result, so the stand-in sees every outcome.

Usage (inside `unshare -rn`, which gives a namespace with only a loopback device):
    python fake_model.py PORT QUEUE.json OUT.json -- opencode run --auto --print-logs ... "go"
OUT.json gets, per queued call, the tools opencode offered at that step, the call's result text,
and the times the call was sent and its result seen (for matching opencode's log lines).
"""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
import time
from typing import Any


class Model:
    def __init__(self, queue: list[list[Any]]) -> None:
        self.queue = queue
        self.sent: list[dict[str, Any]] = []  # per dispatched call: offered tools, times, result
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def step(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunks answering one chat request."""
        now = time.time()
        tools = sorted(t["function"]["name"] for t in body.get("tools") or [])
        results = {m.get("tool_call_id"): m.get("content") for m in body.get("messages", [])
                   if m.get("role") == "tool"}
        with self.lock:
            self.requests.append({"time": now, "tools": tools})
            for number, sent in enumerate(self.sent, 1):
                if sent.get("result") is None and f"call_{number}" in results:
                    content = results[f"call_{number}"]
                    sent["result"] = content if isinstance(content, str) else json.dumps(content)
                    sent["answered"] = now
            if tools and len(self.sent) < len(self.queue):
                tool, params = self.queue[len(self.sent)]
                self.sent.append({"tools": tools, "sent": now, "result": None,
                                  "schemas": {t["function"]["name"]: t["function"]
                                              for t in body.get("tools") or []}
                                  if not self.sent else None})
                call = {"index": 0, "id": f"call_{len(self.sent)}", "type": "function",
                        "function": {"name": tool, "arguments": json.dumps(params)}}
                return [{"delta": {"role": "assistant", "tool_calls": [call]}, "finish_reason": None},
                        {"delta": {}, "finish_reason": "tool_calls"}]
        return [{"delta": {"role": "assistant", "content": "done"}, "finish_reason": None},
                {"delta": {}, "finish_reason": "stop"}]


def serve(port: int, model: Model) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            size = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(size) or b"{}")
            usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
            chunks = model.step(body)
            chunks[-1]["usage"] = usage
            text = "".join(
                "data: " + json.dumps({"id": "x", "object": "chat.completion.chunk", "created": 0,
                                       "model": "m", "choices": [{"index": 0, **chunk}],
                                       **({"usage": chunk.pop("usage")} if "usage" in chunk else {})})
                + "\n\n" for chunk in chunks) + "data: [DONE]\n\n"
            data = text.encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def provider_config(port: int) -> dict[str, Any]:
    """The global opencode config naming the stand-in as the only model (nothing in it is about
    permissions: the project's opencode.json under test holds those)."""
    return {"provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
                                  "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "x"},
                                  "models": {"m": {"name": "m", "tool_call": True,
                                                   "limit": {"context": 1000000, "output": 1000}}}}},
            "model": "fake/m", "small_model": "fake/m",
            "snapshot": False}  # no git snapshot of the project at every step (the time of a corpus)


def main(argv: list[str]) -> int:
    port, queue_file, out_file = int(argv[0]), argv[1], argv[2]
    command = argv[argv.index("--") + 1:]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    with open(queue_file) as handle:
        model = Model(json.load(handle))
    serve(port, model)
    started = time.time()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=1500, check=False)
        code, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as stopped:
        code, out, err = -1, str(stopped.stdout or ""), str(stopped.stderr or "")
    with open(out_file, "w") as handle:
        json.dump({"started": started, "code": code, "stdout": out, "stderr": err,
                   "calls": model.sent, "requests": model.requests}, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
