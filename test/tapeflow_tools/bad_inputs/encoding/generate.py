"""Writes this folder's input files (bytes that are not UTF-8 MLIR text); the
.case files beside them say what each tool must answer. Run it from anywhere."""

from pathlib import Path

HERE = Path(__file__).parent
TEXT = "func.func @f(%x: f64) -> f64 {\n  func.return %x : f64\n}\n"

FILES = {
    # An executable's first bytes: NUL bytes early on.
    "binary.mlir": b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4,
    "utf16_bom.mlir": TEXT.encode("utf-16"),  # with its byte-order mark
    "utf16_no_bom.mlir": TEXT.encode("utf-16-le"),
    "utf32_bom.mlir": TEXT.encode("utf-32"),
    # Latin-1 in a comment on line 2: byte 0xe9 at column 9.
    "latin1.mlir": (
        "func.func @f(%x: f64) -> f64 {\n  // caf\u00e9 au lait\n  func.return %x : f64\n}\n"
    ).encode("latin-1"),
    # With --split-input-file: the bad byte is in the second chunk, line 6.
    "split_latin1.mlir": (TEXT + "// -----\n" + TEXT.replace("{\n", "{\n  // na\u00efve\n")).encode(
        "latin-1"
    ),
    # MLIR text with one NUL byte on line 2, column 12 (a stray byte in a comment).
    "nul_in_text.mlir": TEXT.replace("func.return", "// stray \x00\nfunc.return").encode(),
    # Valid UTF-8 up to a truncated multi-byte character on line 3.
    "truncated_utf8.mlir": TEXT.encode() + "// \u00e9".encode()[:-1],
}

if __name__ == "__main__":
    for name, data in FILES.items():
        (HERE / name).write_bytes(data)
