"""Renderers: text (rich), concise, json, github, sarif, junit, gitlab. JSON never goes through rich."""
