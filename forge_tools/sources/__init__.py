"""The three registration sources of candidate tools (SPEC 2): builtins, config-dir scripts, plugins."""
