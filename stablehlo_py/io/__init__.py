"""Arrays in and out of programs as files (issue 27): ``--args=@file``, ``.npy``/``.npz`` inputs
by position or argument name, probe directories read back, results written to ``.npz``/``.npy``.

    load_inputs(path_or_paths, func_or_module, entry="main") -> list[numpy.ndarray]
    save_results(path, results, names=None)
    save_inputs(path, arrays)                  # arg0, arg1, ... as --inputs reads them
    load_results(path) -> list[numpy.ndarray]
    read_probes(directory, iteration=0) -> {probe_id: numpy.ndarray}

This package sits above the interpreter (it reads the interpreter's storage table and value
checks); the interpreter never imports it.
"""

from stablehlo_py.io.args import load_inputs
from stablehlo_py.io.errors import InputError, OutputError
from stablehlo_py.io.probes import read_probes
from stablehlo_py.io.results import load_results, save_inputs, save_results

__all__ = [
    "InputError",
    "OutputError",
    "load_inputs",
    "load_results",
    "read_probes",
    "save_inputs",
    "save_results",
]
