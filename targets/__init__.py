"""Hardware descriptions of the simulated accelerator and xDSL emission targets."""
