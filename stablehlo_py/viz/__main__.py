"""``python -m stablehlo_py.viz FILE``: see :mod:`stablehlo_py.viz.launch`."""

import sys

from stablehlo_py.viz.launch import main

sys.exit(main())
