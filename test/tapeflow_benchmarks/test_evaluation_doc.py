"""docs/evaluation.md's generated parts: replaced by the report's sections, links
to the report's anchors made plain, figures copied, and a clear error (no
traceback) for a section the report lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapeflow_benchmarks.evaluation_doc import main

REPORT = """# Evaluation

## Bottom line

- **cgra**: 1 of 2 claims agree.

| claim | read it on |
|---|---|
| [1. fast](#claim-fast) | salam |

![performance, cgra](figures/performance-cgra.png)

## The paper's claims

| claim | model |
|---|---|
| [1. fast](#claim-fast) | cgra |

### The claims in detail

long text
"""


def _setup(tmp_path: Path, page: str) -> tuple[Path, Path]:
    results = tmp_path / "results"
    (results / "figures").mkdir(parents=True)
    (results / "report.md").write_text(REPORT)
    (results / "results.json").write_text('{"meta": {"size": "paper"}}')
    (results / "figures" / "performance-cgra.png").write_bytes(b"png")
    (results / "figures" / "dram-salam.png").write_bytes(b"dram")
    doc = tmp_path / "docs" / "evaluation.md"
    doc.parent.mkdir()
    doc.write_text(page)
    return results, doc


def test_parts_are_replaced_by_the_reports_sections(tmp_path: Path) -> None:
    page = (
        "# Findings\n\nProse.\n\n![dram](figures/dram-salam.png)\n\n"
        "<!-- tapeflow-bench paper: Bottom line -->\nold table\n"
        "<!-- end paper: Bottom line -->\n\nMore prose.\n\n"
        "<!-- tapeflow-bench paper: The paper's claims | ### The claims in detail -->\nold\n"
        "<!-- end paper: The paper's claims | ### The claims in detail -->\n"
    )
    results, doc = _setup(tmp_path, page)
    assert main([str(results), "--doc", str(doc)]) == 0
    text = doc.read_text()
    assert "old table" not in text and "Prose." in text and "More prose." in text
    assert "- **cgra**: 1 of 2 claims agree." in text
    assert "| 1. fast | salam |" in text and "(#claim-" not in text
    assert "| 1. fast | cgra |" in text and "long text" not in text
    assert (doc.parent / "figures" / "performance-cgra.png").read_bytes() == b"png"
    assert (doc.parent / "figures" / "dram-salam.png").read_bytes() == b"dram"
    # Regenerating again changes nothing.
    assert main([str(results), "--doc", str(doc)]) == 0
    assert doc.read_text() == text


def test_a_missing_section_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = "<!-- tapeflow-bench paper: Headline -->\nx\n<!-- end paper: Headline -->\n"
    results, doc = _setup(tmp_path, page)
    assert main([str(results), "--doc", str(doc)]) == 2
    assert "report.md has no section '## Headline'" in capsys.readouterr().err
    assert doc.read_text() == page
    assert main([str(tmp_path / "nowhere"), "--doc", str(doc)]) == 2
    assert "holds no report.md" in capsys.readouterr().err
    doc.write_text(
        "<!-- tapeflow-bench artifact: Bottom line -->\nx\n<!-- end artifact: Bottom line -->\n"
    )
    assert main([str(results), "--doc", str(doc)]) == 2
    assert "asks for a run at artifact size" in capsys.readouterr().err
