"""Command-line tools of TapeFlow and its xDSL plugin (`universe`)."""
