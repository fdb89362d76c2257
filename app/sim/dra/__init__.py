"""Simulation and reproduction of the DRA paper: placement simulator (also runs the baselines), bounds, presets."""
