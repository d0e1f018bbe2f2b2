"""
User-facing diagnostics for the TapeFlow tools.

xDSL reports a verifier failure by printing the whole module; a person wants the
file, line and column of the op at fault. `LocatingParser` stamps every parsed op
with its source position (unless the input gave one), and `verify_located`
verifies a module op by op, innermost first, naming the op's position in the
message. `reported_errors` turns every user-caused failure into one message on
stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    ParseError,
    VerifyException,
)

from tapeflow_dialects.locations import location_of


class ToolError(Exception):
    """A failure caused by the tool's input or options, reported as a message."""


class LocatedVerifyError(VerifyException):
    """A verifier failure whose message starts with `file:line:col: error:`."""


class LocatingParser(Parser):
    """An xDSL parser that records where each operation was written."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self.line_offset = line_offset

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
    """Verify `root`; the first failure (innermost op first) names its location."""
    for op in root.walk(region_first=True):
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as err:
            suffix = f" ({context})" if context else ""
            raise LocatedVerifyError(
                f"{location_of(op)}: error: {err}{suffix}"
            ) from None


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
    """Run a tool's body; report user errors on stderr and exit non-zero."""
    try:
        yield
    except ParseError as err:
        _fail(format_parse_error(err))
    except DiagnosticException as err:
        message = str(err)
        _fail(message if ": error:" in message else f"{tool}: error: {message}")
    except ToolError as err:
        _fail(f"{tool}: error: {err}")
    except ArgSpecParseError as err:
        _fail(f"{tool}: error: {err}")
    except OSError as err:
        _fail(f"{tool}: error: {err.strerror or err}: {err.filename or ''}".rstrip(": "))
    except KeyboardInterrupt:
        _fail(f"{tool}: interrupted", code=130)
    except Exception as err:  # noqa: BLE001 - the last line of defence for users
        if os.environ.get("TAPEFLOW_TRACEBACK"):
            raise
        _fail(
            f"{tool}: error: {type(err).__name__}: {err}\n"
            f"(set TAPEFLOW_TRACEBACK=1 to see where this happened)"
        )


def _fail(message: str, code: int = 1) -> None:
    sys.stdout.flush()
    print(message, file=sys.stderr)
    sys.exit(code)
