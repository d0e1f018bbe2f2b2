# lit configuration for the FileCheck tests under test/filecheck.
# The tools run from the environment that runs lit (install the package first).
import os
import sys

import lit.formats

config.name = "TapeFlow"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "test", "filecheck", "Output")
config.excludes = ["Output", "Inputs", "tapeflow_benchmarks", "docs", "examples"]

# lit scrubs the environment: put this interpreter's scripts first on PATH.
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
for var in ("HOME", "TMPDIR", "TAPEFLOW_TRACEBACK"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
