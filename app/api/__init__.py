"""HTTP layer: routers, request/response schemas, problem documents. No business logic."""
