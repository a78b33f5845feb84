"""Which permissions each builtin's call needs, apart from the tools themselves (SPEC 4.4): the
`permission_requests` of read, edit, write, glob, grep, list, webfetch and bash, importable without
pydantic or the tools' runners, so a decision that runs nothing (`forge-tools hook`) stays cheap.
`args` is anything with the tool's argument attributes (its pydantic model, or a namespace).

`REQUESTS` names, per tool id, the function and the arguments it reads (required, optional).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from forge_tools.permission.calls import PermissionRequest
from forge_tools.tools.builtins._common import external_request, posix, read_request, resolve_path

if TYPE_CHECKING:
    from forge_tools.tools.context import ToolContext

Requests = Callable[[Any, "ToolContext"], list[PermissionRequest]]


def read(args: Any, ctx: ToolContext) -> list[PermissionRequest]:
    """`read` is checked against the path relative to the project root (`../x` outside it), as
    opencode 1.18.33 does (SPEC 4.4): an absolute or `~/` pattern never matches; `check` says so
    (FT113). Outside the root, `external_directory` is asked first."""
    path = resolve_path(args.filePath, ctx)
    return [*external_request(path, ctx, is_dir=path.is_dir()), read_request(path, ctx)]


def edit(args: Any, ctx: ToolContext) -> list[PermissionRequest]:
    """`edit` and `write`: the file's `edit` pattern (and `external_directory` outside the root)."""
    from forge_tools.tools.builtins._common import edit_requests

    return edit_requests(resolve_path(args.filePath, ctx), ctx)


def glob(args: Any, ctx: ToolContext) -> list[PermissionRequest]:
    root = resolve_path(args.path, ctx)
    return [*external_request(root, ctx, is_dir=True),
            PermissionRequest("glob", (args.pattern,), (args.pattern,))]


def grep(args: Any, ctx: ToolContext) -> list[PermissionRequest]:
    root = resolve_path(args.path, ctx)
    return [*external_request(root, ctx, is_dir=root.is_dir()),
            PermissionRequest("grep", (args.pattern,), (args.pattern,))]


def list_dir(args: Any, ctx: ToolContext) -> list[PermissionRequest]:
    path = resolve_path(args.path, ctx)
    pattern = posix(path)
    return [*external_request(path, ctx, is_dir=True), PermissionRequest("list", (pattern,), (pattern,))]


def webfetch(args: Any, ctx: ToolContext) -> list[PermissionRequest]:
    return [PermissionRequest("webfetch", (args.url,), (args.url,))]


def bash(args: Any, ctx: ToolContext) -> list[PermissionRequest]:
    from forge_tools.tools.builtins.bash_requests import permission_requests

    return permission_requests(args, ctx)


#: tool id -> (its requests, required string arguments, optional arguments)
REQUESTS: dict[str, tuple[Requests, tuple[str, ...], tuple[str, ...]]] = {
    "bash": (bash, ("command",), ("workdir",)),
    "read": (read, ("filePath",), ()),
    "edit": (edit, ("filePath",), ()),
    "write": (edit, ("filePath",), ()),
    "glob": (glob, ("pattern",), ("path",)),
    "grep": (grep, ("pattern",), ("path",)),
    "list": (list_dir, (), ("path",)),
    "webfetch": (webfetch, ("url",), ()),
}
