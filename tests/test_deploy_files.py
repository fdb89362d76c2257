"""No Docker engine runs here, so the Dockerfile and compose file are checked statically
against the settings and CLI the code really has."""

from __future__ import annotations

import shlex
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from app.cli import build_parser
from app.config import Settings
from tests.test_wheel_install import BUILD_INPUTS

ROOT = Path(__file__).resolve().parents[1]
SETTING_ENV = {f"HEADROOM_{name.upper()}" for name in Settings.model_fields}


def _dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def _env_pairs(args: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in shlex.split(args))


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_dockerfile_is_slim_nonroot_and_runs_headroom_serve():
    instr = _dockerfile()
    kinds = [k for k, _ in instr]
    assert instr[0][0] == "FROM" and instr[0][1].startswith("python:") and "slim" in instr[0][1]
    user = [a for k, a in instr if k == "USER"]
    assert user and user[-1] not in ("root", "0")
    assert kinds.index("USER") > max(i for i, k in enumerate(kinds) if k == "RUN")
    import json

    entry = json.loads(next(a for k, a in instr if k == "ENTRYPOINT"))
    cmd = json.loads(next(a for k, a in instr if k == "CMD"))
    assert entry == ["headroom"] and cmd == ["serve"]
    build_parser().parse_args(cmd)  # a real subcommand
    # Exactly the inputs the wheel test builds from, so the image's install is the tested one.
    copied = {src for k, a in instr if k == "COPY" for src in a.split()[:-1]}
    assert copied == set(BUILD_INPUTS)


def test_dockerfile_env_names_real_settings_and_consistent_port():
    env: dict[str, str] = {}
    for k, a in _dockerfile():
        if k == "ENV":
            env.update(_env_pairs(a))
    headroom = {k for k in env if k.startswith("HEADROOM_")}
    assert headroom <= SETTING_ENV, headroom - SETTING_ENV
    exposed = [a for k, a in _dockerfile() if k == "EXPOSE"]
    assert exposed == [env["HEADROOM_PORT"]]
    # The installed package carries its migrations; the image must not lean on a path.
    assert "HEADROOM_MIGRATIONS_DIR" not in env
    assert Settings(database_url=env["HEADROOM_DATABASE_URL"]).is_sqlite


def test_compose_services_wire_postgres_migrate_and_app(compose):
    services = compose["services"]
    assert set(services) == {"postgres", "migrate", "app"}
    pg = services["postgres"]
    assert pg["healthcheck"]["test"][:4] == ["CMD", "pg_isready", "-h", "127.0.0.1"]
    pg_env = pg["environment"]

    for name in ("migrate", "app"):
        svc = services[name]
        env = svc["environment"]
        assert set(env) <= SETTING_ENV, set(env) - SETTING_ENV
        url = Settings(database_url=env["HEADROOM_DATABASE_URL"]).database_url
        parts = urlsplit(url)
        assert parts.scheme == "postgresql+psycopg"
        assert parts.hostname == "postgres" and parts.port == 5432
        assert parts.username == pg_env["POSTGRES_USER"]
        assert parts.password == pg_env["POSTGRES_PASSWORD"]
        assert parts.path.lstrip("/") == pg_env["POSTGRES_DB"]
        assert svc["depends_on"]["postgres"]["condition"] == "service_healthy"
        build_parser().parse_args(svc["command"])

    assert services["migrate"]["command"] == ["migrate"]
    app = services["app"]
    args = build_parser().parse_args(app["command"])
    assert args.command == "serve" and args.migrate is False  # migrate service did it
    assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    host_port, container_port = app["ports"][0].split(":")
    assert container_port == str(app["environment"]["HEADROOM_PORT"]) == "8000"
    assert "/readyz" in " ".join(app["healthcheck"]["test"])
