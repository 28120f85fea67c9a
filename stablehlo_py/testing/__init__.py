"""Testing programs with pytest (issue 27): ``assert_matches`` against a backend or a recorded
run, fixtures, and a marker for ``// RUN:``-style conformance files."""
