"""Result-type inference rules of the control flow ops (upstream's TypeInference.cpp `infer*Op`)."""

from __future__ import annotations
