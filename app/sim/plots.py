"""matplotlib for every plot the simulations write (the ``sim`` extra)."""

from __future__ import annotations

from typing import Any


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend: plots go to files and never need a display.
    Imported on call, so a module that plots can be imported to build the CLI parser."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
