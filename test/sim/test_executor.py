"""The reference executor on hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.executor import ExecutionError, Executor
from tapeflow_tools.context import make_context
from tapeflow_tools.diagnostics import LocatingParser


def _module(text: str):
    return LocatingParser(make_context(), text, "case.mlir").parse_module()


def _run(text: str, name: str, *args):
    return Executor(_module(text)).run(name, list(args))


def test_ieee_semantics_where_python_raises() -> None:
    text = """
    func.func @f(%a: f64, %b: f64) -> (f64, f64, f64, f64) {
      %d = arith.divf %a, %b : f64
      %l = math.log %b : f64
      %m = arith.maximumf %a, %d : f64
      %e = math.exp %a : f64
      func.return %d, %l, %m, %e : f64, f64, f64, f64
    }"""
    d, log0, m, e = _run(text, "f", 1000.0, 0.0)
    assert d == math.inf and log0 == -math.inf and m == math.inf and e == math.inf
    d, *_ = _run(text, "f", 0.0, 0.0)
    assert math.isnan(d)


def test_loop_carried_values_if_and_integer_ops() -> None:
    # sum over i in [0, 10) of (i odd ? i : -2*i), computed by hand: 25 - 40 = -15
    text = """
    func.func @f() -> f64 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c10 = arith.constant 10 : index
      %z = arith.constant 0.0 : f64
      %m2 = arith.constant -2.0 : f64
      %s = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %z) -> (f64) {
        %r = arith.remui %i, %c2 : index
        %odd = arith.cmpi eq, %r, %c1 : index
        %ii = arith.index_cast %i : index to i64
        %fi = arith.sitofp %ii : i64 to f64
        %t = scf.if %odd -> (f64) {
          scf.yield %fi : f64
        } else {
          %n = arith.mulf %fi, %m2 : f64
          scf.yield %n : f64
        }
        %next = arith.addf %acc, %t : f64
        scf.yield %next : f64
      }
      func.return %s : f64
    }"""
    assert _run(text, "f") == (-15.0,)


def test_subview_is_a_view_of_the_buffer() -> None:
    text = """
    func.func @f(%m: memref<4x4xf64>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1.0 : f64
      %row = memref.subview %m[2, 0] [1, 4] [1, 1] : memref<4x4xf64> to memref<4xf64, strided<[1], \
offset: 8>>
      memref.store %one, %row[%c1] : memref<4xf64, strided<[1], offset: 8>>
      func.return
    }"""
    m = np.zeros((4, 4))
    _run(text, "f", m)
    expected = np.zeros((4, 4))
    expected[2, 1] = 1.0
    assert np.array_equal(m, expected)


def test_a_rank_0_subview_is_a_view_a_copy_writes_through() -> None:
    # Found by the property campaign: Enzyme's stage copied a rank-0 value into a
    # rank-0 subview of a rank-0 buffer, and the subview was a copy of the value.
    text = """
    func.func @f(%a: memref<f64>, %b: memref<f64>) {
      %v = memref.subview %b[] [] [] : memref<f64> to memref<f64>
      memref.copy %a, %v : memref<f64> to memref<f64>
      func.return
    }"""
    a, b = np.array(2.5), np.array(0.0)
    _run(text, "f", a, b)
    assert b == 2.5


@pytest.mark.parametrize("fast", [False, True])
def test_a_subview_dropping_every_dimension_is_a_view(fast: bool) -> None:
    # The property campaign's case: Enzyme copies a rank-0 value into element i of
    # a cache through a subview that drops the cache's one dimension; the compiled
    # path indexed the element (a copy of its value) instead of viewing it.
    text = """
    func.func @f(%a: memref<f64>, %i: index) -> f64 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %b = memref.alloc() : memref<3xf64>
      scf.for %j = %c0 to %c3 step %c1 {
        %v = memref.subview %b[%j] [1] [1] : memref<3xf64> to memref<f64, strided<[], offset: ?>>
        memref.copy %a, %v : memref<f64> to memref<f64, strided<[], offset: ?>>
      }
      %r = memref.load %b[%i] : memref<3xf64>
      memref.dealloc %b : memref<3xf64>
      func.return %r : f64
    }"""
    (value,) = Executor(_module(text), fast=fast).run("f", [np.array(2.5), 1])
    assert value == 2.5


def test_tape_read_before_write_is_an_error() -> None:
    text = """
    func.func @f(%i: index, %j: index, %v: f64) -> f64 {
      %t = tape.alloc : !tape.tape<4xf64>
      tape.store %v, %t[%i] id 0 : f64, !tape.tape<4xf64>
      %x = tape.load %t[%j] from 0 : !tape.tape<4xf64> -> f64
      func.return %x : f64
    }"""
    assert _run(text, "f", 1, 1, 2.5) == (2.5,)
    with pytest.raises(
        ExecutionError,
        match=r"case.mlir:5:7: 'tape.load' \(from store 0\) reads entry \[2\] before FWD wrote it",
    ):
        _run(text, "f", 1, 2, 2.5)


def test_enzyme_caches_are_lifo() -> None:
    text = """
    func.func @f(%a: f64, %b: f64) -> (f64, f64) {
      %c = enzyme.init : !enzyme.Cache<f64>
      enzyme.push %c, %a : !enzyme.Cache<f64>, f64
      enzyme.push %c, %b : !enzyme.Cache<f64>, f64
      %x = enzyme.pop %c : !enzyme.Cache<f64> -> f64
      %y = enzyme.pop %c : !enzyme.Cache<f64> -> f64
      func.return %x, %y : f64, f64
    }"""
    assert _run(text, "f", 1.0, 2.0) == (2.0, 1.0)


def test_unsupported_op_names_op_and_location() -> None:
    text = """
    func.func @f(%a: vector<4xf64>) {
      %b = vector.reduction <add>, %a : vector<4xf64> into f64
      func.return
    }"""
    with pytest.raises(ExecutionError, match="case.mlir:3:7: cannot execute 'vector.reduction'"):
        _run(text, "f", None)


def test_subview_with_dynamic_offset_and_fill_zero() -> None:
    # Enzyme reaches its caches through a row subview at a loop-dependent offset.
    text = """
    func.func @f(%m: memref<3x4xf64>, %i: index) {
      %c2 = arith.constant 2 : index
      %v = arith.constant 5.0 : f64
      %row = memref.subview %m[%i, 0] [1, 4] [1, 1] : memref<3x4xf64> to memref<4xf64, \
strided<[1], offset: ?>>
      memref.store %v, %row[%c2] : memref<4xf64, strided<[1], offset: ?>>
      func.return
    }
    func.func @g(%m: memref<3x4xf64>) {
      enzyme.fill_zero %m : memref<3x4xf64>
      func.return
    }"""
    m = np.ones((3, 4))
    _run(text, "f", m, 1)
    assert m[1, 2] == 5.0 and m.sum() == 11.0 + 5.0
    _run(text, "g", m)
    assert not m.any()
