"""Thin typer layer: one module per command; each parses, calls the core, renders, returns an exit code."""
