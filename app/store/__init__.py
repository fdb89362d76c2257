"""Persistence: SQLAlchemy models, engine setup and the queries the service needs."""
