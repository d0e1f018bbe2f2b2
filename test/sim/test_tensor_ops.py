"""
The executor's `tensor` ops (Enzyme's tensor caches) on hand-computed cases: MLIR's
value semantics (an insert makes a new tensor, the old one keeps its contents),
slices, bounds, and buffers of memref handles.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.executor import ExecutionError, Executor
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser


def _run(text: str, name: str, *args):  # type: ignore[no-untyped-def]
    module = LocatingParser(make_context(), text, "case.mlir").parse_module()
    return Executor(module).run(name, list(args))


def test_insert_makes_a_new_tensor_and_keeps_the_old() -> None:
    # One tensor.empty feeds two chains (as Enzyme initialises two caches): each
    # insert changes only its own copy.
    text = """
    func.func @f(%a: f64, %b: f64) -> (f64, f64, f64, f64) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %e = tensor.empty() : tensor<2xf64>
      %t1 = tensor.insert %a into %e[%c0] : tensor<2xf64>
      %t2 = tensor.insert %b into %e[%c0] : tensor<2xf64>
      %t3 = tensor.insert %b into %t1[%c1] : tensor<2xf64>
      %x = tensor.extract %t1[%c0] : tensor<2xf64>
      %y = tensor.extract %t2[%c0] : tensor<2xf64>
      %z = tensor.extract %t1[%c1] : tensor<2xf64>
      %w = tensor.extract %t3[%c1] : tensor<2xf64>
      func.return %x, %y, %z, %w : f64, f64, f64, f64
    }"""
    assert _run(text, "f", 1.5, 2.5) == (1.5, 2.5, 0.0, 2.5)


def test_a_cache_threaded_through_a_loop() -> None:
    # Enzyme's shape: insert each iteration's value, read back reversed.
    text = """
    func.func @f() -> (f64, index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %e = tensor.empty() : tensor<4xf64>
      %ei = tensor.empty() : tensor<4xindex>
      %t, %ti = scf.for %i = %c0 to %c4 step %c1 iter_args(%c = %e, %ci = %ei) -> (tensor<4xf64>, \
tensor<4xindex>) {
        %ii = arith.index_cast %i : index to i64
        %f = arith.sitofp %ii : i64 to f64
        %sq = arith.mulf %f, %f : f64
        %n = tensor.insert %sq into %c[%i] : tensor<4xf64>
        %twice = arith.addi %i, %i : index
        %ni = tensor.insert %twice into %ci[%i] : tensor<4xindex>
        scf.yield %n, %ni : tensor<4xf64>, tensor<4xindex>
      }
      %c3 = arith.constant 3 : index
      %v = tensor.extract %t[%c3] : tensor<4xf64>
      %vi = tensor.extract %ti[%c3] : tensor<4xindex>
      func.return %v, %vi : f64, index
    }"""
    assert _run(text, "f") == (9.0, 6)


def test_slices_in_and_out() -> None:
    # A row inserted at [1, 0] of a 3x2 tensor, then taken back out.
    text = """
    func.func @f(%a: f64, %b: f64) -> (f64, f64, f64) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %row0 = tensor.empty() : tensor<2xf64>
      %row1 = tensor.insert %a into %row0[%c0] : tensor<2xf64>
      %row = tensor.insert %b into %row1[%c1] : tensor<2xf64>
      %big = tensor.empty() : tensor<3x2xf64>
      %full = tensor.insert_slice %row into %big[%c1, 0] [1, 2] [1, 1] : tensor<2xf64> into \
tensor<3x2xf64>
      %back = tensor.extract_slice %full[%c1, 0] [1, 2] [1, 1] : tensor<3x2xf64> to tensor<2xf64>
      %x = tensor.extract %back[%c1] : tensor<2xf64>
      %y = tensor.extract %full[%c1, %c0] : tensor<3x2xf64>
      %z = tensor.extract %big[%c1, %c0] : tensor<3x2xf64>
      func.return %x, %y, %z : f64, f64, f64
    }"""
    assert _run(text, "f", 3.0, 4.0) == (4.0, 3.0, 0.0)


def test_out_of_bounds_is_an_error_at_the_op() -> None:
    text = """
    func.func @f(%i: index) -> f64 {
      %e = tensor.empty() : tensor<2xf64>
      %v = tensor.extract %e[%i] : tensor<2xf64>
      func.return %v : f64
    }"""
    with pytest.raises(
        ExecutionError, match=r"case.mlir:4:\d+: .*'tensor.extract' index \[2\] is out of bounds"
    ):
        _run(text, "f", 2)


def test_a_buffer_of_memref_handles() -> None:
    # Enzyme's handle cache: store which buffer to write, load it back, write.
    text = """
    func.func @f(%a: memref<2xf64>, %b: memref<2xf64>, %v: f64) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %h = memref.alloc() : memref<2xmemref<2xf64>>
      memref.store %a, %h[%c0] : memref<2xmemref<2xf64>>
      memref.store %b, %h[%c1] : memref<2xmemref<2xf64>>
      %m = memref.load %h[%c1] : memref<2xmemref<2xf64>>
      memref.store %v, %m[%c0] : memref<2xf64>
      memref.dealloc %h : memref<2xmemref<2xf64>>
      func.return
    }"""
    a, b = np.zeros(2), np.zeros(2)
    for fast in (True, False):
        module = LocatingParser(make_context(), text, "case.mlir").parse_module()
        Executor(module, fast=fast).run("f", [a, b, 7.0])
        assert list(a) == [0.0, 0.0] and list(b) == [7.0, 0.0]
