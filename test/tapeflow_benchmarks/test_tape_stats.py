"""The tape-statistics script runs and reports what Enzyme cached."""

from __future__ import annotations

import pytest

from tapeflow_benchmarks.tape_stats import main


def test_logsum_tape_is_two_values_per_element(capsys: pytest.CaptureFixture[str]) -> None:
    # Logsum's loop `sema *= exp(x[i] - A)` needs, per iteration, the running
    # product and the exponent's argument: 2 tapes of N = 16 f64 each.
    main(["--preset", "small", "--kernels", "logsum"])
    out = capsys.readouterr().out
    assert "logsum: @diffelogsum: 2 tapes, 32 values, 256 bytes" in out
    assert "| logsum | 2 | 32 | 0.3 | 2.0 | 2 | 160 |" in out


def test_unknown_kernel_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--kernels", "logsum,nope"])
    assert exit_info.value.code == 2
    assert "unknown kernel(s) nope" in capsys.readouterr().err
