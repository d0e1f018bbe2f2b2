"""
The FWD-to-REV map (FtoR) as the tape-carrying dialects spell it.

Every store of a tape value in the forward sweep carries a `id` that is unique
within its tape, and every load in the reverse sweep names, with `from`, the
store whose value it reads back. The link survives every TapeFlow pass up to the
placement on the grid, so each stage can answer "which REV load consumes this FWD
store" without analysis. The checks here are shared by the `tape` and `region`
dialects.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException


def verify_rank(op: Operation, indices: Sequence[SSAValue], rank: int) -> None:
    if len(indices) != rank:
        raise VerifyException(
            f"'{op.name}' has {len(indices)} indices for a container of rank {rank}"
        )


def stores_of(container: SSAValue, store_name: str) -> list[Operation]:
    """The store ops (by op name) that write into `container`."""
    return [
        use.operation
        for use in container.uses
        if use.operation.name == store_name and use.index == 1
    ]


def verify_load_is_stored(
    op: Operation, container: SSAValue, store_name: str, store_id: IntegerAttr
) -> None:
    """A REV load must name a FWD store of the same container (FtoR link). A store
    placed on the grid (`cgra.store`, `tapeflow-to-cgra`) keeps no id: a load left
    outside the kernels of a container some of whose stores were placed (a kept
    region's REV read, with `mapping.place_straight_line` off) was checked before
    placement."""
    for store in stores_of(container, store_name):
        if store.properties["id"] == store_id:
            return
    if stores_of(container, "cgra.store"):
        return
    raise VerifyException(
        f"'{op.name}' reads the value of store {store_id.value.data}, but no "
        f"'{store_name}' with that id writes this container (a value loaded in REV "
        f"must be stored in FWD)"
    )


def verify_unique_store_ids(op: Operation, container: SSAValue, store_name: str) -> None:
    seen: set[int] = set()
    for store in stores_of(container, store_name):
        ident = store.properties["id"]
        assert isinstance(ident, IntegerAttr)
        if ident.value.data in seen:
            raise VerifyException(
                f"'{op.name}' result is written by two '{store_name}' ops with id "
                f"{ident.value.data}; store ids must be unique per container"
            )
        seen.add(ident.value.data)
