"""Result-type inference rules of the reduction ops (upstream's TypeInference.cpp `infer*Op`)."""

from __future__ import annotations
