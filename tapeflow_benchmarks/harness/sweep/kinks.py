"""
Non-monotone steps of a sweep: two runs that differ in one resource only
(`targets.fields.RESOURCES`: more PEs, ports, MSHRs, banks, bandwidth; less
latency), where the better machine took more cycles. The models do not promise
monotonicity -- `tapeflow-to-cgra`'s modulo scheduler places ops greedily, so a
larger grid or more ports can end with a longer schedule -- so a sweep names each
such step where it happens, with the part of the cycles that grew, instead of
leaving a kink in its figure unexplained.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from targets.fields import RESOURCES

POINT_KEYS = (
    "model",
    "kernel",
    "size",
    "variant",
    "spad_bytes",
    "unroll",
    "cache_bytes",
    "energy_preset",
)


@dataclass(frozen=True)
class Kink:
    key: str
    worse: dict[str, Any]
    """The run on the lesser machine (fewer resources, more latency)."""
    better: dict[str, Any]
    """The run on the better machine, which took more cycles."""

    def parts(self, row: dict[str, Any]) -> dict[str, int]:
        memory, stream = int(row["cycles_memory_stall"]), int(row["cycles_stream_stall"])
        return {
            "issue": int(row["cycles_total"]) - memory - stream,
            "memory stall": memory,
            "stream stall": stream,
        }

    def cause(self) -> str:
        before, after = self.parts(self.worse), self.parts(self.better)
        grew = {k: after[k] - before[k] for k in before if after[k] > before[k]}
        part = max(grew, key=grew.__getitem__)
        text = f"its {part} cycles grew by {grew[part]} ({before[part]} -> {after[part]})"
        if part == "issue":
            text += (
                ": the kernels' modulo schedules (tapeflow-to-cgra places ops greedily, "
                "and found longer ones on this machine)"
            )
        elif part == "memory stall":
            text += (
                ": the schedules issue accesses in another order, "
                "which the cache and ports serve worse"
            )
        else:
            text += ": the layers' tiles arrive later relative to their compute"
        return text

    def describe(self) -> str:
        k = self.better
        what = f"{k['kernel']} {k['variant']} [{k['model']}]"
        return (
            f"{what}: {self.key} {self.worse[self.key]} -> {self.better[self.key]} took "
            f"{self.worse['cycles_total']} -> {self.better['cycles_total']} cycles; {self.cause()}"
        )


def kinks(rows: list[dict[str, Any]], keys: list[str]) -> list[Kink]:
    """Each step of a swept resource key, between runs equal in everything else
    (the other swept keys and the point's fields), where the better machine took
    more cycles."""
    found = []
    ok = [r for r in rows if "error" not in r]
    for key in keys:
        direction = RESOURCES.get(key)
        if direction is None:
            continue
        others = [k for k in (*POINT_KEYS, *keys) if k != key]
        lines: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for row in ok:
            lines.setdefault(tuple(row.get(k) for k in others), []).append(row)
        for line in lines.values():
            line.sort(key=lambda r: r[key] * direction)  # worse machine first
            for worse, better in zip(line, line[1:], strict=False):
                if worse[key] != better[key] and int(better["cycles_total"]) > int(
                    worse["cycles_total"]
                ):
                    found.append(Kink(key, worse, better))
    return found


__all__ = ["Kink", "kinks"]
