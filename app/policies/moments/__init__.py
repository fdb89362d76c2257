"""Moment-based cluster admission (Dierks, Kash & Seuken): pure engine, no I/O, no global RNG."""

from app.policies.moments.engine import MomentEngine
from app.policies.moments.errors import MomentsError

__all__ = ["MomentEngine", "MomentsError"]
