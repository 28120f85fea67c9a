"""Tests that kill mutants which survived the focused suites (docs/MUTATION.md)."""
