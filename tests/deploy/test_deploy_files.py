"""No Docker engine runs here, so the Dockerfile and compose file are checked statically
against the settings and CLI the code really has."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from sqlalchemy.engine import make_url

from app.cli import build_parser
from app.config import Settings
from tests.conftest import IN_CI
from tests.ha.patroni import TIMINGS
from tests.test_wheel_install import BUILD_INPUTS

ROOT = Path(__file__).resolve().parents[2]
SETTING_ENV = {f"HEADROOM_{name.upper()}" for name in Settings.model_fields}
HAPROXY_CFG = (ROOT / "deploy" / "haproxy" / "haproxy.cfg").resolve()


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


APPS = ("app1", "app2")


def test_compose_services_wire_postgres_migrate_apps_and_proxy(compose):
    services = compose["services"]
    assert set(services) == {"postgres", "migrate", *APPS, "proxy"}
    pg = services["postgres"]
    assert pg["healthcheck"]["test"][:4] == ["CMD", "pg_isready", "-h", "127.0.0.1"]
    pg_env = pg["environment"]

    for name in ("migrate", *APPS):
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
    for name in APPS:
        app = services[name]
        args = build_parser().parse_args(app["command"])
        assert args.command == "serve" and args.migrate is False  # migrate service did it
        assert app["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert "ports" not in app  # reached only through the proxy
        assert [str(p) for p in app["expose"]] == [str(app["environment"]["HEADROOM_PORT"])]
        assert "/readyz" in " ".join(app["healthcheck"]["test"])


def test_compose_proxy_runs_the_shipped_config_in_front_of_every_app(compose):
    services = compose["services"]
    proxy = services["proxy"]
    assert proxy["image"].startswith("haproxy:")
    source, target, *_ = proxy["volumes"][0].split(":")
    assert (ROOT / source).resolve() == HAPROXY_CFG
    assert target == "/usr/local/etc/haproxy/haproxy.cfg"  # where the image reads it
    env = proxy["environment"]
    backends = sorted(v for k, v in env.items() if k.startswith("HEADROOM_BACKEND_"))
    assert backends == [f"{n}:{services[n]['environment']['HEADROOM_PORT']}" for n in APPS]
    assert set(env) - {"HEADROOM_PROXY_BIND"} == {f"HEADROOM_BACKEND_{n}"
                                                   for n in range(1, len(APPS) + 1)}
    _, container_port = proxy["ports"][0].split(":")
    assert env["HEADROOM_PROXY_BIND"] == f":{container_port}"
    assert all(proxy["depends_on"][n]["condition"] == "service_healthy" for n in APPS)


def _haproxy_sections() -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = ""
    for raw in HAPROXY_CFG.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if not raw.startswith((" ", "\t")):
            current = line
            sections[current] = []
        else:
            sections[current].append(line)
    return sections


def test_haproxy_config_hashes_the_cluster_id_consistently_over_every_backend():
    sections = _haproxy_sections()
    by_cluster = sections["backend by_cluster"]
    # /v1/clusters/{id}/... and /v1/reservations/{id}/...: the id is the 4th "/" field, once
    # the Kubernetes routes' /kubernetes/{key} prefix is dropped.
    assert "balance hash path,regsub(^/v1/kubernetes/[^/]+/,/v1/),field(4,/)" in by_cluster
    assert "hash-type consistent" in by_cluster
    frontend = next(v for k, v in sections.items() if k.startswith("frontend"))
    assert "use_backend by_cluster if names_one" in frontend
    acl = next(line for line in frontend if line.startswith("acl names_one"))
    assert acl.endswith("^/v1/(kubernetes/[^/]+/)?(clusters|reservations)/[^/]+")
    servers = {b: [line for line in lines if line.startswith("server ")]
               for b, lines in sections.items() if b.startswith("backend")}
    expected = [f'server app{n} "${{HEADROOM_BACKEND_{n}}}"' for n in range(1, len(APPS) + 1)]
    assert all(lines == expected for lines in servers.values()), servers
    # Every route about one cluster or stream is matched, and hashed on that id.
    import json
    import re

    pattern = re.compile(acl.split()[-1])
    paths = json.loads((ROOT / "openapi" / "openapi.json").read_text())["paths"]
    per_cluster = [p for p in paths if re.search(r"\{(cluster|reservation)_id\}", p)]
    assert per_cluster
    for path in per_cluster:
        assert pattern.match(path), path
        hashed = re.sub(r"^/v1/kubernetes/[^/]+/", "/v1/", path)  # what regsub does
        assert re.fullmatch(r"\{(cluster|reservation)_id\}", hashed.split("/")[3]), path


@pytest.mark.parametrize("config", ["haproxy.cfg", "postgres.cfg"])
def test_haproxy_accepts_the_shipped_config(config):
    binary = shutil.which("haproxy")
    if binary is None:
        if IN_CI:
            pytest.fail("haproxy is missing; .ci/run installs Debian's haproxy", pytrace=False)
        pytest.skip("haproxy is missing (apt-get install haproxy)")
    done = subprocess.run([binary, "-c", "-f", str(HAPROXY_CFG.parent / config)],
                          capture_output=True, check=False,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


class _ComposeLoader(yaml.SafeLoader):
    """YAML with Compose's merge-control tags (``!override``, ``!reset``, Compose 2.24)."""


for _tag in ("!override", "!reset"):
    _ComposeLoader.add_constructor(_tag, lambda loader, node: (
        loader.construct_mapping(node, deep=True) if isinstance(node, yaml.MappingNode)
        else loader.construct_sequence(node, deep=True)))


def _defaults(value: str) -> str:
    """Compose's ${VAR:-default} interpolation, with every variable unset."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


def test_compose_ha_replaces_postgres_with_three_synchronous_patroni_nodes(compose):
    ha = yaml.load((ROOT / "docker-compose.ha.yml").read_text(), Loader=_ComposeLoader)
    services = ha["services"]
    assert services["postgres"] == {"profiles": ["single-node"]}  # not started
    nodes = sorted(n for n in services if re.fullmatch(r"pg\d", n))
    assert nodes == ["pg1", "pg2", "pg3"]
    patroni = yaml.safe_load((ROOT / "deploy" / "patroni" / "patroni.yml").read_text())
    dcs = patroni["bootstrap"]["dcs"]
    assert dcs["synchronous_mode"] is True
    assert {k: dcs[k] for k in TIMINGS} == TIMINGS  # the timings the failover test measures
    etcd_host, etcd_port = patroni["etcd3"]["hosts"].split(":")
    assert etcd_host in services and f"http://0.0.0.0:{etcd_port}" in services[etcd_host]["command"]
    image = (ROOT / "deploy" / "patroni" / "Dockerfile").read_text()
    major = re.search(r"^FROM postgres:(\d+)$", image, re.MULTILINE).group(1)
    assert patroni["postgresql"]["bin_dir"] == f"/usr/lib/postgresql/{major}/bin"
    assert re.search(r"^USER postgres$", image, re.MULTILINE)  # Postgres refuses to run as root
    listen = {k: patroni[k]["listen"].rsplit(":", 1)[1] for k in ("restapi", "postgresql")}
    for n in nodes:
        env = services[n]["environment"]
        assert env["PATRONI_NAME"] == n
        assert env["PATRONI_RESTAPI_CONNECT_ADDRESS"] == f"{n}:{listen['restapi']}"
        assert env["PATRONI_POSTGRESQL_CONNECT_ADDRESS"] == f"{n}:{listen['postgresql']}"
        assert f":{listen['restapi']}/cluster" in " ".join(services[n]["healthcheck"]["test"])
    script = ROOT / patroni["bootstrap"]["post_bootstrap"].replace("/etc/patroni", "deploy/patroni")
    assert script.stat().st_mode & 0o111
    subprocess.run(["sh", "-n", str(script)], check=True)
    for name in ("migrate", *APPS):
        env = {**compose["services"][name]["environment"], **services[name]["environment"]}
        assert set(env) <= SETTING_ENV, set(env) - SETTING_ENV
        url = make_url(Settings(database_url=_defaults(env["HEADROOM_DATABASE_URL"])).database_url)
        assert url.query["host"] == tuple(f"{n}:{listen['postgresql']}" for n in nodes)
        assert url.query["target_session_attrs"] == "read-write"
        deps = services[name]["depends_on"]
        assert "postgres" not in deps
        assert all(deps[n]["condition"] == "service_healthy" for n in nodes)
