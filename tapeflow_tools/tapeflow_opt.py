"""
`tapeflow-opt`: xdsl-opt with the TapeFlow dialects and passes.

Every xdsl-opt flag works as it does there (`-p` pipelines with options,
`--split-input-file`, `--verify-diagnostics`, `--print-op-generic`, `-o`, `-t`).
What differs: diagnostics name the file, line and column of the op at fault, IR
is verified before the first pass and after every pass with that located
verifier (which also checks def-before-use and duplicate symbols), pass options
are checked one by one (naming the pass and the option), input that is not UTF-8
text is refused naming the file, and bad input ends with a message and a
non-zero exit, not a traceback. `-o FILE` is written only when the whole run
succeeds, through a temporary file renamed over FILE: a failed run leaves FILE
as it was (even when FILE is also the input).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import sys
import time
from collections.abc import Callable, Sequence
from io import StringIO
from typing import IO

from tapeflow_tools import tapeflow_version
from tapeflow_tools.interrupt import quiet_interrupt

with quiet_interrupt("tapeflow-opt"):  # Ctrl-C while the modules load
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass
    from xdsl.printer import Printer
    from xdsl.utils.arg_spec import parse_pipeline
    from xdsl.utils.exceptions import ParseError
    from xdsl.xdsl_opt_main import xDSLOptMain

    from lowering import get_all_passes
    from tapeflow_tools.atomic import check_output_file, commit_outputs
    from tapeflow_tools.context import register_dialects
    from tapeflow_tools.diagnostics import (
        LocatedParseError,
        ToolError,
        decode_source,
        reported_errors,
        verify_located,
    )
    from tapeflow_tools.frontend import parse_module_text
    from tapeflow_tools.pass_options import check_pass_options, unknown_pass


def describe_pass(factory: Callable[[], type[ModulePass]]) -> str:
    """The first sentence of a pass's docstring (or of its module's, where the class
    has none of its own), on one line."""
    try:
        cls = factory()
    except Exception as err:  # noqa: BLE001 - an optional xDSL pass that cannot load
        return f"(cannot be loaded: {type(err).__name__}: {err})"
    doc = cls.__doc__ or ""
    if doc.startswith(cls.__name__ + "("):  # the signature a dataclass puts in its place
        doc = ""
    doc = doc or getattr(inspect.getmodule(cls), "__doc__", None) or ""
    paragraph = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    sentence, dot, _ = paragraph.partition(". ")
    return sentence + dot.strip() if paragraph else "(no description)"


def pass_list(passes: dict[str, Callable[[], type[ModulePass]]]) -> str:
    """One line per pass, sorted by name: the name and what it does."""
    width = max(map(len, passes))
    return "".join(f"{name:{width}}  {describe_pass(passes[name])}\n" for name in sorted(passes))


class TapeflowOptMain(xDSLOptMain):
    version_format = f"tapeflow-opt {tapeflow_version()}, built on xdsl {{xdsl_version}}"

    def __init__(self, args: Sequence[str] | None = None):
        self._chunk_line_offset = 0
        self._pending_output: StringIO | None = None
        super().__init__(description="TapeFlow modular optimizer driver", args=args)

    def run(self) -> None:
        """xdsl-opt's run, with `-o` committed only once everything succeeded."""
        super().run()
        if self._pending_output is not None:
            commit_outputs(
                [("-o", self.args.output_file, self._pending_output.getvalue().encode())]
            )

    def prepare_output(self) -> IO[str]:
        """`-o FILE`: check that FILE can be written before any work, then collect
        the output in memory (`run` writes it). `-o -` is the standard output, as
        for mlir-opt."""
        if self.args.output_file in (None, "-"):
            return sys.stdout
        check_output_file(self.args.output_file, "-o")
        self._pending_output = _KeptStringIO()
        return self._pending_output

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        """xdsl-opt's arguments, with `--list-passes` instead of every pass's name in
        the help of `-p`."""
        super().register_all_arguments(arg_parser)
        for action in arg_parser._actions:  # argparse has no public way to reword one
            if "--passes" in action.option_strings:
                action.help = (
                    "comma-separated pass pipeline, options in braces "
                    "(tapeflow-enzyme,tapeflow-layers{spad-bytes=512}); "
                    "--list-passes names every pass"
                )
        passes = self.available_passes

        class ListPasses(argparse.Action):
            def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
                sys.stdout.write(pass_list(passes))
                parser.exit()

        arg_parser.add_argument(
            "--list-passes",
            nargs=0,
            action=ListPasses,
            help="list every pass, one per line with what it does, and exit",
        )

    def register_all_dialects(self) -> None:
        register_dialects(self.ctx)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in get_all_passes().items():
            if name not in self.available_passes:
                self.register_pass(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            text = decode_source(io.read(), self.get_input_name(), self._chunk_line_offset)
            return parse_module_text(
                self.ctx,
                text,
                self.get_input_name(),
                self._chunk_line_offset,
                not self.args.no_implicit_module,
            )

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
        ours = get_all_passes()
        for spec in parse_pipeline(self.args.passes):
            if spec.name not in self.available_passes:
                raise ToolError(unknown_pass(spec.name, list(self.available_passes)))
            pass_class = self.available_passes[spec.name]()
            check_pass_options(pass_class, spec, ours=spec.name in ours)
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


class _KeptStringIO(StringIO):
    """An in-memory output that xdsl-opt's `run` may close without losing it."""

    def close(self) -> None:
        pass


def main(argv: Sequence[str] | None = None) -> None:
    with reported_errors("tapeflow-opt"):
        TapeflowOptMain(args=argv).run()


if __name__ == "__main__":
    main()
