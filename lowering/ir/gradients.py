"""
Which functions of a module are Enzyme gradients: the functions every TapeFlow
pass works on. `tapeflow-enzyme` marks each gradient it generates with its primal
(`tapeflow.gradient_of`); a pass run before it finds none and says so.
"""

from __future__ import annotations

from xdsl.dialects import builtin, func
from xdsl.utils.exceptions import PassFailedException

from tapeflow_dialects.enzyme import GRADIENT_OF


def gradient_functions(module: builtin.ModuleOp) -> list[func.FuncOp]:
    """The functions `tapeflow-enzyme` generated, in module order."""
    return [
        f
        for f in module.body.block.ops
        if isinstance(f, func.FuncOp) and GRADIENT_OF in f.attributes
    ]


def require_gradients(module: builtin.ModuleOp, pass_name: str) -> list[func.FuncOp]:
    """The gradient functions, or a clear error if Enzyme has not run."""
    gradients = gradient_functions(module)
    if not gradients:
        raise PassFailedException(
            f"{pass_name}: the module has no gradient function (no func.func "
            f"carries '{GRADIENT_OF}'); differentiate it first with tapeflow-enzyme"
        )
    return gradients
