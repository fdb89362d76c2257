"""Request and response schemas (pydantic v2), one module per noun."""
