"""Result-type inference rules of the elementwise ops (upstream's TypeInference.cpp `infer*Op`)."""

from __future__ import annotations
