"""Per-op traces of an interpreter run and where two runs diverge (issue 27): each op's result
summarized (or recorded), keyed by its location's name stack, compared with another backend or
with a recorded run."""
