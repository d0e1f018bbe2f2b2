"""
Hardware descriptions of the simulated accelerator: `hardware.py` (timing, memory
and the paper's five configurations as presets) and `energy.py` (the two energy
presets). Every number says where it comes from.
"""
