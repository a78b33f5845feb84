"""forge-tools' own runtime: the answer is the gate's, the one `forge-tools run` enforces."""

from forge_tools.runtimes.forge.runtime import RUNTIME

__all__ = ["RUNTIME"]
