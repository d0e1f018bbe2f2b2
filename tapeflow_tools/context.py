"""The xDSL context every TapeFlow tool parses with: all xDSL dialects plus ours."""

from xdsl.context import Context
from xdsl.universe import Universe

from tapeflow_dialects import get_all_dialects


def make_context() -> Context:
    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    for name, factory in get_all_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx
