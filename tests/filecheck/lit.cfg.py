"""lit configuration: IR-in/IR-out tests. Tools are the installed console scripts; round-trip
commands are defined once here as substitutions."""

import os
import shutil
import sys

import lit.formats

config.name = "stablehlo-py"  # noqa: F821
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.test_exec_root = os.path.join(os.path.dirname(__file__), "Output")  # noqa: F821
config.excludes = ["Output", "lit.cfg.py"]  # noqa: F821

bindir = os.path.dirname(sys.executable)
config.environment["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")  # noqa: F821
config.environment["PYTHONHASHSEED"] = "0"  # noqa: F821
filecheck = shutil.which("filecheck", path=config.environment["PATH"]) or "filecheck"  # noqa: F821
config.substitutions.append(("FileCheck", filecheck))  # noqa: F821
# print -> parse -> print must be a fixed point; generic form must read back identically.
config.substitutions.append(("%roundtrip", "stablehlo-opt %s | stablehlo-opt"))  # noqa: F821
config.substitutions.append(  # noqa: F821
    ("%generic_roundtrip", "stablehlo-opt --mlir-print-op-generic %s | stablehlo-opt")
)
