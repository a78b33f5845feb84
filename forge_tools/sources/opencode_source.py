"""opencode's TypeScript/JavaScript script tools as a source (`tools.contract.Source`), between forge's
Python scripts and the plugins. The reader (`opencode_scripts.py`, and tree-sitter with it) is imported
only when a config dir has such a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_tools.sources.scripts import OPENCODE_SUFFIXES, script_files

if TYPE_CHECKING:
    from forge_tools.tools.contract import Listing, SourceQuery


class OpencodeScriptSource:
    """opencode's `tool(s)/*.ts|.js` files. They are read from their syntax tree, never run, so `scan`
    and `load` give the same answer (tools that show what is known and refuse to run, see
    `opencode_scripts.opencode_tool`); an unreadable file is a problem located in it."""

    name = "opencode-scripts"

    def scan(self, query: SourceQuery) -> Listing:
        from forge_tools.tools.contract import Listing

        if not script_files(query.config_dirs, OPENCODE_SUFFIXES):
            return Listing()
        from forge_tools.sources.candidates import script_problem
        from forge_tools.sources.opencode_scripts import opencode_tool, scan_opencode_scripts
        from forge_tools.tools.contract import Listed

        found = scan_opencode_scripts(query.config_dirs)
        tools = [opencode_tool(t) for t in found.tools]
        return Listing([Listed(t.id, t, t.source) for t in tools],
                       [script_problem(p.message, str(p.path), p.line, column=p.column)
                        for p in found.problems])

    def load(self, query: SourceQuery) -> Listing:
        return self.scan(query)


SOURCE = OpencodeScriptSource()
