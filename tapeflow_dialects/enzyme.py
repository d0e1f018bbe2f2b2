"""
The subset of Enzyme-MLIR's `enzyme` dialect that TapeFlow reads and writes.

Enzyme differentiates a function named by `enzyme.autodiff`. Before its caches are
lowered to buffers, the gradient function talks to the tape through two kinds of
values: a `!enzyme.Cache<T>` is a LIFO of values of type T that the forward sweep
pushes and the reverse sweep pops (this *is* the gradient tape in its purest form),
and a `!enzyme.Gradient<T>` is a mutable accumulator for the adjoint of one value
(`enzyme.get` / `enzyme.set`). Enzyme prints these ops in the generic format; the
custom formats below are for people writing IR by hand, and both parse.

Where a loop's trip count is known only at run time (bounded by an argument, or by
an outer index in a triangular nest), Enzyme-MLIR 0.0.16 lowers the caches to
`memref.alloc` buffers of dynamic extents and accesses them with `enzyme.store` /
`enzyme.load`, which carry the cache's logical extents; it prints these two in
their custom form, which is parsed and printed here exactly as Enzyme writes it:

    enzyme.store %v, %alloc[%i] ([%n]) : memref<?xf64>
    %w = enzyme.load %alloc[%j] ([%n]) : memref<?xf64>

`enzyme.autodiff` is written the way Enzyme's own parser expects it, with the
activities as properties:

    %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>],
        ret_activity = [#enzyme.activity<enzyme_active>]}> : (...) -> f64
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    SymbolRefAttr,
    i32,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.dialects.utils import EnumAttribute
from xdsl.dialects.utils.dynamic_index_list import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class Activity(StrEnum):
    """How an argument or result takes part in differentiation (Enzyme's names)."""

    ACTIVE = "enzyme_active"
    """A scalar whose adjoint is returned as an extra result."""
    DUP = "enzyme_dup"
    """A buffer passed with its shadow buffer, into which the adjoint accumulates."""
    CONST = "enzyme_const"
    """Not differentiated."""
    DUPNONEED = "enzyme_dupnoneed"
    """As `enzyme_dup`, but the primal value is not needed by the caller."""
    ACTIVENONEED = "enzyme_activenoneed"
    """As `enzyme_active`, but the primal value is not needed by the caller."""
    CONSTNONEED = "enzyme_constnoneed"
    """As `enzyme_const`, and the primal value is not needed by the caller."""


_SHADOWED = (Activity.DUP, Activity.DUPNONEED)
_SEEDED_RETURN = (Activity.ACTIVE, Activity.ACTIVENONEED)
_UNNEEDED = (Activity.DUPNONEED, Activity.ACTIVENONEED, Activity.CONSTNONEED)


class ArgumentRole(StrEnum):
    """What an argument of Enzyme's gradient function (`diffe<name>`) carries."""

    PRIMAL = "primal"
    SHADOW = "shadow"
    """The adjoint buffer of the primal argument before it."""
    SEED = "seed"
    """The incoming adjoint of an active result."""


def gradient_argument_roles(
    activity: Sequence[Activity], ret_activity: Sequence[Activity]
) -> list[ArgumentRole]:
    """
    The role of each argument of the gradient function, in order.

    Enzyme's gradient function takes exactly the operands of `enzyme.autodiff`:
    each primal argument, followed by its shadow if it is duplicated, then one seed
    per active result.
    """
    roles: list[ArgumentRole] = []
    for a in activity:
        roles.append(ArgumentRole.PRIMAL)
        if a in _SHADOWED:
            roles.append(ArgumentRole.SHADOW)
    roles.extend(ArgumentRole.SEED for a in ret_activity if a in _SEEDED_RETURN)
    return roles


GRADIENT_OF = "tapeflow.gradient_of"
"""Attribute `tapeflow-enzyme` puts on each gradient function: its primal."""
GRADIENT_ACTIVITY = "tapeflow.activity"
"""Attribute on each gradient function: the activities it was generated for."""
GRADIENT_RET_ACTIVITY = "tapeflow.ret_activity"
"""Attribute on each gradient function: the activities of the primal's results."""
TAPE_BUFFER = "tapeflow.tape"
"""Unit attribute on a `memref.alloc` that is one of Enzyme's cache buffers left as a
memref (the Enzyme baseline), so that the simulator counts its traffic as tape."""
REV_START = "tapeflow.rev_start"
"""Unit attribute on the first top-level op of a gradient's reverse sweep, so that
the simulator reports FWD and REV separately."""


@irdl_attr_definition
class ActivityAttr(EnumAttribute[Activity]):
    """`#enzyme.activity<enzyme_dup>`: the activity of one argument or result."""

    name = "enzyme.activity"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Activity:
        # Two spellings are MLIR: the pretty `#enzyme.activity<enzyme_dup>` and the
        # opaque `#enzyme<activity enzyme_dup>` that Enzyme's own tests use (there
        # the parser has consumed `activity` and will consume the closing `>`).
        if parser.parse_optional_punctuation("<") is None:
            return super().parse_parameter(parser)
        value = super().parse_parameter(parser)
        parser.parse_punctuation(">")
        return value


@irdl_attr_definition
class CacheType(ParametrizedAttribute, TypeAttribute):
    """`!enzyme.Cache<T>`: a LIFO of T written by FWD (push) and read by REV (pop)."""

    name = "enzyme.Cache"
    type: Attribute


@irdl_attr_definition
class GradientType(ParametrizedAttribute, TypeAttribute):
    """`!enzyme.Gradient<T>`: the adjoint accumulator of a value of type T."""

    name = "enzyme.Gradient"
    type: Attribute


@irdl_op_definition
class AutoDiffOp(IRDLOperation):
    """
    Reverse-mode differentiation of the function `fn`, called with `inputs`.

    The inputs are the primal arguments, each followed by its shadow when its
    activity is `enzyme_dup`/`enzyme_dupnoneed`, then one seed per active result.
    """

    name = "enzyme.autodiff"

    fn = prop_def(SymbolRefAttr)
    activity = prop_def(ArrayAttr[ActivityAttr])
    ret_activity = prop_def(ArrayAttr[ActivityAttr])
    width = opt_prop_def(IntegerAttr)
    inputs = var_operand_def()
    outputs = var_result_def()

    def __init__(
        self,
        fn: str | SymbolRefAttr,
        inputs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        activity: Sequence[Activity],
        ret_activity: Sequence[Activity],
    ):
        super().__init__(
            operands=[inputs],
            result_types=[result_types],
            properties={
                "fn": SymbolRefAttr(fn) if isinstance(fn, str) else fn,
                "activity": ArrayAttr(ActivityAttr(a) for a in activity),
                "ret_activity": ArrayAttr(ActivityAttr(a) for a in ret_activity),
            },
        )

    def expected_input_count(self) -> int:
        """Primal arguments, their shadows, and one seed per active result."""
        args = sum(2 if a.data in _SHADOWED else 1 for a in self.activity)
        seeds = sum(1 for a in self.ret_activity if a.data in _SEEDED_RETURN)
        return args + seeds

    def verify_(self) -> None:
        """
        The operands and results must be what Enzyme's calling convention makes of
        the callee and the activities; Enzyme itself accepts many mismatches and
        silently drops the derivative (a result too few, the shadow of a scalar,
        the adjoint of an integer). The callee is looked up in the enclosing
        symbol table (skipped for an op not yet inside one).
        """
        expected = self.expected_input_count()
        if len(self.inputs) != expected:
            raise VerifyException(
                f"'{self.name}' expects {expected} operands for its activities "
                f"(primal arguments, shadows of enzyme_dup arguments, seeds of active "
                f"results) but has {len(self.inputs)}"
            )
        name = self.fn.root_reference.data
        try:
            callee = SymbolTable.lookup_symbol(self, self.fn)
        except ValueError:  # not inside a module yet (IR being built)
            return
        if callee is None:
            raise VerifyException(
                f"'{self.name}' differentiates @{name}, but there is no function @{name}"
            )
        if not isinstance(callee, FuncOp):
            raise VerifyException(
                f"'{self.name}' differentiates @{name}, which is a '{callee.name}', not a func.func"
            )
        ftype = callee.function_type
        if len(ftype.inputs) != len(self.activity):
            raise VerifyException(
                f"'{self.name}' gives {len(self.activity)} activities but "
                f"@{name} has {len(ftype.inputs)} arguments"
            )
        if len(ftype.outputs) != len(self.ret_activity):
            raise VerifyException(
                f"'{self.name}' gives {len(self.ret_activity)} result activities "
                f"but @{name} has {len(ftype.outputs)} results"
            )
        self._verify_operands(name, ftype)
        self._verify_results(name, ftype)

    def _verify_operands(self, name: str, ftype: FunctionType) -> None:
        operands = iter(self.inputs)
        for index, (attr, arg_type) in enumerate(zip(self.activity, ftype.inputs, strict=True)):
            activity = attr.data
            primal = next(operands)
            where = f"argument {index} of @{name}"
            if primal.type != arg_type:
                raise VerifyException(
                    f"'{self.name}' passes a {primal.type} as {where}, which is a {arg_type}"
                )
            if activity in _SHADOWED:
                if not isinstance(arg_type, MemRefType):
                    raise VerifyException(
                        f"'{self.name}' marks {where} ({arg_type}) {activity}, but only a "
                        "buffer (memref) has a shadow; a scalar's derivative is "
                        "enzyme_active"
                    )
                if not isinstance(arg_type.element_type, AnyFloat):
                    raise VerifyException(
                        f"'{self.name}' marks {where} ({arg_type}) {activity}, but a "
                        "buffer of integers has no derivative; use enzyme_const"
                    )
                shadow = next(operands)
                if shadow.type != arg_type:
                    raise VerifyException(
                        f"'{self.name}' passes a {shadow.type} as the shadow of {where}, "
                        f"which must be a {arg_type} like the argument"
                    )
            if activity in _SEEDED_RETURN and not isinstance(arg_type, AnyFloat):
                raise VerifyException(
                    f"'{self.name}' marks {where} ({arg_type}) {activity}, but only a "
                    "floating-point scalar has a derivative to return; use "
                    "enzyme_const (or enzyme_dup for a buffer)"
                )
        for index, (attr, result_type) in enumerate(
            zip(self.ret_activity, ftype.outputs, strict=True)
        ):
            if attr.data in _SEEDED_RETURN:
                if not isinstance(result_type, AnyFloat):
                    raise VerifyException(
                        f"'{self.name}' marks result {index} of @{name} ({result_type}) "
                        f"{attr.data}, but only a floating-point result can be "
                        "differentiated; use enzyme_const"
                    )
        for index, (attr, result_type) in enumerate(
            zip(self.ret_activity, ftype.outputs, strict=True)
        ):
            if attr.data in _SEEDED_RETURN:
                seed = next(operands)
                if seed.type != result_type:
                    raise VerifyException(
                        f"'{self.name}' passes a {seed.type} as the seed of result "
                        f"{index} of @{name}, which is a {result_type}"
                    )

    def _verify_results(self, name: str, ftype: FunctionType) -> None:
        """Enzyme returns the primal's results (unless their activity is one of
        the `noneed`s), then the derivative of each active argument."""
        primal = [
            t
            for a, t in zip(self.ret_activity, ftype.outputs, strict=True)
            if a.data not in _UNNEEDED
        ]
        derivatives = [
            t for a, t in zip(self.activity, ftype.inputs, strict=True) if a.data in _SEEDED_RETURN
        ]
        expected = primal + derivatives
        got = [r.type for r in self.outputs]
        if got != expected:
            shown = ", ".join(str(t) for t in expected) or "none"
            raise VerifyException(
                f"'{self.name}' has {_count(len(got), 'result')} "
                f"({', '.join(map(str, got)) or 'none'}) but its activities give "
                f"{len(expected)} ({shown}): the results of "
                f"@{name} not marked *noneed ({len(primal)}), then the derivative of "
                f"each enzyme_active argument ({len(derivatives)})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> AutoDiffOp:
        fn = parser.parse_symbol_name()
        inputs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        properties = parser.parse_optional_properties_dict()
        attributes = parser.parse_optional_attr_dict()
        # Hand-written IR sometimes gives the activities as plain attributes.
        for key in ("activity", "ret_activity", "width"):
            if key in attributes and key not in properties:
                properties[key] = attributes.pop(key)
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_type()
        if not isinstance(ftype, FunctionType):
            parser.raise_error("expected a function type", pos, parser.pos)
        operands = parser.resolve_operands(inputs, ftype.inputs.data, pos)
        op = cls.create(
            operands=operands,
            result_types=ftype.outputs.data,
            properties={"fn": SymbolRefAttr(fn), **properties},
            attributes=attributes,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.fn.root_reference.data)
        printer.print_string("(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(") ")
        props = {k: v for k, v in self.properties.items() if k != "fn"}
        printer.print_string("<")
        printer.print_attr_dict(props)
        printer.print_string(">")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(
            FunctionType.from_lists([i.type for i in self.inputs], [r.type for r in self.outputs])
        )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _verify_element(op: IRDLOperation, container: Attribute, value: Attribute) -> None:
    assert isinstance(container, CacheType | GradientType)
    if container.type != value:
        raise VerifyException(
            f"'{op.name}' value type {value} does not match the element type "
            f"{container.type} of {container}"
        )


@irdl_op_definition
class InitOp(IRDLOperation):
    """Creates an empty cache (tape) or a gradient accumulator."""

    name = "enzyme.init"
    result = result_def(CacheType | GradientType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: CacheType | GradientType):
        super().__init__(result_types=[result_type])


@irdl_op_definition
class PushOp(IRDLOperation):
    """FWD: appends a value to the cache (a tape store)."""

    name = "enzyme.push"
    cache = operand_def(CacheType)
    value = operand_def()
    assembly_format = "$cache `,` $value attr-dict `:` type($cache) `,` type($value)"

    def __init__(self, cache: SSAValue, value: SSAValue):
        super().__init__(operands=[cache, value])

    def verify_(self) -> None:
        _verify_element(self, self.cache.type, self.value.type)


@irdl_op_definition
class PopOp(IRDLOperation):
    """REV: takes the most recently pushed value off the cache (a tape load)."""

    name = "enzyme.pop"
    cache = operand_def(CacheType)
    result = result_def()
    assembly_format = "$cache attr-dict `:` type($cache) `->` type($result)"

    def __init__(self, cache: SSAValue):
        assert isinstance(cache.type, CacheType)
        super().__init__(operands=[cache], result_types=[cache.type.type])

    def verify_(self) -> None:
        _verify_element(self, self.cache.type, self.result.type)


@irdl_op_definition
class GetOp(IRDLOperation):
    """Reads the current value of a gradient accumulator."""

    name = "enzyme.get"
    gradient = operand_def(GradientType)
    result = result_def()
    assembly_format = "$gradient attr-dict `:` type($gradient) `->` type($result)"

    def __init__(self, gradient: SSAValue):
        assert isinstance(gradient.type, GradientType)
        super().__init__(operands=[gradient], result_types=[gradient.type.type])

    def verify_(self) -> None:
        _verify_element(self, self.gradient.type, self.result.type)


@irdl_op_definition
class SetOp(IRDLOperation):
    """Overwrites a gradient accumulator."""

    name = "enzyme.set"
    gradient = operand_def(GradientType)
    value = operand_def()
    assembly_format = "$gradient `,` $value attr-dict `:` type($gradient) `,` type($value)"

    def __init__(self, gradient: SSAValue, value: SSAValue):
        super().__init__(operands=[gradient, value])

    def verify_(self) -> None:
        _verify_element(self, self.gradient.type, self.value.type)


@irdl_op_definition
class IgnoreDerivativesOp(IRDLOperation):
    """Its operand's value, through which Enzyme passes no derivative (a stop
    gradient). Enzyme-MLIR differentiates through it and then replaces it by its
    operand; `tapeflow-enzyme` uses it to give an op a derivative of its own."""

    name = "enzyme.ignore_derivatives"
    input = operand_def()
    result = result_def()
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value], result_types=[value.type])

    def verify_(self) -> None:
        if self.input.type != self.result.type:
            raise VerifyException(
                f"'{self.name}' must return its operand's type ({self.input.type}), "
                f"not {self.result.type}"
            )


@irdl_op_definition
class FillZeroOp(IRDLOperation):
    """Zeroes a buffer (Enzyme emits it for the shadows of temporary buffers)."""

    name = "enzyme.fill_zero"
    buffer = operand_def(MemRefType)
    assembly_format = "$buffer attr-dict `:` type($buffer)"

    def __init__(self, buffer: SSAValue):
        super().__init__(operands=[buffer])


def _verify_cache_access(
    op: IRDLOperation,
    buffer: Attribute,
    indices: Sequence[SSAValue],
    static_sizes: DenseArrayBase,
    sizes: Sequence[SSAValue],
) -> None:
    """What `enzyme.store/load` must satisfy: one index per dimension of the cache
    buffer, one logical extent per index (a constant or a value), as many values as
    the extents that are dynamic, and no negative constant extent."""
    assert isinstance(buffer, MemRefType)
    rank = len(buffer.get_shape())
    if len(indices) != rank:
        raise VerifyException(
            f"'{op.name}' has {_count(len(indices), 'index')} for a cache buffer of rank "
            f"{rank} ({buffer})"
        )
    extents = static_sizes.get_values()
    if len(extents) != len(indices):
        raise VerifyException(
            f"'{op.name}' gives {_count(len(extents), 'extent')} for "
            f"{_count(len(indices), 'index')}: Enzyme writes the logical extent of "
            "every cache dimension it indexes"
        )
    dynamic = sum(1 for e in extents if e == DYNAMIC_INDEX)
    if dynamic != len(sizes):
        raise VerifyException(
            f"'{op.name}' has {dynamic} dynamic extents but {len(sizes)} extent values"
        )
    for e in extents:
        if e != DYNAMIC_INDEX and e < 0:
            raise VerifyException(f"'{op.name}' has a negative extent {e}")


def _parse_cache_access(parser: Parser) -> tuple[object, list[object], list[object], list[int]]:
    """`%buffer[%i, ...] ([extent, ...])`, the part both ops share."""
    buffer = parser.parse_unresolved_operand()
    indices = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )
    parser.parse_punctuation("(")
    sizes, static = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX)
    parser.parse_punctuation(")")
    return buffer, indices, list(sizes), list(static)


def _parse_cache_type(
    parser: Parser, buffer: object, indices: list[object], sizes: list[object]
) -> tuple[MemRefType, list[SSAValue], dict[str, Attribute]]:
    """The rest both ops share, ` {attrs} : memref<...>`: the buffer's type, the
    buffer, index and extent operands resolved, and the attributes."""
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    buffer_type = parser.parse_type()
    if not isinstance(buffer_type, MemRefType):
        parser.raise_error("expected a memref type", pos, parser.pos)
    index = IndexType()
    operands = [
        parser.resolve_operand(buffer, buffer_type),  # type: ignore[arg-type]
        *(parser.resolve_operand(i, index) for i in indices),  # type: ignore[arg-type]
        *(parser.resolve_operand(s, index) for s in sizes),  # type: ignore[arg-type]
    ]
    return buffer_type, operands, attributes


def _cache_properties(static: list[int], segments: list[int]) -> dict[str, Attribute]:
    return {
        "static_sizes": DenseArrayBase.from_list(i64, static),
        "operandSegmentSizes": DenseArrayBase.from_list(i32, segments),
    }


def _print_cache_type(printer: Printer, op: Operation, buffer: SSAValue) -> None:
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(buffer.type)


def _print_cache_access(
    printer: Printer,
    buffer: SSAValue,
    indices: Sequence[SSAValue],
    sizes: Sequence[SSAValue],
    static: DenseArrayBase,
) -> None:
    printer.print_operand(buffer)
    printer.print_string("[")
    printer.print_list(indices, printer.print_operand)
    printer.print_string("] (")
    print_dynamic_index_list(printer, DYNAMIC_INDEX, sizes, static.get_values())
    printer.print_string(")")


@irdl_op_definition
class CacheStoreOp(IRDLOperation):
    """
    FWD: writes one value of a cache buffer whose extents Enzyme knows only at run
    time (a loop bounded by an argument, or by an outer index: triangular nests).

        enzyme.store %v, %alloc[%i] ([%n]) : memref<?xf64>

    `indices` address the buffer as `memref.store` does; the parenthesised list
    gives the logical extent of each indexed dimension (the trip counts Enzyme
    sized the cache with; a constant where it is static), which Enzyme's
    `enzyme-flatten-caches` uses to linearise. Enzyme-MLIR 0.0.16 leaves these ops
    in its output (after `remove-unnecessary-enzyme-ops`) for every cache access
    inside a loop whose trip count is not a constant.
    """

    name = "enzyme.store"
    value = operand_def()
    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        value: SSAValue,
        buffer: SSAValue,
        indices: Sequence[SSAValue],
        extents: Sequence[int | SSAValue],
    ):
        static = [DYNAMIC_INDEX if isinstance(e, SSAValue) else e for e in extents]
        dynamic = [e for e in extents if isinstance(e, SSAValue)]
        super().__init__(
            operands=[value, buffer, indices, dynamic],
            properties={"static_sizes": DenseArrayBase.from_list(i64, static)},
        )

    def verify_(self) -> None:
        buffer = self.buffer.type
        assert isinstance(buffer, MemRefType)
        if self.value.type != buffer.element_type:
            raise VerifyException(
                f"'{self.name}' stores a {self.value.type} into a cache of "
                f"{buffer.element_type} ({buffer})"
            )
        _verify_cache_access(self, buffer, self.indices, self.static_sizes, self.sizes)

    @classmethod
    def parse(cls, parser: Parser) -> CacheStoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        buffer, indices, sizes, static = _parse_cache_access(parser)
        buffer_type, operands, attributes = _parse_cache_type(parser, buffer, indices, sizes)
        return cls.create(
            operands=[parser.resolve_operand(value, buffer_type.element_type), *operands],
            properties=_cache_properties(static, [1, 1, len(indices), len(sizes)]),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        _print_cache_access(printer, self.buffer, self.indices, self.sizes, self.static_sizes)
        _print_cache_type(printer, self, self.buffer)


@irdl_op_definition
class CacheLoadOp(IRDLOperation):
    """
    REV: reads one value of a cache buffer written by `enzyme.store`.

        %v = enzyme.load %alloc[%j] ([%n]) : memref<?xf64>
    """

    name = "enzyme.load"
    buffer = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    result = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self, buffer: SSAValue, indices: Sequence[SSAValue], extents: Sequence[int | SSAValue]
    ):
        buffer_type = buffer.type
        assert isinstance(buffer_type, MemRefType)
        static = [DYNAMIC_INDEX if isinstance(e, SSAValue) else e for e in extents]
        dynamic = [e for e in extents if isinstance(e, SSAValue)]
        super().__init__(
            operands=[buffer, indices, dynamic],
            result_types=[buffer_type.element_type],
            properties={"static_sizes": DenseArrayBase.from_list(i64, static)},
        )

    def verify_(self) -> None:
        buffer = self.buffer.type
        assert isinstance(buffer, MemRefType)
        if self.result.type != buffer.element_type:
            raise VerifyException(
                f"'{self.name}' reads a {self.result.type} from a cache of "
                f"{buffer.element_type} ({buffer})"
            )
        _verify_cache_access(self, buffer, self.indices, self.static_sizes, self.sizes)

    @classmethod
    def parse(cls, parser: Parser) -> CacheLoadOp:
        buffer, indices, sizes, static = _parse_cache_access(parser)
        buffer_type, operands, attributes = _parse_cache_type(parser, buffer, indices, sizes)
        return cls.create(
            operands=operands,
            result_types=[buffer_type.element_type],
            properties=_cache_properties(static, [1, len(indices), len(sizes)]),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_cache_access(printer, self.buffer, self.indices, self.sizes, self.static_sizes)
        _print_cache_type(printer, self, self.buffer)


Enzyme = Dialect(
    "enzyme",
    [
        AutoDiffOp,
        InitOp,
        PushOp,
        PopOp,
        GetOp,
        SetOp,
        FillZeroOp,
        IgnoreDerivativesOp,
        CacheStoreOp,
        CacheLoadOp,
    ],
    [ActivityAttr, CacheType, GradientType],
)
