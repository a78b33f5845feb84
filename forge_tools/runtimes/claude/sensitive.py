"""The files Claude Code 2.1.332 will not edit unasked in acceptEdits mode, inside the project too.

A path is sensitive when one of its directories is a tool's or the agent's own configuration
(`.git`, `.vscode`, `.idea`, `.claude`, `.husky`, ...; compared without case), it is under
`.config/git`, or its file name is a shell start-up file, a git, package-manager or build-tool
configuration or an MCP file (`.bashrc`, `.gitconfig`, `.mcp.json`, `.npmrc`, ...), at any depth.
An edit of such a file asks (Write, Edit, and the file commands and redirections of Bash); the
rest of acceptEdits is unchanged. Recorded (tests/compat/claude, `acceptEdits-sensitive`): the
directories `.vscode`, `.idea`, `.git` (hooks, config), `.claude`, `.husky` and `sub/.vscode`; the
files `.bashrc`, `.zshrc`, `.profile`, `.bash_profile`, `.gitconfig`, `.gitmodules`, `.envrc`,
`.npmrc`, `.mcp.json`; `.gitignore`, `.github/`, `.config/x` and `.ssh/config` are not sensitive.
The other names are the binary's list, not each recorded.
"""

from __future__ import annotations

from pathlib import PurePath

DIRECTORIES = frozenset({".git", ".vscode", ".idea", ".claude", ".husky", ".cargo", ".devcontainer",
                         ".yarn", ".mvn"})
FILES = frozenset({
    ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile",
    ".zshenv", ".zlogin", ".zlogout", ".bash_login", ".bash_aliases", ".bash_logout", ".envrc",
    ".ripgreprc", ".mcp.json", ".claude.json", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnp.cjs",
    ".pnp.loader.mjs", ".pnp.js", ".pnp.data.json", ".pnpmfile.cjs", "bunfig.toml", ".bunfig.toml",
    ".bazelrc", ".bazelversion", ".bazeliskrc", ".pre-commit-config.yaml", "lefthook.yml",
    ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml", "gradle-wrapper.properties",
    "maven-wrapper.properties", ".devcontainer.json", "pyrightconfig.json",
})
RECORDED = frozenset({".vscode", ".idea", ".git", ".claude", ".husky", ".bashrc", ".zshrc", ".profile",
                      ".bash_profile", ".gitconfig", ".gitmodules", ".envrc", ".npmrc", ".mcp.json"})


def sensitive(path: PurePath, base: PurePath) -> str | None:
    """The name that makes `path` (below `base`, a working directory) sensitive, or None."""
    try:
        parts = [p.lower() for p in path.relative_to(base).parts]
    except ValueError:
        parts = [p.lower() for p in path.parts]
    for name in parts[:-1]:
        if name in DIRECTORIES:
            return name
    for i in range(len(parts) - 1):
        if parts[i] == ".config" and parts[i + 1] == "git":
            return ".config/git"
    if parts and parts[-1] in FILES:
        return parts[-1]
    if parts and parts[-1] in DIRECTORIES:  # the directory itself (`mkdir .vscode`)
        return parts[-1]
    return None
