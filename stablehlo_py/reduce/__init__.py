"""Delta debugging for StableHLO programs (issue 27): shrink a program while an interestingness
test keeps holding, every candidate a verified program."""
