"""The tool contract, the wrapper (validate -> execute -> truncate), truncation and the builtins (SPEC 1, 5).

Import the submodules directly (`forge_tools.tools.wrapper` ...); this package stays empty so
importing one piece does not pull in the others.
"""
