"""`webfetch`: fetch one http(s) URL and return it as markdown, text or HTML (SPEC 5.4 caps).

Responses over 5 MB are refused, by their declared length before reading and by counting while
streaming (a server may not declare one); the timeout is 30 s by default and 120 s at most. HTML is
parsed once by BeautifulSoup; scripts, styles, comments and other parts that carry no reading text
are removed from the tree before it becomes text or markdown (markdownify).
"""

from __future__ import annotations

import time
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from forge_tools.tools.builtins import requests
from forge_tools.tools.builtins._arg_checks import http_url
from forge_tools.tools.contract import Tool, ToolContext, ToolResult

MAX_BYTES = 5 * 1024 * 1024
DEFAULT_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 120.0
USER_AGENT = "forge-tools/0.1 (webfetch)"

DESCRIPTION = """Fetch a web page or file over http(s) and return its content.

- `url`: a complete http:// or https:// URL.
- `format`: `markdown` (default; HTML is converted), `text` (HTML reduced to its text) or `html` (as
  received).
- `timeout`: seconds to wait, default 30, at most 120.
- Responses larger than 5 MB are refused. The fetch is read-only; it follows redirects.
- Long pages are cut; the complete text is saved to a file whose path is given."""


class WebFetchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    url: Annotated[str, AfterValidator(http_url),
                   Field(description="The http:// or https:// URL to fetch.")]
    format: Annotated[
        Literal["text", "markdown", "html"], Field(description="Output form (default markdown).")
    ] = "markdown"
    timeout: Annotated[
        float | None, Field(gt=0, le=MAX_TIMEOUT_S, description="Timeout in seconds (default 30, max 120).")
    ] = None


def html_to_text(html: str) -> str:
    """The reading text of an HTML page (BeautifulSoup, imported only when a page is fetched)."""
    from forge_tools.tools.builtins._html import html_to_text as convert

    return convert(html)


def html_to_markdown(html: str) -> str:
    """The page as markdown with ATX headings (BeautifulSoup + markdownify, imported on use)."""
    from forge_tools.tools.builtins._html import html_to_markdown as convert

    return convert(html)


def _error(message: str, url: str) -> ToolResult:
    return ToolResult(message, title=url, metadata={"truncated": False}, is_error=True)


def execute(args: WebFetchArgs, ctx: ToolContext) -> ToolResult:
    import httpx

    if ctx.timeout is not None:  # the caller's explicit limit (`run --timeout`) wins, as in bash
        timeout = float(ctx.timeout)
    else:
        timeout = min(args.timeout or DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S)
    accept = {
        "markdown": "text/markdown;q=1.0, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1",
        "text": "text/plain;q=1.0, text/html;q=0.9, */*;q=0.1",
        "html": "text/html;q=1.0, application/xhtml+xml;q=0.9, */*;q=0.1",
    }[args.format]
    headers = {"User-Agent": USER_AGENT, "Accept": accept}
    deadline = time.monotonic() + timeout
    try:
        with httpx.Client(follow_redirects=True, timeout=timeout, headers=headers) as client, \
                client.stream("GET", args.url) as response:
            if response.status_code >= 400:
                return _error(f"{args.url} answered with HTTP {response.status_code} "
                              f"{response.reason_phrase}.", args.url)
            declared = response.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > MAX_BYTES:
                return _error(f"{args.url} is {int(declared)} bytes, over the 5 MB limit; not fetched.",
                              args.url)
            body = bytearray()
            for chunk in response.iter_bytes():
                if ctx.abort.aborted:
                    return _error(f"fetching {args.url} was aborted.", args.url)
                if time.monotonic() > deadline:  # httpx's timeout is per read; a slow drip passes it
                    raise httpx.ReadTimeout("the whole fetch took too long")
                body += chunk
                if len(body) > MAX_BYTES:
                    return _error(f"{args.url} sent more than 5 MB; the fetch was stopped.", args.url)
            content_type = response.headers.get("content-type", "")
            encoding = response.encoding or "utf-8"
            final_url = str(response.url)
    except httpx.TimeoutException:
        return _error(f"fetching {args.url} timed out after {timeout:g} s.", args.url)
    except httpx.HTTPError as exc:
        return _error(f"fetching {args.url} failed: {exc}", args.url)
    mime = content_type.split(";")[0].strip().lower()
    raw = bytes(body)
    textual = mime.startswith("text/") or mime in ("", "application/json", "application/xml",
                                                   "application/xhtml+xml", "application/javascript")
    if not textual or b"\0" in raw[:4096]:
        return _error(f"{args.url} returned {mime or 'binary data'}, not text; webfetch only returns text.",
                      args.url)
    try:
        text = raw.decode(encoding, "replace")
    except LookupError:
        text = raw.decode("utf-8", "replace")
    is_html = mime in ("text/html", "application/xhtml+xml") or (
        not mime and text.lstrip()[:15].lower().startswith(("<!doctype html", "<html")))
    if is_html and args.format == "markdown":
        text = html_to_markdown(text)
    elif is_html and args.format == "text":
        text = html_to_text(text)
    metadata = {"url": final_url, "contentType": content_type, "bytes": len(raw), "format": args.format}
    return ToolResult(text, title=f"{final_url} ({content_type or 'unknown type'})", metadata=metadata)


TOOL = Tool(
    id="webfetch",
    description=DESCRIPTION,
    parameters=WebFetchArgs,
    execute=execute,
    permission_requests=requests.webfetch,
)
