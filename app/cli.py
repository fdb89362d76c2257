"""headroom: admission control for cloud clusters, as a service and as simulations.

Run `headroom COMMAND --help` for a command's options. Service settings (database, port,
limits) come from HEADROOM_* environment variables; see the README."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.config import DEFAULT_DATABASE_URL, Settings, get_settings

if TYPE_CHECKING:
    from app.service.context import ServiceContext

OPENAPI_PATH = Path("openapi/openapi.json")
WORKER_HEALTHCHECK_SECONDS = 30  # a worker that answers no ping this long is replaced


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
    # The same line as the `keys` commands print, so an operator can compare the two.
    print(f"headroom: database {masked_database_url(settings.database_url)}", file=sys.stderr)
    if settings.database_url == DEFAULT_DATABASE_URL:
        print("headroom: that is the embedded SQLite file in this directory; set "
              "HEADROOM_DATABASE_URL=postgresql+psycopg://... for production", file=sys.stderr)
    if settings.auth_disabled:
        print("\n" + "!" * 78 + "\n!! AUTHENTICATION IS OFF (HEADROOM_AUTH_DISABLED=true): anyone "
              "who can reach\n!! this port can declare, change and delete every cluster. "
              "Local development only.\n" + "!" * 78 + "\n", file=sys.stderr)
    else:
        print("headroom: every /v1 request needs an API key; create one with "
              "`headroom keys create --scope admin`", file=sys.stderr)
    workers = args.workers or settings.workers
    print(f"headroom: {_limits_line(settings, workers)}", file=sys.stderr)
    # Worker processes build the app from the same environment.
    os.environ.setdefault("HEADROOM_DATABASE_URL", settings.database_url)
    with _metrics_dir(workers), _deciders_dir(workers):
        uvicorn.run("app.main:create_app", factory=True,
                    host=args.host or settings.host, port=args.port or settings.port,
                    workers=workers, log_config=log_config(settings.log_level),
                    access_log=False, proxy_headers=True,
                    timeout_graceful_shutdown=settings.shutdown_timeout_seconds,
                    # uvicorn kills a worker that misses its supervisor's ping for 5 s, and with
                    # it every request in flight; a worker starved of CPU that long (a loaded
                    # host, a stolen vCPU) is slow, not hung, and its requests should be answered.
                    timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
                    ssl_certfile=settings.tls_certfile, ssl_keyfile=settings.tls_keyfile)
    return 0


def _limits_line(settings: Settings, workers: int) -> str:
    """The request limits in force, as docs/operations.md ("Request limits") states them."""
    parts = [f"{settings.key_requests_per_second} requests/s per key",
             f"{settings.owner_requests_per_second} requests/s per owner",
             f"{settings.owner_expensive_in_flight} expensive requests in flight per owner"]
    on = [p for p in parts if not p.startswith("0 ")]
    if not on:
        return "request limits off (HEADROOM_KEY_REQUESTS_PER_SECOND and the others)"
    each = f"each of the {workers} worker processes" if workers > 1 else "the process"
    return f"request limits, enforced by {each}: {', '.join(on)}"


@contextlib.contextmanager
def _metrics_dir(workers: int) -> Iterator[None]:
    """Several workers share their metrics through files in PROMETHEUS_MULTIPROC_DIR (see
    app/metrics.py): a fresh directory per start, or the operator's, emptied first. Set
    before the workers start, since prometheus-client reads it when they import it."""
    import os
    import tempfile

    from app.metrics import MULTIPROC_ENV, prepare_multiprocess_dir

    given = os.environ.get(MULTIPROC_ENV)
    if given:
        prepare_multiprocess_dir(given)
        yield
    elif workers > 1:
        with tempfile.TemporaryDirectory(prefix="headroom-metrics-") as path:
            os.environ[MULTIPROC_ENV] = path
            try:
                yield
            finally:
                del os.environ[MULTIPROC_ENV]
    else:
        yield


@contextlib.contextmanager
def _deciders_dir(workers: int) -> Iterator[None]:
    """Where the workers claim their share of the clusters (app/service/affinity.py): a
    fresh directory per start, for this start's workers only."""
    import os
    import tempfile

    from app.service.affinity import DIRECTORY_ENV, WORKERS_ENV

    if workers < 2:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="headroom-deciders-") as path:
        os.environ[DIRECTORY_ENV], os.environ[WORKERS_ENV] = path, str(workers)
        try:
            yield
        finally:
            del os.environ[DIRECTORY_ENV], os.environ[WORKERS_ENV]


def masked_database_url(url: str) -> str:
    """The URL as an operator can compare it with the server's, the password hidden."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _keys_context() -> ServiceContext:
    """A service context on the configured database, announced on stderr: a key made from
    another directory (or with another HEADROOM_DATABASE_URL) lands in another database than
    the server's, which then answers 401; the URL printed here is how one notices."""
    from app.service.context import ServiceContext
    from app.store.migrate import upgrade

    settings = get_settings()
    if settings.is_sqlite:  # as `serve` does: the embedded database makes itself
        upgrade(settings)
    print(f"headroom: database {masked_database_url(settings.database_url)}", file=sys.stderr)
    return ServiceContext.from_settings(settings)


def _keys_create(args: argparse.Namespace) -> int:
    from app.errors import Unprocessable
    from app.service.auth import create_key

    ctx = _keys_context()
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


def _keys_list(args: argparse.Namespace) -> int:
    from app.service.auth import list_keys

    ctx = _keys_context()
    try:
        keys = list_keys(ctx, args.owner)
    finally:
        ctx.close()
    if args.json:
        print(json.dumps(keys))
        return 0
    print(f"{'id':<12}  {'scopes':<18}  {'clusters':<20}  {'created':<19}  {'revoked':<19}  "
          "description")
    for k in keys:
        print(f"{k['id']:<12}  {','.join(k['scopes']):<18}  "
              f"{','.join(k['clusters']) if k['clusters'] is not None else '(all)':<20}  "
              f"{k['created_at'][:19]:<19}  {(k['revoked_at'] or '-')[:19]:<19}  "
              f"{k['description']}")
    if not keys:
        print(f"(no keys for owner {args.owner!r})", file=sys.stderr)
    return 0


def _keys_revoke(args: argparse.Namespace) -> int:
    from app.errors import NotFound
    from app.service.auth import revoke_key

    ctx = _keys_context()
    try:
        revoke_key(ctx, args.owner, args.key_id)
    except NotFound as exc:
        print(f"headroom keys revoke: {exc.detail} of owner {args.owner!r}", file=sys.stderr)
        return 1
    finally:
        ctx.close()
    print(f"revoked key {args.key_id}; running servers stop accepting it within "
          f"HEADROOM_AUTH_CACHE_SECONDS ({get_settings().auth_cache_seconds:g} s)",
          file=sys.stderr)
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from app.store.migrate import current_revision, downgrade, upgrade

    settings = get_settings()
    where = masked_database_url(settings.database_url)
    before = current_revision(settings)
    if args.downgrade:
        downgrade(settings, args.downgrade)
    else:
        upgrade(settings, args.revision)
    after = current_revision(settings)
    if before == after:
        state = "already at head" if not args.downgrade and args.revision == "head" \
            else "already at"
        print(f"{where}: {state} ({after or 'no schema'}); nothing to do")
    else:
        print(f"{where}: migrated from {before or 'nothing'} to {after or 'nothing'}")
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


def _bench_modes(text: str) -> str:
    modes = text.split(",")
    if not modes or any(m not in ("single", "batch") for m in modes):
        raise argparse.ArgumentTypeError("modes are single and/or batch, comma-separated")
    return text


def _bench_http(args: argparse.Namespace) -> int:
    from app.bench import http

    out = http.run(args.database_url, args.url, args.workers, args.clients, args.duration,
                   args.batch, args.servers, args.policy, args.seed, progress=not args.json,
                   api_key=args.api_key, modes=tuple(args.modes.split(",")),
                   window=args.window)
    if args.json:
        http.main_json(out)
    else:
        http.print_table(out)
    return 0 if all(r["errors"] == 0 for r in out["results"]) else 1


# Modules that add their own subcommands with ``register(subparsers)`` (bound, simulate,
# reproduce, calibrate). Each is imported only to build the parser, so `serve` stays light.
COMMAND_MODULES: list[str] = ["app.sim.cli"]


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, unless it has none worth printing (None:
    the help says where the value comes from instead; flags: off unless given)."""

    def __init__(self, prog: str, max_help_position: int = 32, **kwargs: Any) -> None:
        super().__init__(prog, max_help_position=max_help_position, **kwargs)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default in ([], "") \
                or "%(default)" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction) and action.help != argparse.SUPPRESS:
            # argparse measures subcommand names at their parent's indentation, one level
            # short, which would push the help of "reproduce" and "calibrate" to the next line.
            longest = max(map(len, action.choices), default=0)
            self._action_max_length = max(self._action_max_length, longest
                                          + self._current_indent + self._indent_increment)

    def _split_lines(self, text: str, width: int) -> list[str]:
        # Not at hyphens: "paper-worst-" / "case" is not a value anyone can paste.
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class CommandParser(argparse.ArgumentParser):
    """``headroom``'s parser; subcommands are made of the same class, so every level formats
    its help the same way (argparse does not pass formatter_class down)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="headroom", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the HTTP service (HEADROOM_* settings)")
    serve.add_argument("--host", help="bind address (default: HEADROOM_HOST, else 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default: HEADROOM_PORT, else 8000)")
    serve.add_argument("--workers", type=int,
                       help="worker processes (default: HEADROOM_WORKERS, else 1)")
    serve.add_argument("--migrate", dest="migrate", action="store_true", default=None,
                       help="run migrations first (default: only on SQLite)")
    serve.add_argument("--no-migrate", dest="migrate", action="store_false",
                       help="never run migrations, not even on SQLite")
    serve.set_defaults(func=_serve)

    migrate = sub.add_parser("migrate", help="upgrade (or downgrade) the database schema",
                             description="Run the Alembic migrations on HEADROOM_DATABASE_URL "
                                         "and say from which revision to which.")
    migrate.add_argument("--revision", default="head", help="upgrade to this revision")
    migrate.add_argument("--downgrade", metavar="REVISION",
                         help="downgrade to this revision instead, e.g. base (drops data)")
    migrate.set_defaults(func=_migrate)

    keys = sub.add_parser("keys", help="create, list and revoke API keys",
                          description="API keys in the database of HEADROOM_DATABASE_URL "
                                      "(each command prints which, on stderr).")
    keys_sub = keys.add_subparsers(dest="keys", required=True, metavar="ACTION")
    kc = keys_sub.add_parser("create", help="create a key and print it (once)")
    kc.add_argument("--owner", default="default", help="the tenant the key acts for")
    kc.add_argument("--scope", action="append", required=True,
                    choices=["admin", "write", "read"], help="admin, write or read (repeatable)")
    kc.add_argument("--cluster", action="append",
                    help="limit a write key (not admin) to this cluster, by name; the key is "
                         "bound to its id (repeatable; default: all the owner's clusters)")
    kc.add_argument("--description", default="", help="a note shown by `keys list`")
    kc.add_argument("--json", action="store_true", help="print the key as a JSON object")
    kc.set_defaults(func=_keys_create)
    kl = keys_sub.add_parser("list", help="list an owner's keys (never the secrets)")
    kl.add_argument("--owner", default="default", help="whose keys")
    kl.add_argument("--json", action="store_true", help="a JSON array on stdout")
    kl.set_defaults(func=_keys_list)
    kr = keys_sub.add_parser("revoke", help="revoke a key by id (keys it minted stay valid)")
    kr.add_argument("key_id", metavar="ID", help="the key's id, from `keys list`")
    kr.add_argument("--owner", default="default", help="the owner of the key")
    kr.set_defaults(func=_keys_revoke)

    openapi = sub.add_parser("openapi", help="write or check openapi/openapi.json")
    openapi.add_argument("--check", action="store_true",
                         help="write nothing; exit 1 if the file is stale")
    openapi.add_argument("--output", default=str(OPENAPI_PATH), help="the file")
    openapi.set_defaults(func=_openapi)

    bench = sub.add_parser("bench", help="benchmarks (results in docs/benchmarks.md)")
    bench_sub = bench.add_subparsers(dest="bench", required=True, metavar="BENCHMARK")
    http = bench_sub.add_parser("http", help="concurrent HTTP load against one cluster")
    http.add_argument("--database-url",
                      help="start `headroom serve` on this database (this or --url is needed)")
    http.add_argument("--url", help="or target an already running server")
    http.add_argument("--api-key", help="admin key for --url (made automatically otherwise)")
    http.add_argument("--workers", type=int, default=2, help="server worker processes")
    http.add_argument("--clients", type=int, default=16, help="concurrent client threads")
    http.add_argument("--duration", type=float, default=20.0, help="seconds per mode")
    http.add_argument("--batch", type=int, default=100, help="events per batch request")
    http.add_argument("--servers", type=int, default=1000, help="servers in the cluster")
    http.add_argument("--policy", default="first_fit", help="the cluster's policy kind")
    http.add_argument("--seed", type=int, default=1, help="seeds the job stream")
    http.add_argument("--modes", default="single,batch", type=_bench_modes,
                      help="which modes to run, in order (comma-separated: single, batch)")
    http.add_argument("--window", type=float, default=10.0,
                      help="report decisions/s per window of this many seconds (decay check)")
    http.add_argument("--json", action="store_true", help="one JSON object on stdout")
    http.set_defaults(func=_bench_http)

    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from app.sim.cliargs import INSTALL_SIM, SIM_EXTRA

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in SIM_EXTRA:
            print(f"headroom: this command needs {exc.name!r}, part of the sim extra: "
                  f"{INSTALL_SIM}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    raise SystemExit(main())
