"""A sweep names each non-monotone step: a better machine (one resource more, or
one latency less, all else equal) that took more cycles, with the part of the
cycles that grew. Hand-made rows, so the answer is known."""

from __future__ import annotations

from typing import Any

from tapeflow_benchmarks.harness.sweep.kinks import kinks


def _row(cols: int, ports: int, total: int, memory: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "model": "cgra",
        "kernel": "k",
        "size": "small",
        "variant": "enzyme",
        "spad_bytes": 0,
        "unroll": 1,
        "cache_bytes": 32768,
        "energy_preset": "paper",
        "cols": cols,
        "cache.ports": ports,
        "cycles_total": total,
        "cycles_memory_stall": memory,
        "cycles_stream_stall": 0,
        **extra,
    }


def test_a_slower_run_with_more_columns_is_named_with_its_cause() -> None:
    rows = [
        _row(1, 2, 1274, 700),
        _row(2, 2, 1279, 700),
        _row(4, 2, 1279, 700),
        _row(1, 1, 1409, 800),
    ]
    (kink,) = kinks(rows, ["cols", "cache.ports"])
    assert (kink.key, kink.worse["cols"], kink.better["cols"]) == ("cols", 1, 2)
    assert "issue cycles grew by 5 (574 -> 579)" in kink.describe()


def test_latencies_are_better_smaller_and_other_keys_are_not_compared() -> None:
    rows = [
        {**_row(4, 2, 100), "dram.latency_cycles": 50},
        {**_row(4, 2, 90, memory=10), "dram.latency_cycles": 100},  # faster with more latency
        {**_row(4, 2, 120), "dram.latency_cycles": 200},
    ]
    (kink,) = kinks(rows, ["dram.latency_cycles"])
    assert (kink.worse["dram.latency_cycles"], kink.better["dram.latency_cycles"]) == (100, 50)
    # A monotone sweep, and a key that is not a resource, name nothing.
    assert kinks([_row(1, 2, 10), _row(2, 2, 9)], ["cols"]) == []
    assert (
        kinks(
            [{**_row(1, 2, 10), "cache.size_bytes": 1}, {**_row(1, 2, 20), "cache.size_bytes": 2}],
            ["cache.size_bytes"],
        )
        == []
    )
