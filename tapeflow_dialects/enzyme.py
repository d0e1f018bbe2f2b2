"""
The subset of Enzyme-MLIR's `enzyme` dialect that TapeFlow reads and writes.

Enzyme differentiates a function named by `enzyme.autodiff`. Before its caches are
lowered to buffers, the gradient function talks to the tape through two kinds of
values: a `!enzyme.Cache<T>` is a LIFO of values of type T that the forward sweep
pushes and the reverse sweep pops (this *is* the gradient tape in its purest form),
and a `!enzyme.Gradient<T>` is a mutable accumulator for the adjoint of one value
(`enzyme.get` / `enzyme.set`). Enzyme prints these ops in the generic format; the
custom formats below are for people writing IR by hand, and both parse.

`enzyme.autodiff` is written the way Enzyme's own parser expects it, with the
activities as properties:

    %r = enzyme.autodiff @f(%x, %dx, %seed) <{activity = [#enzyme.activity<enzyme_dup>],
        ret_activity = [#enzyme.activity<enzyme_active>]}> : (...) -> f64
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    SymbolRefAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
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
                f"'{self.name}' differentiates @{name}, which is a '{callee.name}', "
                "not a func.func"
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
        for index, (attr, result_type) in enumerate(zip(self.ret_activity, ftype.outputs, strict=True)):
            if attr.data in _SEEDED_RETURN:
                if not isinstance(result_type, AnyFloat):
                    raise VerifyException(
                        f"'{self.name}' marks result {index} of @{name} ({result_type}) "
                        f"{attr.data}, but only a floating-point result can be "
                        "differentiated; use enzyme_const"
                    )
        for index, (attr, result_type) in enumerate(zip(self.ret_activity, ftype.outputs, strict=True)):
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
            t for a, t in zip(self.ret_activity, ftype.outputs, strict=True) if a.data not in _UNNEEDED
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
            FunctionType.from_lists(
                [i.type for i in self.inputs], [r.type for r in self.outputs]
            )
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
    assembly_format = (
        "$gradient `,` $value attr-dict `:` type($gradient) `,` type($value)"
    )

    def __init__(self, gradient: SSAValue, value: SSAValue):
        super().__init__(operands=[gradient, value])

    def verify_(self) -> None:
        _verify_element(self, self.gradient.type, self.value.type)


@irdl_op_definition
class FillZeroOp(IRDLOperation):
    """Zeroes a buffer (Enzyme emits it for the shadows of temporary buffers)."""

    name = "enzyme.fill_zero"
    buffer = operand_def(MemRefType)
    assembly_format = "$buffer attr-dict `:` type($buffer)"

    def __init__(self, buffer: SSAValue):
        super().__init__(operands=[buffer])


Enzyme = Dialect(
    "enzyme",
    [AutoDiffOp, InitOp, PushOp, PopOp, GetOp, SetOp, FillZeroOp],
    [ActivityAttr, CacheType, GradientType],
)
