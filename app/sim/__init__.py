"""Simulation, bounds and paper reproductions. Drives the same engines as the service."""
