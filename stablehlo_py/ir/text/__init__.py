"""stablehlo-py."""
