"""Seeing a program (issue 27): graph data for Google's Model Explorer (the optional ``viz``
extra) from StableHLO text, artifacts and JAX exports."""
