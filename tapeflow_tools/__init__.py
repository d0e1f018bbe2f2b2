"""Command-line tools of TapeFlow and its xDSL plugin (`universe`)."""

from importlib.metadata import PackageNotFoundError, version


def tapeflow_version() -> str:
    """The installed package's version (what `--version` prints)."""
    try:
        return version("tapeflow")
    except PackageNotFoundError:
        return "(source checkout)"


__all__ = ["tapeflow_version"]
