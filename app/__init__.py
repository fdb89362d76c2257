"""Headroom: an admission-control service for cloud clusters."""

__version__ = "0.1.0"
