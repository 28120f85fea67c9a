"""Per-op traces of an interpreter run and where two runs diverge (issue 27): each op's result
summarized (or recorded), keyed by its location's name stack, compared with another backend or
with a recorded run.

    from stablehlo_py.interpreter import run
    from stablehlo_py.trace import Trace, format_trace, save_trace

    trace = Trace(level=1)              # 2: small values too; 3: every value (for a file)
    run(module, x, trace=trace)
    print(format_trace(trace))          # one line per op
    save_trace(trace, "reference.npz")  # load_trace reads it back

- `record.py`: `Trace` (the interpreter's observer) and its `TraceEntry`s;
- `store.py`: `save_trace` / `load_trace` (``.npz``: values and an ``__index__`` JSON member);
- `report.py`: `format_trace`, the text report;
- `progress.py`: progress on stderr (tqdm when installed and stderr is a terminal);
- `compare.py`: `compare_traces`, the first op whose results differ from a reference trace's
  while its operands agree (ops matched by `match.py`, values by `closeness.py`, the report in
  `compare_report.py`); `backend_trace.py`: `compare_to_backend` (XLA, IREE).

    comparison = compare_traces(trace, load_trace("reference.npz"), module)
    comparison = compare_to_backend(trace, module, [x], "xla")
    print(comparison.report())          # comparison.first: the diverging op, or None
"""

from stablehlo_py.trace.backend_trace import BackendRunError, backend_trace, compare_to_backend
from stablehlo_py.trace.compare import Comparison, OpDifference, OperandCheck, compare_traces
from stablehlo_py.trace.progress import Progress, start_progress
from stablehlo_py.trace.record import LEVELS, Trace, TraceEntry
from stablehlo_py.trace.report import entry_line, format_trace
from stablehlo_py.trace.store import TraceFileError, load_trace, save_trace

__all__ = [
    "LEVELS",
    "BackendRunError",
    "Comparison",
    "OpDifference",
    "OperandCheck",
    "Progress",
    "Trace",
    "TraceEntry",
    "TraceFileError",
    "backend_trace",
    "compare_to_backend",
    "compare_traces",
    "entry_line",
    "format_trace",
    "load_trace",
    "save_trace",
    "start_progress",
]
