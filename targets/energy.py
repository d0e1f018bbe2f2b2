"""
Energy per event, in picojoules: two named presets.

- `paper`: the per-access energies of the paper's Table III (scratchpad 100 pJ;
  caches 1 KB 120, 2 KB 440, 4 KB 450, 8 KB 460, 16 KB 470, 32 KB 2990, 64 KB
  10800, 128 KB 11350). The paper's text elsewhere puts a scratchpad tape access
  under 10 pJ and a cache access near 300 pJ, so the table's units are not fully
  consistent; it is kept as printed, as one preset. The table gives no FU or DRAM
  energy; those come from `cacti45`.
- `cacti45`: derived from published 45 nm figures. SRAM word reads from CACTI 7
  (1 KB 1.4 pJ, 4 KB 2.9, 16 KB 10.0, 64 KB 29, 128 KB 33); 2-way caches with 64 B
  lines from CACTI 7 (4 KB 43 pJ to 128 KB 85 pJ per access); DDR4 at 5.8 pJ/bit
  read and 5.0 pJ/bit write. FP64 operation energies are scaled from Horowitz's
  FP32 figures (ISSCC 2014, 45 nm: add 0.9 pJ, multiply 3.7 pJ): [assumption] an
  add twice the FP32 one (linear in width), a multiply four times (quadratic in the
  mantissa), divide, square root and transcendental ops as four multiplies.

Sizes between tabulated points are interpolated linearly in log2(size); sizes
outside the table take the nearest end's value scaled the same way [assumption].
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from math import log2


def _interpolate(points: Sequence[tuple[int, float]], size: int) -> float:
    """Piecewise linear in log2(size) through (size, value) points, extended at both
    ends with the slope of the nearest segment."""
    sizes = [p[0] for p in points]
    i = min(max(bisect_left(sizes, size), 1), len(points) - 1)
    (s0, v0), (s1, v1) = points[i - 1], points[i]
    t = (log2(size) - log2(s0)) / (log2(s1) - log2(s0))
    return max(v0 + t * (v1 - v0), 0.0)


@dataclass(frozen=True)
class EnergyModel:
    name: str
    cache_points: tuple[tuple[int, float], ...]
    """(cache bytes, pJ per access)."""
    spad_pj: float
    """pJ per scratchpad access (8-byte entry)."""
    fu_pj: tuple[tuple[str, float], ...]
    """pJ per FU operation, by class (see targets.hardware.Latencies)."""
    dram_read_pj_per_bit: float
    dram_write_pj_per_bit: float

    def cache_pj(self, size_bytes: int) -> float:
        return _interpolate(self.cache_points, size_bytes)

    def op_pj(self, op_class: str) -> float:
        return dict(self.fu_pj)[op_class]


_FP64_OPS = (
    ("fadd", 1.8),
    ("fmul", 14.8),
    ("fdiv", 59.2),
    ("sqrt", 59.2),
    ("transcendental", 59.2),
    ("integer", 0.1),
)
"""[assumption] scaled from Horowitz's 45 nm FP32 add (0.9 pJ) and multiply (3.7 pJ);
integer: a 32-bit add (0.1 pJ)."""

FU_CLASSES: tuple[str, ...] = tuple(name for name, _ in _FP64_OPS)
"""The latency and energy classes, named as the fields of
`targets.hardware.Latencies`: an energy table prices each exactly once."""

ENERGY_PRESETS: dict[str, EnergyModel] = {
    "paper": EnergyModel(
        name="paper",
        cache_points=(
            (1024, 120.0),
            (2048, 440.0),
            (4096, 450.0),
            (8192, 460.0),
            (16384, 470.0),
            (32768, 2990.0),
            (65536, 10800.0),
            (131072, 11350.0),
        ),
        spad_pj=100.0,
        fu_pj=_FP64_OPS,
        dram_read_pj_per_bit=5.8,
        dram_write_pj_per_bit=5.0,
    ),
    "cacti45": EnergyModel(
        name="cacti45",
        cache_points=((4096, 43.0), (131072, 85.0)),
        spad_pj=1.0,
        # [assumption] a 512 B scratchpad word read, extrapolated from CACTI's
        # 1 KB 1.4 pJ and 4 KB 2.9 pJ SRAM points.
        fu_pj=_FP64_OPS,
        dram_read_pj_per_bit=5.8,
        dram_write_pj_per_bit=5.0,
    ),
}
