"""`python -m tapeflow_benchmarks.authors_compare`: our salam sweeps beside the
authors' totals, checked on hand-made rows against numbers worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapeflow_benchmarks.authors_compare import main, points

COLUMNS = "model,kernel,variant,cache_bytes,cycles_total\n"


def _rows(*runs: tuple[str, str, str, int, float]) -> list[dict[str, str]]:
    return [
        {"model": m, "kernel": k, "variant": v, "cache_bytes": str(s), "cycles_total": str(c)}
        for m, k, v, s, c in runs
    ]


def test_a_point_pairs_both_variants_with_the_authors_totals() -> None:
    # mttkrp at 16 KB: theirs 70,026 (TapeFlow) and 173,360 (Enzyme) cycles.
    rows = _rows(
        ("salam", "mttkrp", "tapeflow", 16384, 100_000),
        ("salam", "mttkrp", "enzyme", 16384, 200_000),
        ("cgra", "mttkrp", "tapeflow", 32768, 1),  # another model: ignored
        ("salam", "mttkrp", "tapeflow", 1536, 1),  # no such size in their sweep
        ("salam", "lenet", "tapeflow", 16384, 1),  # not one of their kernels
    )
    (p,) = points(rows)
    assert (p.kernel, p.cache_kb) == ("mttkrp", 16)
    assert p.ratios == (2.0, 173360 / 70026)  # 2.0 against 2.476: 0.81, within 30%
    assert p.ratio_matches
    assert p.cycles_over_theirs == (100_000 / 70026, 200_000 / 173360)  # 1.43, 1.15
    assert p.runs_matching == 1


def test_the_script_prints_the_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs.csv"
    # nn at 1 KB: theirs 119,768 and 135,336; ours equal to theirs: all match.
    runs.write_text(COLUMNS + "salam,nn,tapeflow,1024,119768\nsalam,nn,enzyme,1024,135336\n")
    assert main([str(runs)]) == 0
    out = capsys.readouterr().out
    assert "| nn | 1 | 1.13 | 1.13 | 1.00 | 1.00 |" in out
    assert "ratios within 30%: 1/1; runs' cycles within 30%: 2/2" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kernel,cycles_total\nnn,1\n", "not a runs.csv: no column cache_bytes, model, variant"),
        (COLUMNS + "cgra,nn,tapeflow,1024,1\ncgra,nn,enzyme,1024,1\n", "no salam point"),
    ],
)
def test_bad_input_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    runs = tmp_path / "runs.csv"
    runs.write_text(text)
    assert main([str(runs)]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "none.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err
