"""Enzyme's passes run from enzyme-ad's native module alone: differentiating a
module in a fresh interpreter imports neither JAX nor the rest of the
`enzyme_ad.jax` package (seconds of start-up), and gives the gradient the
package's own import gives."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).parents[2] / "tapeflow_benchmarks" / "mlir" / "logsum.small.mlir"

SCRIPT = """
import sys
from lowering.pipelines import parse_pipeline
from tapeflow_tools.arguments import load_module
from tapeflow_tools.context import make_context
module = load_module(sys.argv[1])
parse_pipeline("tapeflow-enzyme").apply(make_context(), module)
assert "jax" not in sys.modules, "JAX was imported"
assert "enzyme_ad.jax.primitives" not in sys.modules, "enzyme_ad.jax was imported"
print(module)
"""


def _differentiate(prelude: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", prelude + SCRIPT, str(SOURCE)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_enzyme_runs_without_importing_jax() -> None:
    alone = _differentiate("")
    assert "enzyme.autodiff " not in alone and "func.func private @diffelogsum" in alone
    # The package's import first (JAX and all), then the same pass: the same module.
    packaged = _differentiate(
        "from enzyme_ad.jax import enzyme_call\n"
        "import sys\n"
        "for name in ('jax', 'enzyme_ad.jax.primitives'):\n"
        "    sys.modules.pop(name, None)\n"
    )
    assert packaged == alone
