"""Writes this folder's --inputs files for @f in module.mlir (x: memref<4xf64>,
idx: memref<4xindex>, n: i8, s: f64); the .case files say what tapeflow-run and
tapeflow-sim must answer for each. Run it from anywhere."""

import io
import zipfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
GOOD = {
    "arg0": np.array([1.0, 2.0, 3.0, 4.0]),
    "arg1": np.array([2, 0, 1, 3]),
    "arg2": np.array(5, dtype=np.int8),
    "arg3": np.array(0.5),
}


def npz(name: str, **changes: object) -> None:
    arrays = {**GOOD, **changes}
    np.savez(HERE / name, **{k: v for k, v in arrays.items() if v is not None})


def damaged_member() -> bytes:
    """A valid zip whose arg0.npy member has a garbled .npy header."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for key, value in GOOD.items():
            member = io.BytesIO()
            np.save(member, value)
            data = member.getvalue()
            if key == "arg0":
                data = data[:10] + b"{'descr': <garbage>" + data[29:]
            archive.writestr(f"{key}.npy", data)
    return buffer.getvalue()


if __name__ == "__main__":
    np.save(HERE / "one_array.npy", GOOD["arg0"])
    good = io.BytesIO()
    np.savez(good, **GOOD)
    (HERE / "truncated.npz").write_bytes(good.getvalue()[:200])
    (HERE / "damaged_member.npz").write_bytes(damaged_member())
    (HERE / "text.npz").write_text("arg0 = [1, 2, 3, 4]\n")
    npz("strings.npz", arg0=np.array(["1", "2", "3", "4"]))
    npz("complex.npz", arg0=GOOD["arg0"] + 1j)
    npz("objects.npz", arg0=np.array([1.0, "x", None, 4.0], dtype=object))
    npz("fractional_index.npz", arg1=np.array([0.0, 1.5, 2.0, 3.0]))
    npz("nan_index.npz", arg1=np.array([0.0, np.nan, 2.0, 3.0]))
    npz("float_index.npz", arg1=np.array([2.0, 0.0, 1.0, 3.0]))
    npz("nan_input.npz", arg0=np.array([1.0, np.nan, 3.0, 4.0]))
    npz("inf_scalar.npz", arg3=np.array(np.inf))
    npz("i8_overflow.npz", arg2=np.array(300))
    npz("index_overflow.npz", arg1=np.array([2, 0, 1, 2**64 - 1], dtype=np.uint64))
    npz("booleans.npz", arg0=np.array([True, False, True, True]))
    npz("wrong_shape.npz", arg0=np.zeros((2, 2)))
    npz("missing_scalar.npz", arg3=None)
    npz("extra_key.npz", x=np.zeros(4))
    npz("scalar_as_array.npz", arg3=np.array([0.5]))
    # For logsum.small.mlir's @logsum (x: memref<16xf64>), the primal.
    np.savez(HERE / "logsum.npz", arg0=np.linspace(0.1, 1.6, 16))
