"""Arrays in and out of programs as files (issue 27): ``--args=@file``, ``.npy``/``.npz`` inputs
by position or argument name, results written to ``.npz``, probe directories read back."""
