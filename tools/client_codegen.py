"""Generate the typed Python client in clients/python from the committed openapi/openapi.json.

Regenerate (after `headroom openapi` changed the document) with, from the repository root:

    .venv/bin/python -m tools.client_codegen

tests/test_client.py regenerates into a temporary directory and fails when the committed tree
differs, so the client can never drift from the API it claims to describe.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPENAPI = ROOT / "openapi" / "openapi.json"
CONFIG = ROOT / "clients" / "openapi-python-client.yaml"
CLIENT_DIR = ROOT / "clients" / "python"
REGENERATE = ".venv/bin/python -m tools.client_codegen"


def generate(out_dir: Path) -> None:
    """Write the whole client project into ``out_dir`` (replaced if it exists)."""
    bin_dir = Path(sys.executable).parent
    # The generator formats its output by running `ruff` from PATH; the venv's own ruff (pinned
    # in the `test` extra with the generator) must be the one, or the output would depend on
    # whatever ruff a shell happens to find first.
    # RUFF_NO_CACHE: no .ruff_cache left inside the committed client.
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "RUFF_NO_CACHE": "true"}
    cmd = [str(bin_dir / "openapi-python-client"), "generate", "--path", str(OPENAPI),
           "--config", str(CONFIG), "--meta", "pdm", "--output-path", str(out_dir),
           "--overwrite", "--fail-on-warning"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"openapi-python-client failed:\n{done.stdout}\n{done.stderr}")


# What importing, linting or testing the client leaves beside it (ruff run from the repository
# root caches in clients/python, which has a pyproject of its own): not generated, gitignored.
LEFT_BY_TOOLS = {"__pycache__", ".ruff_cache", ".pytest_cache", ".mypy_cache"}


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path, without what tools leave there."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and not LEFT_BY_TOOLS.intersection(p.relative_to(root).parts)}


if __name__ == "__main__":
    generate(CLIENT_DIR)
    print(f"wrote {CLIENT_DIR.relative_to(ROOT)} ({len(tree(CLIENT_DIR))} files)")
