"""Result-type inference rules of the data movement ops (upstream's TypeInference.cpp `infer*Op`)."""

from __future__ import annotations
