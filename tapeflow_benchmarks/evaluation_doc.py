"""
The tables of docs/evaluation.md, regenerated from a `tapeflow-bench` results
folder: the findings page quotes the report, never a table pasted by hand.

    python -m tapeflow_benchmarks.evaluation_doc RESULTS... [--doc docs/evaluation.md]

Each generated part of the page sits between `<!-- tapeflow-bench SIZE: HEADING -->`
and `<!-- end SIZE: HEADING -->`, HEADING a `##` section of the report.md of the
RESULTS folder run at kernel size SIZE (`paper`, `artifact`, `small`); the part is
replaced by that section's text (its own heading left out; `HEADING | STOP` keeps
the text before the line STOP). Links to the report's own anchors become plain
text, and every figure the page shows is copied to its `figures/` folder from
the folders given (the first that holds it; a part's from its own run).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

MARK = re.compile(
    r"<!-- tapeflow-bench (?P<size>\w+): (?P<key>[^>]*?) -->\n.*?<!-- end (?P=size): (?P=key) -->",
    re.S,
)
ANCHOR_LINK = re.compile(r"\[([^\]]*)\]\(#[^)]*\)")
FIGURE = re.compile(r"!\[[^\]]*\]\(figures/([^)]+)\)")


class DocError(ValueError):
    """A section the page asks for that the report lacks, or a page without parts."""


def section(report: str, heading: str) -> str:
    """The text of `## heading` in `report`, up to the next `## ` heading."""
    lines = report.splitlines()
    try:
        start = lines.index(f"## {heading}")
    except ValueError:
        raise DocError(f"report.md has no section '## {heading}'") from None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start + 1 : end]).strip("\n")


def part(report: str, key: str) -> str:
    """The generated text for a marker's `key` ('HEADING' or 'HEADING | STOP')."""
    heading, _, stop = (p.strip() for p in key.partition("|"))
    text = section(report, heading)
    if stop:
        kept = text.split(f"\n{stop}\n", 1)
        if len(kept) == 1:
            raise DocError(f"section '## {heading}' of report.md has no line '{stop}'")
        text = kept[0]
    return ANCHOR_LINK.sub(r"\1", text).strip("\n")


def reports(folders: list[Path]) -> dict[str, tuple[Path, str]]:
    """Each results folder's kernel size (its `results.json` meta), its report."""
    found: dict[str, tuple[Path, str]] = {}
    for folder in folders:
        report, data = folder / "report.md", folder / "results.json"
        if not report.is_file() or not data.is_file():
            raise DocError(f"{folder} holds no report.md and results.json of tapeflow-bench")
        size = json.loads(data.read_text(encoding="utf-8"))["meta"]["size"]
        found[size] = (folder, report.read_text(encoding="utf-8"))
    return found


def regenerate(folders: list[Path], doc: Path) -> list[str]:
    """Rewrite `doc`'s generated parts from the results `folders`; the figures
    they show copied beside it."""
    by_size = reports(folders)
    page = doc.read_text(encoding="utf-8")
    marks = list(MARK.finditer(page))
    if not marks:
        raise DocError(f"{doc} has no '<!-- tapeflow-bench SIZE: HEADING -->' part")
    parts, figures = {}, {}
    for m in marks:
        size, key = m.group("size"), m.group("key")
        if size not in by_size:
            raise DocError(f"{doc} asks for a run at {size} size; give its results folder")
        folder, report = by_size[size]
        parts[size, key] = part(report, key)
        for name in FIGURE.findall(parts[size, key]):
            figures[name] = folder / "figures" / name
    page = MARK.sub(
        lambda m: (
            f"<!-- tapeflow-bench {m.group('size')}: {m.group('key')} -->\n"
            f"{parts[m.group('size'), m.group('key')]}\n"
            f"<!-- end {m.group('size')}: {m.group('key')} -->"
        ),
        page,
    )
    for name in FIGURE.findall(page):  # a figure the prose shows: the first run's that has it
        if name not in figures:
            source = next(
                (
                    f / "figures" / name
                    for f, _ in by_size.values()
                    if (f / "figures" / name).is_file()
                ),
                None,
            )
            if source is None:
                raise DocError(f"{doc} shows figures/{name}, which no results folder holds")
            figures[name] = source
    for name, source in figures.items():
        (doc.parent / "figures").mkdir(exist_ok=True)
        shutil.copyfile(source, doc.parent / "figures" / name)
    doc.write_text(page, encoding="utf-8")
    return sorted(figures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument(
        "results", type=Path, nargs="+", help="tapeflow-bench results folders, one per size"
    )
    parser.add_argument("--doc", type=Path, default=Path("docs/evaluation.md"))
    args = parser.parse_args(argv)
    try:
        figures = regenerate(args.results, args.doc)
    except (DocError, OSError) as error:
        print(f"evaluation_doc: {error}", file=sys.stderr)
        return 2
    print(
        f"{args.doc}: regenerated from {', '.join(map(str, args.results))}; {len(figures)} figures"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
