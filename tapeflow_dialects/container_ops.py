"""
The op shapes the tape-carrying dialects share.

`tape` (Enzyme's struct-of-arrays tape), `region` (TapeFlow's array-of-structs)
and `stream` (scratchpad tiles and their DRAM tape) each allocate a container,
store FWD values into it, load them back in REV, and free it. Their stores carry
the FWD-to-REV link's `id`, their loads name the store they read with `from`
(see `ftor.py`), and the region and stream accesses address a `slot` of a struct.
Those fields, and the accessors passes use to treat the three dialects alike
(`container`, `store_id`, `loaded_id`), are declared once here.

Each dialect's op still declares its operands itself, in its own order and with
its own accessor names (`tape`, `region`, `tile`): xDSL orders an op's operands
subclass first, so operands declared here would come after the dialect's.
"""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, prop_def, result_def

from tapeflow_dialects.ftor import verify_load_is_stored, verify_unique_store_ids


class ContainerAllocOp(IRDLOperation, ABC):
    """Allocates a container; its only result is the container."""

    STORE_NAME: ClassVar[str | None] = None
    """The store op that writes this container, whose ids must be unique per
    container (None: the container's writers carry no FtoR id)."""

    @property
    def container(self) -> SSAValue:
        return self.results[0]

    def verify_(self) -> None:
        if self.STORE_NAME is not None:
            verify_unique_store_ids(self, self.container, self.STORE_NAME)


class ContainerStoreOp(IRDLOperation, ABC):
    """FWD: saves its first operand into the container, its second operand."""

    id = prop_def(IntegerAttr[I64])
    """Unique per container: the FWD side of the FtoR link."""

    @property
    def container(self) -> SSAValue:
        return self.operands[1]

    @property
    def store_id(self) -> int:
        return self.id.value.data


class ContainerLoadOp(IRDLOperation, ABC):
    """REV: reads back, from the container (its first operand), the value store
    `from` saved."""

    store = prop_def(IntegerAttr[I64], prop_name="from")
    """The id of the store whose value this load reads: the REV side of the link."""
    result = result_def()

    STORE_NAME: ClassVar[str | None] = None
    """The store op whose `id` the `from` must name in the same container (None:
    the store is in another container, as for a scratchpad tile's FWD layer)."""

    @property
    def container(self) -> SSAValue:
        return self.operands[0]

    @property
    def loaded_id(self) -> int:
        return self.store.value.data

    def verify_loaded_store(self) -> None:
        if self.STORE_NAME is not None:
            verify_load_is_stored(self, self.container, self.STORE_NAME, self.store)


class SlotAccess(IRDLOperation, ABC):
    """An access to one slot of a container's struct (region, scratchpad tile)."""

    slot = prop_def(IntegerAttr[I64])

    @property
    def slot_index(self) -> int:
        return self.slot.value.data


class ContainerFreeOp(IRDLOperation, ABC):
    """Releases the container, its only operand, once REV has consumed it."""

    @property
    def container(self) -> SSAValue:
        return self.operands[0]
