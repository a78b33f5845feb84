"""Renderers: text (rich), json, github, sarif. JSON never goes through rich."""
