"""Permission rules, wildcard matching, evaluation, agents' rulesets and the ask gate (SPEC 3.3, 4).

Import the submodules directly (`forge_tools.permission.evaluate` ...); this package stays empty so
importing one piece does not pull in the others.
"""
