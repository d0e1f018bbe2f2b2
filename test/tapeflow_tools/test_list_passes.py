"""`tapeflow-opt --list-passes`: every registered pass once, sorted, one line each,
with the first sentence of its own docstring (written independently here)."""

from __future__ import annotations

import pytest

from lowering import get_all_passes
from tapeflow_tools import tapeflow_opt


def test_every_pass_once_sorted_with_its_docstrings_first_sentence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        tapeflow_opt.main(["--list-passes"])
    assert exited.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    names = [line.split()[0] for line in lines]
    assert names == sorted(names) and len(set(names)) == len(names)
    described = dict(line.split(None, 1) for line in lines)
    assert set(get_all_passes()) <= set(described)
    for name, factory in get_all_passes().items():
        first = factory().__doc__.strip().splitlines()[0]
        assert described[name].startswith(first.rstrip(".").split(". ")[0]), name
    assert described["canonicalize"] == "Applies all canonicalization patterns."
