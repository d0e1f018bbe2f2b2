"""The xDSL context every TapeFlow tool parses with: all xDSL dialects plus ours."""

from xdsl.context import Context
from xdsl.universe import Universe

from tapeflow_dialects import get_all_dialects
from tapeflow_dialects.upstream_syntax import upstream_dialect_overrides


def register_dialects(ctx: Context) -> None:
    """Every dialect xDSL knows (with the upstream ops whose MLIR syntax we add,
    `tapeflow_dialects.upstream_syntax`), then the TapeFlow dialects. A source
    checkout run without installing still gets ours, never twice."""
    overrides = upstream_dialect_overrides()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, overrides.get(name, factory))
    for name, factory in get_all_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)


def make_context() -> Context:
    ctx = Context()
    register_dialects(ctx)
    return ctx
