"""
The numbers the paper reports for its kernels (Table II), for side-by-side tables.

Transcribed from the paper's Table II; `working_set_k` and `inputs_k` are in
thousands, as the paper prints them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TableII:
    kernel: str
    kernel_class: str
    tensors_per_loop: float
    working_set_k: float
    inputs_k: float
    layer_count: int


TABLE_II: dict[str, TableII] = {
    row.kernel: row
    for row in (
        TableII("gravity", "regular", 2, 180, 8, 15616),
        TableII("nn", "regular", 2.6, 63, 80, 490),
        TableII("logsum", "regular", 2, 160, 160, 1251),
        TableII("matdescent", "regular", 3.5, 1280, 2400, 10400),
        TableII("mttkrp", "irregular", 7, 104, 128, 512),
        TableII("somier", "irregular", 8, 34, 48, 216),
        TableII("lenet", "irregular", 4, 430, 10, 11895),
        TableII("pathfinder", "irregular", 4, 328, 164, 5842),
        TableII("massspring", "irregular", 6, 10, 28, 46000),
    )
}
