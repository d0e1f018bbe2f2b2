"""
The paper's claims (from its evaluation, as summarised in the shared
BENCHMARKS.md): each the paper's statement, a measure computed from the runs, a
tolerance and how the kernels' values are judged, with the reasons that explain
a difference from the runs' own numbers.
"""

from __future__ import annotations

from tapeflow_benchmarks.harness.claims.base import Claim, around, at_most, between, same_as
from tapeflow_benchmarks.harness.claims.measures import (
    cycles_ratio,
    dram_at,
    dram_max,
    energy_max,
    layout_reduction,
    spad_gain,
    spad_speedup_at,
    speedup,
    sram_iso,
    unroll_gain,
    wide_speedup,
)
from tapeflow_benchmarks.harness.claims.reasons import (
    why_dram,
    why_energy,
    why_layout,
    why_spad,
    why_spad_small,
    why_sram,
    why_time,
    why_time_2k,
    why_unroll,
    why_wide,
)
from tapeflow_benchmarks.harness.experiments import ISO_PERF_SLACK

CLAIMS: tuple[Claim, ...] = (
    Claim("speedup-range", "performance", "1.3-2.5x faster than Enzyme, per kernel",
          speedup(), between(1.3, 2.5), "each", why_time, why_time),
    Claim("speedup-mean", "performance", "2.4x faster on average (headline)",
          speedup(), around(2.4), "geomean", why_time, why_time),
    Claim("unrolled", "performance", "up to 14x with fully unrolled loops (PathFinder)",
          wide_speedup, around(14), "max", why_wide, why_wide, kernels=("pathfinder",)),
    Claim("dram-mttkrp", "DRAM", "up to 14x less DRAM traffic (MTTKRP)",
          dram_max, around(14), "max", why_dram, why_dram, kernels=("mttkrp",)),
    Claim("dram-1k", "DRAM", "2.3x less DRAM traffic at 1 KB for LeNet and PathFinder",
          dram_at(1), around(2.3), "each", why_dram, why_dram, kernels=("lenet", "pathfinder")),
    Claim("dram-matdescent", "DRAM", "1.3x less DRAM traffic for Matdescent",
          dram_at(32), around(1.3), "each", why_dram, why_dram, kernels=("matdescent",)),
    Claim("layout", "DRAM", "array-of-structs layout alone: up to 30% less DRAM traffic",
          layout_reduction, around(30, "%"), "max", why_layout, why_layout),
    Claim("energy", "energy", "up to 8.2x less on-chip energy",
          energy_max, around(8.2), "max", why_energy, why_energy),
    Claim("sram", "SRAM", "5-40x less on-chip SRAM at ISO-performance",
          sram_iso, between(5, 40), "each", why_sram, why_sram),
    Claim("sram-2k", "SRAM", "a 2 KB cache with TapeFlow matches a 32 KB cache with Enzyme",
          cycles_ratio("Tflow2k"),
          at_most(1 + ISO_PERF_SLACK, f"Enzyme32k's cycles +{ISO_PERF_SLACK:.0%}"),
          "each", why_time_2k, why_time_2k),
    Claim("spad", "scratchpad", "64 B to 1 MB scratchpad: +25-50% performance",
          spad_gain, between(25, 50, "+%"), "each", why_spad, why_spad),
    Claim("spad-nn", "scratchpad", "at 64 B, NN performs the same as Enzyme",
          spad_speedup_at(64), same_as(ISO_PERF_SLACK), "each",
          why_spad_small, why_spad_small, kernels=("nn",)),
    Claim("unroll", "layers", "wider layers (higher unroll, PathFinder): about 2x more speedup",
          unroll_gain, around(2), "each", why_unroll, why_unroll, kernels=("pathfinder",)),
)


__all__ = ["CLAIMS"]
