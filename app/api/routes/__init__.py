"""Routers, one module per noun."""
