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


@irdl_attr_definition
class ActivityAttr(EnumAttribute[Activity]):
    """`#enzyme.activity<enzyme_dup>`: the activity of one argument or result."""

    name = "enzyme.activity"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Activity:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)


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
        expected = self.expected_input_count()
        if len(self.inputs) != expected:
            raise VerifyException(
                f"'{self.name}' expects {expected} operands for its activities "
                f"(primal arguments, shadows of enzyme_dup arguments, seeds of active "
                f"results) but has {len(self.inputs)}"
            )
        callee = SymbolTable.lookup_symbol(self, self.fn)
        if isinstance(callee, FuncOp):
            ftype = callee.function_type
            if len(ftype.inputs) != len(self.activity):
                raise VerifyException(
                    f"'{self.name}' gives {len(self.activity)} activities but "
                    f"@{self.fn.root_reference.data} has {len(ftype.inputs)} arguments"
                )
            if len(ftype.outputs) != len(self.ret_activity):
                raise VerifyException(
                    f"'{self.name}' gives {len(self.ret_activity)} result activities "
                    f"but @{self.fn.root_reference.data} has {len(ftype.outputs)} "
                    "results"
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
