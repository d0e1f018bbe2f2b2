"""
User-facing diagnostics for the TapeFlow tools.

xDSL reports a verifier failure by printing the whole module; a person wants the
file, line and column of the op at fault. `LocatingParser` stamps every parsed op
with its source position (unless the input gave one), and `verify_located`
verifies a module op by op, innermost first, naming the op's position in the
message. It also checks what xDSL's verifier does not: that every value is
defined before it is used (dominance, reported at the use) and that no symbol is
defined twice (reported at the second definition). `decode_source` turns the
bytes of an input file into text or into a message naming the file (binary,
UTF-16, invalid UTF-8 at line:col). `reported_errors` turns every user-caused
failure into one message on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import codecs
import dataclasses
import errno
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl import AttributeInvT
from xdsl.irdl.dominance import DominanceInfo
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)
from xdsl.utils.lexer import Span

from tapeflow_dialects.locations import location_of
from tapeflow_tools.interrupt import exit_status, stopped


class ToolError(Exception):
    """A failure caused by the tool's input or options, reported as a message."""


class LocatedVerifyError(VerifyException):
    """A verifier failure whose message starts with `file:line:col: error:`."""


class SourceError(DiagnosticException):
    """An input file that is not MLIR text; the message names the file."""


_WIDE_BOMS = {
    codecs.BOM_UTF32_LE: "UTF-32",
    codecs.BOM_UTF32_BE: "UTF-32",
    codecs.BOM_UTF16_LE: "UTF-16",
    codecs.BOM_UTF16_BE: "UTF-16",
}


def decode_source(data: bytes, name: str, line_offset: int = 0) -> str:
    """
    The text of an MLIR input file, or a `SourceError` saying why it is not
    text: a UTF-16/32 file (with its byte-order mark, or ASCII interleaved with
    NUL bytes), a binary file, or invalid UTF-8 (at the line and column of the
    first bad byte, `line_offset` lines into the file for a chunk of a split
    input). A UTF-8 byte-order mark is dropped.
    """

    def at(offset: int) -> str:
        """`name:line:col` of byte `offset` (columns in bytes)."""
        line = line_offset + data.count(b"\n", 0, offset) + 1
        col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        return f"{name}:{line}:{col}"

    for bom, encoding in _WIDE_BOMS.items():
        if data.startswith(bom):
            raise SourceError(
                f"{at(0)}: error: the file is {encoding} text; the TapeFlow tools read "
                f"UTF-8 (convert it with: iconv -f {encoding} -t UTF-8)"
            )
    if b"\x00" in data:
        head = data[:256]
        if head.count(0) * 3 >= len(head):
            raise SourceError(
                f"{at(data.index(0))}: error: the file looks like UTF-16 text (NUL bytes between "
                "the characters); the TapeFlow tools read UTF-8 (convert it with: "
                "iconv -f UTF-16 -t UTF-8)"
            )
        raise SourceError(
            f"{at(data.index(0))}: error: binary data (a NUL byte at offset {data.index(0)}), "
            "not MLIR text"
        )
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SourceError(
            f"{at(err.start)}: error: byte 0x{data[err.start]:02x} is not valid "
            "UTF-8; MLIR files are UTF-8 text"
        ) from None


class LocatingParser(Parser):
    """An xDSL parser that records where each operation was written."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self.line_offset = line_offset
        self._first_uses: dict[str, Span] = {}

    def resolve_operand(
        self, operand: UnresolvedOperand, type: AttributeInvT
    ) -> SSAValue[AttributeInvT]:
        """xDSL's, remembering where each value not yet defined is first used."""
        name = operand.operand_name
        if name not in self.ssa_values and name not in self._first_uses:
            self._first_uses[name] = dataclasses.replace(operand.span, line_offset=self.line_offset)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """xDSL's, but a value that is never defined is reported where it is
        first used (xDSL reports all of them at the end of the input)."""
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as err:
            undefined = [n for n in self.forward_ssa_references if n in self._first_uses]
            if not err.msg.startswith("values used but not defined") or not undefined:
                raise
            names = ", ".join(f"%{n}" for n in self.forward_ssa_references)
            raise ParseError(
                self._first_uses[undefined[0]],
                f"use of undefined value %{undefined[0]} (values used but never defined "
                f"in their scope: {names})",
            ) from None

    def parse_operation(self) -> Operation:
        span = dataclasses.replace(self._current_token.span, line_offset=self.line_offset)
        where = span.get_location()
        try:
            op = super().parse_operation()
        except LocatedVerifyError:
            raise
        except VerifyException as err:
            # An attribute or type that fails its own verifier while being parsed.
            raise LocatedVerifyError(f"{where}: error: {err}") from None
        if isinstance(op.location, UnknownLoc):
            op.location = FileLineColLoc(
                StringAttr(where.file), IntAttr(where.line), IntAttr(where.col)
            )
        return op


def verify_located(root: Operation, context: str = "") -> None:
    """Verify `root`; the first failure (innermost op first) names its location.
    Before xDSL's verifiers, each op's operands are checked to be defined before
    it (at the use) and each symbol table to define every name once (at the
    second definition)."""
    suffix = f" ({context})" if context else ""
    dominance = _Dominance()
    for op in root.walk(region_first=True):
        try:
            dominance.check_operands(op)
            if op.has_trait(SymbolTable):
                _check_unique_symbols(op)
            op.verify(verify_nested_ops=False)
        except LocatedVerifyError as err:
            raise LocatedVerifyError(f"{err}{suffix}") from None
        except VerifyException as err:
            raise LocatedVerifyError(f"{location_of(op)}: error: {err}{suffix}") from None


def _value_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else "a value"


def _check_unique_symbols(table: Operation) -> None:
    """A name defined twice is reported where it is defined the second time."""
    first: dict[str, Operation] = {}
    for region in table.regions:
        for block in region.blocks:
            for op in block.ops:
                name = op.properties.get("sym_name") or op.attributes.get("sym_name")
                if not isinstance(name, StringAttr):
                    continue
                if name.data in first:
                    raise LocatedVerifyError(
                        f"{location_of(op)}: error: redefinition of symbol "
                        f"@{name.data}, first defined at {location_of(first[name.data])}"
                    )
                first[name.data] = op


class _Dominance:
    """
    Def-before-use: a value must be defined before each use. Within one block the
    defining op comes first; across the blocks of a region, the defining block
    dominates the user's (xDSL's `DominanceInfo`); a value is never used outside
    the region it is defined in, nor inside the op that defines it. The body of a
    `builtin.module` is a graph region (order does not matter there), as in MLIR.
    """

    def __init__(self) -> None:
        self._order: dict[Block, dict[Operation, int]] = {}
        self._dominance: dict[Region, DominanceInfo] = {}

    def _position(self, op: Operation, block: Block) -> int:
        order = self._order.get(block)
        if order is None:
            order = self._order[block] = {o: i for i, o in enumerate(block.ops)}
        return order[op]

    def _dominates(self, a: Block, b: Block) -> bool:
        region = a.parent
        assert region is not None
        info = self._dominance.get(region)
        if info is None:
            info = self._dominance[region] = DominanceInfo(region)
        return info.dominates(a, b)

    def check_operands(self, op: Operation) -> None:
        for index, value in enumerate(op.operands):
            problem = self._problem(value, op)
            if problem:
                where = ""
                if isinstance(value, OpResult):
                    where = f" (defined at {location_of(value.op)})"
                raise LocatedVerifyError(
                    f"{location_of(op)}: error: '{op.name}' uses {_value_name(value)} "
                    f"(operand #{index}) {problem}{where}"
                )

    def _problem(self, value: SSAValue, user: Operation) -> str | None:
        """Why `value` may not be used by `user`, or None if it may."""
        if isinstance(value, OpResult):
            definer = value.op
            block = definer.parent_block()
            if block is None:
                return "which is the result of an op that is not in the IR"
            if definer is user or definer.is_ancestor(user):
                return "inside the op that defines it"
        elif isinstance(value, BlockArgument):
            definer = None
            block = value.block
        else:
            return None
        if isinstance(block.parent_op(), ModuleOp):
            return None  # a graph region
        # The ancestor of the user that lies in the region of the definition.
        anchor: Operation | None = user
        while anchor is not None and anchor.parent_region() is not block.parent:
            anchor = anchor.parent_op()
        if anchor is None:
            return "outside the region that defines it"
        anchor_block = anchor.parent_block()
        assert anchor_block is not None
        if anchor_block is block:
            if definer is None or self._position(definer, block) < self._position(anchor, block):
                return None
            return "before its definition"
        if self._dominates(block, anchor_block):
            return None
        return "in a block that its definition does not dominate"


def format_parse_error(err: ParseError) -> str:
    """`file:line:col: error: message`, then the line with a caret under the spot."""
    where = err.span.get_location()
    context = err.span.print_with_context().rstrip("\n")
    context = context.split("\n", 1)[1] if "\n" in context else ""
    return f"{where}: error: {err.msg}\n{context}"


class LocatedParseError(ParseError):
    """A parse error that prints in the `file:line:col: error:` form."""

    def __str__(self) -> str:
        return format_parse_error(self)


@contextmanager
def reported_errors(tool: str) -> Iterator[None]:
    """Run a tool's body; report user errors on stderr and exit non-zero. What the
    body printed is flushed here, so that a standard output that cannot take it
    (a full disk, `> /dev/full`) is reported as such."""
    stdout = sys.stdout
    sys.stdout = _GuardedStdout(stdout)  # type: ignore[assignment]
    try:
        yield
        _flush_stdout()
    except ParseError as err:
        _fail(format_parse_error(err))
    except DiagnosticException as err:
        message = str(err)
        _fail(message if ": error:" in message else f"{tool}: error: {message}")
    except ToolError as err:
        _fail(f"{tool}: error: {err}")
    except ArgSpecParseError as err:
        _fail(f"{tool}: error: {err}")
    except _StdoutError as err:
        _fail(f"{tool}: error: the standard output cannot be written: {err}")
    except MemoryError as err:
        _fail(f"{tool}: error: {out_of_memory(err)}")
    except OSError as err:
        if err.errno == errno.ENOMEM:
            _fail(f"{tool}: error: {out_of_memory()}")
        _fail(f"{tool}: error: {err.strerror or err}: {err.filename or ''}".rstrip(": "))
    except KeyboardInterrupt as err:
        _fail(f"{tool}: {stopped(err)}", code=exit_status(err))
    except Exception as err:  # noqa: BLE001 - the last line of defence for users
        if os.environ.get("TAPEFLOW_TRACEBACK"):
            raise
        _fail(
            f"{tool}: error: {type(err).__name__}: {err}\n"
            f"(set TAPEFLOW_TRACEBACK=1 to see where this happened)"
        )
    finally:
        if isinstance(sys.stdout, _GuardedStdout):
            sys.stdout = stdout


_phase = ["starting"]


def entering(phase: str) -> None:
    """Name what the process does now (`lowering the gradient`), for the message
    if memory runs out (`out_of_memory`)."""
    _phase[0] = phase


def peak_memory() -> str:
    """The highest resident memory this process reached, in MiB."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB; bytes on macOS
    return f"{peak / (2**20 if sys.platform == 'darwin' else 2**10):.0f} MiB"


def out_of_memory(err: MemoryError | None = None) -> str:
    """The message for a MemoryError: the phase (`entering`), what failed (if
    said) and the peak."""
    what = f": {err}" if err is not None and str(err) else ""
    return (
        f"out of memory while {_phase[0]}{what} (this process's resident memory peaked at "
        f"{peak_memory()}); free memory or raise the limit, or choose smaller inputs"
    )


class _StdoutError(Exception):
    """Writing the standard output failed (the message is the system's reason)."""


class _GuardedStdout:
    """The standard output, whose write errors are told apart from those of files
    (an OSError of a full disk names no file)."""

    def __init__(self, stream: object) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)  # type: ignore[attr-defined, no-any-return]
        except OSError as err:
            raise _StdoutError(err.strerror or str(err)) from None

    def flush(self) -> None:
        try:
            self._stream.flush()  # type: ignore[attr-defined]
        except OSError as err:
            raise _StdoutError(err.strerror or str(err)) from None

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except (OSError, _StdoutError) as err:
        # What could not be written is dropped, so that the exit does not try again.
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        raise _StdoutError(str(err)) from None


def _fail(message: str, code: int = 1) -> None:
    try:
        _flush_stdout()
    except _StdoutError:
        pass
    print(message, file=sys.stderr)
    sys.exit(code)
