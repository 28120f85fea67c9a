"""Interpreter impls, one module per op family; each registers itself with `registry.impl`."""
