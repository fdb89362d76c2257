"""Simulation, calibration and reproduction of the moment-based admission paper."""
