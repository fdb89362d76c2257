"""A non-editable install runs: build the wheel, install it into a fresh venv outside the
source tree, then `headroom migrate` (SQLite and Postgres) and `headroom serve` from there.

A wheel user or a Docker build without -e has no source tree beside the package, so the
migrations must travel inside it. The wheel is built from a copy of exactly the files the
Dockerfile copies (BUILD_INPUTS; tests/deploy/test_deploy_files.py holds the Dockerfile to them),
so a missing input fails here rather than in an image build. The venv reuses this
environment's dependencies through a .pth file (no downloads), but `app` itself must come
from the wheel: the test checks where it is imported from.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from app.store.migrate import head_revision
from tests.conftest import FreshDatabase, _require_postgres
from tests.live import ROOT, LiveServer

BUILD_INPUTS = ("pyproject.toml", "setup.py", "README.md", "app", "migrations")

pytestmark = pytest.mark.slow


class Installed:
    wheel: Path

    def __init__(self, root: Path):
        self.root = root
        self.venv = root / "venv"
        self.bin = self.venv / "bin"
        self.cwd = root / "elsewhere"  # not the source tree, not the venv
        self.cwd.mkdir()
        # Nothing may point back at the source tree or pick the migrations folder for us.
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("PYTHONPATH", "HEADROOM_MIGRATIONS_DIR")}

    def run(self, *args: str, database_url: str) -> subprocess.CompletedProcess:
        env = {**self.env, "HEADROOM_DATABASE_URL": database_url}
        return subprocess.run(args, cwd=self.cwd, env=env, capture_output=True, text=True,
                              timeout=120, check=False)


def _build_wheel(root: Path) -> Path:
    src = root / "src"
    src.mkdir()
    junk = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in BUILD_INPUTS:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=junk)
        else:
            shutil.copy2(path, src / name)
    dist = root / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist),
                    str(src)], check=True, cwd=root, timeout=300)
    (wheel,) = dist.glob("headroom-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    inst = Installed(tmp_path_factory.mktemp("wheel"))
    inst.wheel = _build_wheel(inst.root)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(inst.venv)],
                   check=True, timeout=120)
    (venv_site,) = inst.venv.glob("lib/python*/site-packages")
    # Dependencies from this environment; lines of a .pth only extend sys.path, so the
    # editable install of headroom here (its own .pth) is not activated in the venv.
    (venv_site / "deps-from-test-env.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(inst.bin / "python"),
                    "install", "-q", "--no-deps", "--no-index", str(inst.wheel)],
                   check=True, timeout=120)
    return inst


def test_wheel_ships_every_migration(installed):
    names = zipfile.ZipFile(installed.wheel).namelist()
    shipped = {n.removeprefix("app/migrations/") for n in names
               if n.startswith("app/migrations/")}
    ours = {str(p.relative_to(ROOT / "migrations")) for p in (ROOT / "migrations").rglob("*")
            if p.is_file() and p.suffix in (".py", ".mako") and "__pycache__" not in p.parts}
    assert {"env.py", "script.py.mako"} <= ours
    assert shipped == ours


def test_wheel_ships_the_dashboard(installed):
    """Every file of the dashboard (HTML, JS modules, CSS): setup.py's package_data must
    name them, or /dashboard is a 404 on a wheel install."""
    names = zipfile.ZipFile(installed.wheel).namelist()
    static = ROOT / "app" / "dashboard" / "static"
    ours = {f"app/dashboard/static/{p.relative_to(static)}" for p in static.rglob("*")
            if p.is_file()}
    assert {"app/dashboard/static/index.html", "app/dashboard/static/app.js"} <= ours
    assert ours <= set(names), sorted(ours - set(names))


def test_app_is_imported_from_the_wheel(installed):
    out = installed.run(str(installed.bin / "python"), "-c", "import app; print(app.__file__)",
                        database_url="sqlite://")
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).is_relative_to(installed.venv), out.stdout


def _alembic_revision(url: str) -> str:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
    finally:
        engine.dispose()


HEAD = head_revision(str(ROOT / "migrations"))


def test_installed_headroom_migrates_sqlite_and_serves(installed):
    url = f"sqlite:///{installed.root / 'installed.db'}"
    out = installed.run(str(installed.bin / "headroom"), "migrate", database_url=url)
    assert out.returncode == 0, out.stderr
    assert _alembic_revision(url) == HEAD

    env = {"PYTHONPATH": None, "HEADROOM_MIGRATIONS_DIR": None}
    server = LiveServer(url, headroom=(str(installed.bin / "headroom"),), cwd=installed.cwd,
                        env=env, extra_args=("--no-migrate",))
    with server, server.client(10) as c:
        ready = c.get("/readyz")
        assert ready.status_code == 200, ready.text
        assert ready.json()["migration"] == ready.json()["head"] == HEAD
        assert c.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
        assert "app.js" in c.get("/dashboard").text
        assert c.get("/dashboard/assets/app.js").status_code == 200


@pytest.mark.postgres
def test_installed_headroom_migrates_postgres(installed):
    _require_postgres()
    with FreshDatabase("headroom_wheel") as db:
        out = installed.run(str(installed.bin / "headroom"), "migrate", database_url=db.url)
        assert out.returncode == 0, out.stderr
        assert _alembic_revision(db.url) == HEAD

