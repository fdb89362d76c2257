"""Simulation and reproduction of the RMS paper (Psychas & Ghaderi 2018): queueing schedulers."""
