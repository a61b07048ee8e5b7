"""Verifier backends, one file per domain: medical, code, search, gui."""
