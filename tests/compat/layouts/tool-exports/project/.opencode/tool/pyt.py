from forge_tools import tool


@tool
def pyt() -> str:
    """A Python tool in an opencode dir (opencode does not list it)."""
    return "hi"
