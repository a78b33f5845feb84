"""webfetch against a local http.server: conversion, the 5 MB caps, timeouts, errors, URL checks."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import ValidationError

from forge_tools.tools.builtins import webfetch

PAGE = b"""<!doctype html><html><head><title>T</title><style>.x{color:red}</style></head>
<body><h1>Hello</h1><script>alert('no')</script><p>Some <b>bold</b> text and a
<a href="https://example.org/">link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>"""


#: a comment that looks like a script start: a regex-and-handler converter lost the text after it
TRICKY = b"<!-- <script> --><p>keep me</p><script>x</script><p>and me</p>"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, code: int, ctype: str, body: bytes, length: int | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up first
            self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/page":
            self._send(200, "text/html; charset=utf-8", PAGE)
        elif self.path == "/plain":
            self._send(200, "text/plain; charset=latin-1", "caf\xe9\n".encode("latin-1"))
        elif self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/plain")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/declared-big":
            self._send(200, "text/plain", b"x" * 10, length=6 * 1024 * 1024)
        elif self.path == "/streamed-big":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()  # no length: HTTP/1.0 style, ends when the connection closes
            try:
                for _ in range(6 * 16):
                    self.wfile.write(b"y" * 65536)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif self.path == "/slow":
            time.sleep(1.5)
            self._send(200, "text/plain", b"late")
        elif self.path == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                for _ in range(20):  # one byte every 0.1 s: each read is quick, the whole is not
                    self.wfile.write(b"z")
                    self.wfile.flush()
                    time.sleep(0.1)
        elif self.path == "/tricky":
            self._send(200, "text/html", TRICKY)
        elif self.path == "/image":
            self._send(200, "image/png", b"\x89PNG\r\n\x1a\n\0\0")
        else:
            self._send(404, "text/plain", b"nope")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


def test_html_to_markdown(call: Any, server: str) -> None:
    result = call(webfetch.TOOL, url=f"{server}/page")
    assert not result.is_error
    assert "# Hello" in result.output and "**bold**" in result.output
    assert "[link](https://example.org/)" in result.output and "* one" in result.output
    assert "alert" not in result.output and "color:red" not in result.output


def test_text_and_html_formats(call: Any, server: str) -> None:
    text = call(webfetch.TOOL, url=f"{server}/page", format="text").output
    assert "Hello" in text and "Some bold text" in text and "<" not in text and "alert" not in text
    html = call(webfetch.TOOL, url=f"{server}/page", format="html").output
    assert html == PAGE.decode()


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_comment_with_a_script_tag_keeps_the_text_after_it(call: Any, server: str, fmt: str) -> None:
    output = call(webfetch.TOOL, url=f"{server}/tricky", format=fmt).output
    assert output.split() == ["keep", "me", "and", "me"]


def test_conversions_on_broken_markup() -> None:
    page = "<div>a<p>one<p>two</div><!--gone--><style>p{}</style>b &amp; c<br>d<pre>  x  </pre>"
    lines = [line for line in webfetch.html_to_text(page).splitlines() if line]
    assert lines == ["a", "one", "two", "b & c", "d", "x"]
    markdown = webfetch.html_to_markdown(page)
    assert "gone" not in markdown and "p{}" not in markdown and "b & c" in markdown


def test_charset_and_redirect(call: Any, server: str) -> None:
    result = call(webfetch.TOOL, url=f"{server}/redirect")
    assert result.output == "café\n" and result.metadata["url"].endswith("/plain")


def test_size_limits(call: Any, server: str) -> None:
    declared = call(webfetch.TOOL, url=f"{server}/declared-big")
    assert declared.is_error and "5 MB" in declared.output
    streamed = call(webfetch.TOOL, url=f"{server}/streamed-big")
    assert streamed.is_error and "more than 5 MB" in streamed.output


def test_timeout(call: Any, server: str) -> None:
    result = call(webfetch.TOOL, url=f"{server}/slow", timeout=0.3)
    assert result.is_error and "timed out" in result.output


def test_timeout_is_for_the_whole_fetch(call: Any, server: str) -> None:
    result = call(webfetch.TOOL, url=f"{server}/drip", timeout=0.4)
    assert result.is_error and "timed out" in result.output


def test_context_timeout_overrides_argument(ctx: Any, server: str) -> None:
    ctx.timeout = 0.3
    result = webfetch.execute(webfetch.WebFetchArgs(url=f"{server}/slow", timeout=60), ctx)
    assert result.is_error and "timed out after 0.3 s" in result.output


def test_http_error_and_binary(call: Any, server: str) -> None:
    missing = call(webfetch.TOOL, url=f"{server}/missing")
    assert missing.is_error and "404" in missing.output
    image = call(webfetch.TOOL, url=f"{server}/image")
    assert image.is_error and "image/png" in image.output


def test_connection_refused(call: Any) -> None:
    result = call(webfetch.TOOL, url="http://127.0.0.1:9/", timeout=2)
    assert result.is_error and "failed" in result.output


@pytest.mark.parametrize(
    "raw", [{"url": "file:///etc/passwd"}, {"url": "ftp://x/"}, {"url": "example.com"},
            {"url": "http://x/", "timeout": 500}, {"url": "http://x/", "format": "pdf"}])
def test_rejected_arguments(raw: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        webfetch.WebFetchArgs.model_validate(raw)


def test_permission_pattern_is_the_url(reqs: Any) -> None:
    url = "https://example.com/a?b=1"
    assert reqs(webfetch.TOOL, url=url) == [("webfetch", (url,))]
