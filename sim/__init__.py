"""The reference executor and the CGRA simulator (timing, memory, energy)."""
