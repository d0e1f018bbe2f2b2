"""
What a TapeFlow run leaves on the table, said after it ran (`tapeflow-sim` prints
these as warnings): the regions `tapeflow-layers` kept in DRAM, read through the
cache, each named with the reason its `region.alloc` carries (`tapeflow.kept`), and
a scratchpad used under a quarter of its bytes at its peak, with the largest tile
the layers asked for. A region the cost model kept is said to be its choice.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects import builtin, func

from tapeflow_dialects import layer, region
from tapeflow_dialects.layer import ENTRY_BYTES

COST_MODEL = "cost model:"
"""How the reason of a region `tapeflow-layers`' cost model kept begins: a choice
(streaming it would cost more than it saves), not a failure to layer it."""


def kept_regions(module: builtin.ModuleOp) -> dict[str, str]:
    """The regions of a lowered `module` kept in DRAM (`@function: %region`), each
    with the reason its `region.alloc` carries (`tapeflow.kept`)."""
    kept: dict[str, str] = {}
    for function in module.ops:
        if not isinstance(function, func.FuncOp):
            continue
        for alloc in [op for op in function.walk() if isinstance(op, region.AllocOp)]:
            reason = alloc.attributes.get(region.KEPT)
            if isinstance(reason, builtin.StringAttr):
                name = alloc.region.name_hint
                label = "%" + name if name else str(alloc.region.type)
                kept[f"@{function.sym_name.data}: region {label}"] = reason.data
    return kept


def kept_warning(region_label: str, reason: str) -> str:
    """The warning for one kept region: a decision of the cost model says so."""
    if reason.startswith(COST_MODEL):
        return (
            f"{region_label} keeps its tape in DRAM, read through the cache, by the cost "
            f"model's choice (a decision, not a failure; mapping.stream_by_cost=false "
            f"streams it): {reason.removeprefix(COST_MODEL).strip()}"
        )
    return f"{region_label} keeps its tape in DRAM, read through the cache: {reason}"


def tape_warnings(
    module: builtin.ModuleOp, report: Mapping[str, object], spad_bytes: int
) -> list[str]:
    """The warnings for a lowered tapeflow `module` and its simulation `report`."""
    found = [kept_warning(label, reason) for label, reason in kept_regions(module).items()]
    tiles: list[tuple[int, int, layer.SpadType]] = []
    for function in module.ops:
        if not isinstance(function, func.FuncOp):
            continue
        for op in function.walk():
            if isinstance(op, layer.SAllocOp) and isinstance(op.tile.type, layer.SpadType):
                tile = op.tile.type
                layer_op = op.parent_op()
                assert isinstance(layer_op, layer.LayerOp)
                entries = tile.rows.data * tile.slots.data
                tiles.append((entries, layer_op.id.value.data, tile))
    low = underused(report, spad_bytes)
    if tiles and low:
        entries, ident, tile = max(tiles, key=lambda t: t[0])
        found.append(
            f"{low}: the largest tile, layer {ident}'s {tile}, holds {entries * ENTRY_BYTES} "
            "bytes (a loop's tile holds whole iterations, at most its trip count and its "
            "share of the scratchpad for the tiles in flight)"
        )
    return found


def underused(report: Mapping[str, object], spad_bytes: int) -> str | None:
    """What a run whose scratchpad's peak use is under a quarter of it says."""
    spad = report.get("spad")
    peak = spad.get("peak_bytes", 0) if isinstance(spad, Mapping) else 0
    if spad_bytes and 4 * int(peak) < spad_bytes:
        return f"the scratchpad's peak use is {peak} of {spad_bytes} bytes, under a quarter"
    return None
