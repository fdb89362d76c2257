"""Evaluation and reproduction of the THOR paper: reservation streams over utilisation traces."""
