"""Complex log_plus_one is upstream's `std::log(1.0 + z)`: C++'s real + complex adds to the real
part only, so the imaginary part's sign of zero survives and picks the side of the branch cut."""

import numpy as np
import pytest
from stablehlo_py.semantics.elementwise import log_plus_one


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_branch_cut_side_follows_the_sign_of_zero(dtype: type) -> None:
    below, above = log_plus_one(np.array([complex(-2, -0.0), complex(-2, 0.0)], dtype))
    assert below.imag == pytest.approx(-np.pi, rel=1e-6)
    assert above.imag == pytest.approx(np.pi, rel=1e-6)
    assert below.real == pytest.approx(0.0, abs=1e-6)
