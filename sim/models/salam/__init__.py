"""
The `salam` timing model as one package: the authors' gem5-SALAM machine
(`machine`), how its datapath issues a kernel loop (`lockstep`), where Enzyme for
LLVM puts its cache stores in a loop body (`enzyme_llvm`), and the model that
times a run with them (`model`). Nothing outside this package imports these
modules but the model registry (`sim.models`).
"""

from sim.models.salam.machine import SALAM, SALAM_FIELDS, SalamMachine, salam_hardware
from sim.models.salam.model import SALAM_MODEL, SalamModel

__all__ = ["SALAM", "SALAM_FIELDS", "SALAM_MODEL", "SalamMachine", "SalamModel", "salam_hardware"]
