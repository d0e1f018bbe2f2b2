"""
MLIR's custom syntax for upstream ops that xDSL 0.74 reads only in another form.

Users write these, and MLIR prints them (Enzyme's checkpointing emits
`memref.copy`), so the TapeFlow tools read them:

- `memref.copy %a, %b : memref<4xf64> to memref<4xf64>` (xDSL 0.74 has only the
  generic form);
- `scf.if %c -> f64 {` with a single result type and no parentheses (MLIR prints
  the parentheses, but its parser accepts both);
- `scf.while` printed with locations (xDSL 0.74 puts a `loc(...)` between the
  type and the regions, which MLIR rejects);
- `arith.truncf %x fastmath<fast> : f64 to f32` and `arith.extf` with fast-math
  flags, which Enzyme emits when it differentiates a rounding (xDSL 0.74 gives
  these ops no flags; they are kept as a `fastmath` attribute);
- `memref.global "private" constant @w : memref<8xf64> = dense<[...]>`, a constant
  table (weights, a stencil's coefficients) or a global buffer (`= uninitialized`),
  which xDSL 0.74 reads only in the generic form.

Each op is a subclass of xDSL's, with the same name and fields, so passes and the
executor that test `isinstance(op, memref.CopyOp)` see no difference. The
`memref` and `scf` dialects of `upstream_dialect_overrides()` are xDSL's with these
subclasses in place; the tools register them instead of xDSL's.
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, StringAttr, TensorType, UnitAttr, i1
from xdsl.ir import Attribute, Dialect, Operation, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException


class CopyOp(memref.CopyOp):
    """`memref.copy %src, %dst : memref<...> to memref<...>`."""

    @classmethod
    def parse(cls, parser: Parser) -> CopyOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        destination = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("to")
        destination_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(source, source_type),
            parser.resolve_operand(destination, destination_type),
        )
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(", ")
        printer.print_operand(self.destination)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" to ")
        printer.print_attribute(self.destination.type)


class IfOp(scf.IfOp):
    """`scf.if`, whose result types may also be written without parentheses."""

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.parse_operand(i1)
        return_types = []
        if parser.parse_optional_punctuation("->"):
            if parser.parse_optional_punctuation("(") is not None:
                if parser.parse_optional_punctuation(")") is None:
                    return_types = parser.parse_comma_separated_list(
                        parser.Delimiter.NONE, parser.parse_type
                    )
                    parser.parse_punctuation(")")
            else:
                return_types = [parser.parse_type()]
        then_region = cls.parse_region_with_yield(parser)
        else_region = (
            cls.parse_region_with_yield(parser)
            if parser.parse_optional_keyword("else")
            else Region()
        )
        attr_dict = parser.parse_optional_attr_dict()
        return cls(cond, return_types, then_region, else_region, attr_dict)


class WhileOp(scf.WhileOp):
    """`scf.while`, printed as MLIR reads it also with locations: xDSL 0.74 prints
    the op's `loc(...)` after its type (before the regions) as well as at the end,
    which MLIR's parser rejects."""

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        block_args = self.before_region.block.args
        printer.print_list(
            zip(block_args, self.arguments, strict=True),
            lambda pair: self._print_pair(printer, pair),
        )
        printer.print_string(") : ")
        printer.print_function_type(self.operand_types, self.result_types)
        printer.print_string(" ")
        printer.print_region(self.before_region, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.after_region)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


class _FloatCast:
    """`$input (fastmath<flags>)? attr-dict : type($input) to type($result)`."""

    @classmethod
    def parse(cls, parser: Parser):  # type: ignore[no-untyped-def]
        value = parser.parse_unresolved_operand()
        flags = None
        if parser.parse_optional_keyword("fastmath") is not None:
            flags = arith.FastMathFlagsAttr(arith.FastMathFlagsAttr.parse_parameter(parser))
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        op = cls(parser.resolve_operand(value, source_type), result_type)  # type: ignore[call-arg]
        op.attributes.update(attributes)
        if flags is not None and flags != arith.FastMathFlagsAttr("none"):
            op.attributes["fastmath"] = flags
        return op


class TruncFOp(_FloatCast, arith.TruncFOp):
    """`arith.truncf`, with MLIR's optional fast-math flags."""


class ExtFOp(_FloatCast, arith.ExtFOp):
    """`arith.extf`, with MLIR's optional fast-math flags."""


class GlobalOp(memref.GlobalOp):
    """`memref.global ("private"|"public"|"nested")? (constant)? @name : type
    (= dense<...> | = uninitialized)? (alignment = N)? attr-dict`, MLIR's custom
    form (as MLIR 19 prints it; an alignment in the attribute dictionary, as older
    MLIR wrote it, is read too). A global with no initializer (an external
    declaration) is refused: nothing defines it."""

    @classmethod
    def parse(cls, parser: Parser) -> GlobalOp:
        start = parser.pos
        visibility = parser.parse_optional_str_literal()
        constant = parser.parse_optional_keyword("constant") is not None
        name = parser.parse_symbol_name()
        parser.parse_punctuation(":")
        memref_type = parser.parse_type()
        if parser.parse_optional_punctuation("=") is None:
            parser.raise_error(
                f"memref.global @{name.data} has no initial value (an external "
                "declaration): give one (= dense<...>) or '= uninitialized'",
                start,
                parser.pos,
            )
        if parser.parse_optional_keyword("uninitialized") is not None:
            initial: Attribute = UnitAttr()
        elif parser.parse_optional_keyword("dense") is not None and isinstance(
            memref_type, MemRefType
        ):
            # The literal's type is the memref's, as a tensor (MLIR elides it).
            tensor = TensorType(memref_type.element_type, memref_type.get_shape())
            initial = parser.parse_dense_int_or_fp_elements_attr(tensor)
        else:
            initial = parser.parse_attribute()
        alignment: Attribute | None = None
        if parser.parse_optional_keyword("alignment") is not None:  # MLIR 19's form
            parser.parse_punctuation("=")
            alignment = IntegerAttr(parser.parse_integer(allow_boolean=False), 64)
        attributes = parser.parse_optional_attr_dict()
        alignment = attributes.pop("alignment", alignment)  # older MLIR's: in the dict
        op = cls.build(
            properties={
                "sym_name": name,
                "sym_visibility": StringAttr(visibility or "public"),
                "type": memref_type,
                "initial_value": initial,
                "constant": UnitAttr() if constant else None,
                "alignment": alignment if isinstance(alignment, IntegerAttr) else None,
            }
        )
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.sym_visibility)
        if self.constant is not None:
            printer.print_string(" constant")
        printer.print_string(f" @{self.sym_name.data} : ")
        printer.print_attribute(self.type)
        printer.print_string(" = ")
        if isinstance(self.initial_value, UnitAttr):
            printer.print_string("uninitialized")
        else:  # MLIR takes the literal's type from the memref's: it is not written
            text = StringIO()
            Printer(stream=text).print_attribute(self.initial_value)
            printer.print_string(text.getvalue().rsplit(" : ", 1)[0])
        if self.alignment is not None:
            printer.print_string(f" alignment = {self.alignment.value.data}")
        printer.print_op_attributes(self.attributes)


class GetGlobalOp(memref.GetGlobalOp):
    """`memref.get_global`, verified as MLIR verifies it: the symbol names a
    `memref.global` of the module, of the type the op gives (xDSL 0.74 checks
    neither, so a typo reached Enzyme or the executor)."""

    def verify_(self) -> None:
        name = self.name_.root_reference.data
        found = SymbolTable.lookup_symbol(self, self.name_)
        if found is None:
            module = self.get_toplevel_object()
            names = (
                sorted(op.sym_name.data for op in module.walk() if isinstance(op, memref.GlobalOp))
                if isinstance(module, Operation)
                else []
            )
            raise VerifyException(
                f"'memref.get_global' names @{name}, which is not defined (memref.globals "
                f"of the module: {', '.join('@' + n for n in names) or 'none'})"
            )
        if not isinstance(found, memref.GlobalOp):
            raise VerifyException(
                f"'memref.get_global' names @{name}, a '{found.name}', not a memref.global"
            )
        if found.type != self.memref.type:
            raise VerifyException(
                f"'memref.get_global' gives {self.memref.type}, but @{name} is a {found.type}"
            )


def _with(dialect: Dialect, replacements: dict[type[Operation], type[Operation]]) -> Dialect:
    return Dialect(
        dialect.name,
        [replacements.get(op, op) for op in dialect.operations],
        list(dialect.attributes),
    )


def upstream_dialect_overrides() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> factory of xDSL's dialect with the ops above in place."""
    return {
        "memref": lambda: _with(
            memref.MemRef,
            {
                memref.CopyOp: CopyOp,
                memref.GlobalOp: GlobalOp,
                memref.GetGlobalOp: GetGlobalOp,
            },
        ),
        "scf": lambda: _with(scf.Scf, {scf.IfOp: IfOp, scf.WhileOp: WhileOp}),
        "arith": lambda: _with(arith.Arith, {arith.TruncFOp: TruncFOp, arith.ExtFOp: ExtFOp}),
    }
