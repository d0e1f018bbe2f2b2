"""Writes this folder's generated inputs; the .case files beside them say what
each tool must answer. Run it from anywhere."""

from pathlib import Path

HERE = Path(__file__).parent
DEPTH = 20_000

FILES = {
    # An attribute of lists nested 20,000 deep inside the attribute dictionary's
    # '{': 20,001 brackets, the deepest '[' at line 1, column 45 + 20,000.
    "deep_attribute.mlir": (
        "func.func @f(%x: f64) -> f64 attributes {a = "
        + "[" * DEPTH
        + "]" * DEPTH
        + "} {\n  func.return %x : f64\n}\n"
    ),
}

if __name__ == "__main__":
    for name, text in FILES.items():
        (HERE / name).write_text(text)
