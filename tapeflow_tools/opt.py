"""
`tapeflow-opt`: xdsl-opt with the TapeFlow dialects and passes.

Every xdsl-opt flag works as it does there (`-p` pipelines with options,
`--split-input-file`, `--verify-diagnostics`, `--print-op-generic`, `-o`, `-t`).
What differs: diagnostics name the file, line and column of the op at fault, IR
is verified before the first pass and after every pass with that located
verifier, and bad input ends with a message and a non-zero exit, not a
traceback.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from lowering import get_all_passes
from tapeflow_dialects import get_all_dialects
from tapeflow_tools.diagnostics import (
    LocatedParseError,
    LocatingParser,
    ToolError,
    reported_errors,
    verify_located,
)


def _tapeflow_version() -> str:
    try:
        return version("tapeflow")
    except PackageNotFoundError:
        return "(source checkout)"


class TapeflowOptMain(xDSLOptMain):
    version_format = (
        f"tapeflow-opt {_tapeflow_version()}, built on xdsl {{xdsl_version}}"
    )

    def __init__(self, args: Sequence[str] | None = None):
        self._chunk_line_offset = 0
        super().__init__(description="TapeFlow modular optimizer driver", args=args)

    def register_all_dialects(self) -> None:
        # The multiverse holds our dialects when the package is installed; a
        # source checkout run without installing still gets them, never twice.
        super().register_all_dialects()
        known = set(self.ctx.registered_dialect_names)
        for name, factory in get_all_dialects().items():
            if name not in known:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in get_all_passes().items():
            if name not in self.available_passes:
                self.register_pass(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            text = io.read().decode()
            parser = LocatingParser(
                self.ctx, text, self.get_input_name(), self._chunk_line_offset
            )
            return parser.parse_module(not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        try:
            return super().prepare_input()
        except ValueError as err:  # an input file extension with no frontend
            raise ToolError(str(err)) from None

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        self._chunk_line_offset = start_offset
        try:
            return super().parse_chunk(chunk, file_extension, start_offset)
        except ParseError as err:
            raise LocatedParseError(err.span, err.msg) from None

    def setup_pipeline(self) -> None:
        try:
            super().setup_pipeline()
        except ValueError as err:  # xDSL's word for an unknown pass or bad option
            raise ToolError(str(err)) from None
        started = time.perf_counter()

        def between_passes(
            previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
        ) -> None:
            nonlocal started
            if self.args.time_passes and previous is not None:
                print(f"Pass {previous.name} took {time.perf_counter() - started} seconds")
            if not self.args.disable_verify:
                context = f"after pass '{previous.name}'" if previous else ""
                verify_located(module, context)
            if previous and following and self.args.print_between_passes:
                print(f"IR after {previous.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")
            started = time.perf_counter()

        self.pipeline = dataclasses.replace(self.pipeline, callback=between_passes)


def main(argv: Sequence[str] | None = None) -> None:
    with reported_errors("tapeflow-opt"):
        TapeflowOptMain(args=argv).run()


if __name__ == "__main__":
    main()
