"""
The tile layout of `lowering.layers.layout`, on conv1d's FWD loop (PyTorch's
Conv1d with a tanh, 3 taps): the inner loop stores 2 values per tap (3 taps per
output), the output's body 1 value, so one output takes 7 entries: 1 slot (the
greatest common divisor of 2 and 1), rows 0-5 for the taps (tap `k`'s two values
in rows `2k` and `2k + 1`) and row 6 for the activation's argument.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp

from lowering.ir.gradients import gradient_functions
from lowering.layers.layout import Placement, tile_layout
from lowering.tapeflow_raise_tape import raise_module
from lowering.tapeflow_regions import form_regions
from tapeflow_dialects import region


def test_conv1d_outputs_take_seven_rows_of_one_slot(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    module = differentiated("conv1d")
    raise_module(module)
    form_regions(module)
    (function,) = gradient_functions(module)
    stores = [op for op in function.walk() if isinstance(op, region.StoreOp)]
    outer = stores[0].parent_op()
    while not isinstance(outer, scf.ForOp) or any(not outer.is_ancestor(s) for s in stores):
        outer = outer.parent_op()
    layout = tile_layout(stores, outer)
    assert (layout.slots, layout.rows_per_iteration, layout.groups) == (1, 7, 2)
    assert layout.entries_per_iteration == 7
    inner = [s for s in stores if s.parent_op() is not outer]
    (per_output,) = [s for s in stores if s.parent_op() is outer]
    assert [layout.places[s] for s in inner] == [Placement(0, 2, 0), Placement(1, 2, 0)]
    assert layout.places[per_output] == Placement(6, 1, 0)


def test_one_group_is_a_row_per_iteration_and_a_slot_per_store(
    differentiated: Callable[[str], ModuleOp],
) -> None:
    """logsum's loop stores 2 values per iteration: the paper's 1 row of 2 slots."""
    module = differentiated("logsum")
    raise_module(module)
    form_regions(module)
    (function,) = gradient_functions(module)
    stores = [op for op in function.walk() if isinstance(op, region.StoreOp)]
    loop = stores[0].parent_op()
    assert isinstance(loop, scf.ForOp)
    layout = tile_layout(stores, loop)
    assert (layout.slots, layout.rows_per_iteration, layout.groups) == (2, 1, 1)
    assert [layout.places[s] for s in stores] == [Placement(0, 1, 0), Placement(0, 1, 1)]
