"""Every command and snippet in README.md and docs/**/*.md runs, so none can drift.

Each fenced block tagged sh, bash, console, shell, python or json is one test:

- shell blocks run in bash, in a sandbox directory whose `.venv` is this environment, against
  a real `headroom serve` on a temporary SQLite database (`localhost:8000` in a block means
  that server). Each command must exit 0, an HTTP answer must not be a problem document unless
  the block says so, and a `# -> {...}` comment after a command must match what it printed:
  every `"key": value` it states with a plain value must occur in the answer (keys it states
  with `...` or prose must be present). A GET whose claim is not met yet is read again for a
  while: a wall clock moves on its own. A `headroom serve` in a block is started, must become
  ready, and is stopped. The blocks of one document share a shell session, in order: what one
  sets (variables, the walk-through's curl alias) holds in the next.
- python blocks run with the generated client (clients/python) against that server; `KEY` is
  an admin key and `spec` the cluster declaration of the nearest shell block above.
- json blocks must parse.

An untagged block that starts like a command (`headroom`, `python`, `curl`, ...) fails: tag
it and run it, or mark it. Blocks tagged otherwise (text, ini, yaml) are not commands.

An HTML comment just above a block (indented like it) says how to run it or why it is not:

    <!-- not run: REASON -->           a reason this machine cannot run it (Docker, Kubernetes)
    <!-- ci: NAME -->                  .ci/run runs it (`test`); `run` is run here as well
    <!-- test: OPTION; OPTION ... -->  how: sub=OLD=>NEW replaces text before running (scale=
                                       is the same, for a smaller scale than the doc's);
                                       volatile=K1,K2 keys whose values vary between runs;
                                       timeout=SECONDS; why=... says why a sub or scale is needed

In a sub, `$(_fresh_pg)` makes a new database on the local Postgres and stands for its name
(dropped after the module); `localhost:8000` is always the test's server.

A block that is none of these and cannot run fails its test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from tests.conftest import PG_ADMIN_URL, _require_postgres
from tests.live import ROOT, LiveServer

SNIPPETS = {"sh", "bash", "console", "shell", "python", "json"}
# An untagged block whose first word is one of these is a command that escaped the test.
COMMAND_WORDS = re.compile(r"^(?:[A-Z_]+=\S*\s+)*(?:\.venv/bin/)?(?:headroom|python3?|pip|curl|"
                           r"pytest|kubectl|docker|createdb|export)\b")
SHELL = {"sh", "bash", "console", "shell"}
DEFAULT_TIMEOUT = 120  # seconds per block; `timeout=` raises it
RETRY_SECONDS = 15  # how long a GET is read again until its claim holds
ASSIGNED = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=", re.MULTILINE)  # variables a block sets
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
MARKER = re.compile(r"^\s*<!--\s*(not run|ci|test)\s*:(.*?)-->\s*$")
CLAIM = re.compile(r"(?:^|\s)#\s*->\s?(.*)$")
# "key": value with a plain JSON value (a string, number, literal or empty container).
PAIR = re.compile(r'"([\w.-]+)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?'
                  r'|true|false|null|\[\]|\{\})?')


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    markers: list[tuple[str, str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{path}:{self.line}"

    def marker(self, kind: str) -> str | None:
        return next((v for k, v in self.markers if k == kind), None)

    def options(self) -> dict[str, list[str]]:
        opts: dict[str, list[str]] = {}
        for kind, value in self.markers:
            if kind != "test":
                continue
            for part in value.split(";"):
                if part.strip():
                    name, _, arg = part.strip().partition("=")
                    opts.setdefault(name.strip(), []).append(arg.strip())
        return opts


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of one Markdown file, each with the comments right above it."""
    lines = path.read_text().split("\n")
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        body, j = [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence[0] * len(fence)):
            body.append(lines[j].removeprefix(indent))
            j += 1
        markers, k = [], i - 1
        while k >= 0 and (not lines[k].strip() or MARKER.match(lines[k])):
            if lines[k].strip():
                kind, value = MARKER.match(lines[k]).groups()
                markers.insert(0, (kind, value.strip()))
            k -= 1
        found.append(Block(path, i + 1, lang.lower(), "\n".join(body), markers))
        i = j + 1
    return found


def all_snippets() -> list[Block]:
    """The blocks to run: tagged as a snippet, or untagged but starting like a command."""
    return [b for f in doc_files() for b in blocks(f)
            if b.lang in SNIPPETS or (not b.lang and COMMAND_WORDS.match(b.text.strip()))]


# -- shell blocks: split into commands, each with the claim written after it ---------------

@dataclass
class Command:
    text: str
    claim: str = ""


def _complete(text: str) -> bool:
    if text.rstrip().endswith("\\"):
        return False
    return subprocess.run(["bash", "-n"], input=text, capture_output=True, check=False,
                          text=True).returncode == 0


def commands(script: str) -> list[Command]:
    """Top-level commands in order; a `# -> ...` comment (and the indented comment lines
    continuing it) is the claim of the command before it."""
    out: list[Command] = []
    pending: list[str] = []
    in_claim = False
    for line in script.split("\n"):
        stripped = line.strip()
        if not pending and stripped.startswith("#"):
            m = CLAIM.match(stripped)
            if m and out:
                out[-1].claim += " " + m.group(1)
                in_claim = True
            elif in_claim and re.match(r"#\s{2,}", stripped):
                out[-1].claim += " " + stripped.lstrip("#")
            else:
                in_claim = False
            continue
        in_claim = False
        if not stripped and not pending:
            continue
        pending.append(line)
        text = "\n".join(pending)
        if _complete(text):
            cmd = Command(text)
            m = CLAIM.search(pending[-1])
            if m and _complete("\n".join(pending[:-1] + [pending[-1][:m.start()]])):
                cmd.claim = m.group(1)
                in_claim = True
            out.append(cmd)
            pending = []
    assert not pending, f"an unfinished command: {pending}"
    return out


def claimed_pairs(claim: str) -> list[tuple[str, object | None]]:
    """(key, value) pairs a claim states; value None: the key only (its value was `...` or
    prose)."""
    pairs = []
    for key, value in PAIR.findall(claim):
        pairs.append((key, json.loads(value) if value else None))
    return pairs


def _walk(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk(v)


def claim_misses(claim: str, output: str, volatile: set[str]) -> list[str]:
    pairs = claimed_pairs(claim)
    if not pairs:
        return []  # a claim in words only
    try:
        answer = json.loads(output)
    except ValueError:
        return [f"the answer is not JSON: {output[:300]!r}"]
    seen: dict[str, list] = {}
    for k, v in _walk(answer):
        seen.setdefault(k, []).append(v)
    misses = []
    for key, value in pairs:
        if key not in seen:
            misses.append(f"no {key!r} in the answer")
        elif value is not None and key not in volatile and value not in seen[key]:
            misses.append(f"{key!r} is {seen[key]}, the doc says {value!r}")
    return misses


def is_problem(output: str) -> bool:
    try:
        answer = json.loads(output)
    except ValueError:
        return False
    return isinstance(answer, dict) and str(answer.get("type", "")).startswith("urn:headroom:")


# -- the sandbox: a directory with .venv, a served SQLite database and a port ---------------

PRELUDE = r"""
shopt -s expand_aliases
set -o pipefail
_serve() {  # run a `headroom serve` until it is ready, then stop it
  local port; port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$@" --port "$port" > "$_OUT/serve-$port.log" 2>&1 &
  local pid=$! ok=1
  for _ in $(seq 1 600); do
    if command curl -sf "http://127.0.0.1:$port/readyz" > /dev/null; then ok=0; break; fi
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  kill "$pid" 2> /dev/null; wait "$pid" 2> /dev/null
  [ "$ok" = 0 ] || { cat "$_OUT/serve-$port.log" >&2; return 1; }
}
_fresh_pg() {  # a new database on the local Postgres; prints its name
  local name="headroom_docs_${RANDOM}${RANDOM}"
  psql -q "$_PG_ADMIN" -c "CREATE DATABASE \"$name\"" >&2 && echo "$name" >> "$_PG_MADE" \
    && echo "$name"
}
"""
SERVE = re.compile(r"^((?:[A-Z_]+=\S+\s+)*)((?:\.venv/bin/)?headroom serve\b.*)$", re.DOTALL)


@dataclass
class Sandbox:
    root: Path
    server: LiveServer
    key: str
    env: dict[str, str]

    @property
    def port(self) -> int:
        return self.server.port


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    for tool in ("bash", "curl", "jq"):
        if not shutil.which(tool):
            pytest.fail(f"the docs' commands need {tool} (Debian: apt-get install {tool})")
    root = tmp_path_factory.mktemp("docs")
    (root / ".venv").symlink_to(Path(sys.prefix))  # `.venv/bin/headroom` is this install
    env = {**os.environ, "PATH": f"{Path(sys.prefix) / 'bin'}:{os.environ['PATH']}",
           "PYTHONPATH": f"{ROOT}:{ROOT / 'clients' / 'python'}",
           "HEADROOM_LOG_LEVEL": "warning", "_PG_ADMIN": PG_ADMIN_URL,
           "_PG_MADE": str(root / "postgres-databases")}
    env.pop("HEADROOM_DATABASE_URL", None)
    # The documented default, ./headroom.db, in the sandbox: keys made there are the server's.
    with LiveServer(f"sqlite:///{root / 'headroom.db'}", cwd=root,
                    env={"HEADROOM_TICK_INTERVAL_SECONDS": "0.2"}) as server:
        try:
            yield Sandbox(root, server, server.key, env)
        finally:
            made = root / "postgres-databases"
            for name in made.read_text().split() if made.exists() else []:
                with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _substituted(block: Block, text: str, port: int) -> str:
    opts = block.options()
    for sub in opts.get("sub", []) + opts.get("scale", []):
        old, sep, new = sub.partition("=>")
        assert sep and old, f"{block.id}: sub/scale needs OLD=>NEW, not {sub!r}"
        assert old in text, f"{block.id}: the marker replaces {old!r}, which the block lacks"
        text = text.replace(old, new)
    return re.sub(r"(localhost|127\.0\.0\.1):8000\b", rf"\g<1>:{port}", text)


def run_shell(block: Block, sb: Sandbox) -> None:
    out = sb.root / f"out-{block.line}-{uuid.uuid4().hex[:6]}"
    out.mkdir()
    cmds = commands(_substituted(block, block.text, sb.port))
    opts = block.options()
    volatile = ",".join(opts.get("volatile", [])).replace(" ", "")
    timeout = float(opts.get("timeout", [DEFAULT_TIMEOUT])[-1])
    # One shell session per document: what a block sets (variables, the curl alias) holds
    # in the blocks after it, as for a reader who types them into one terminal.
    state = sb.root / f"state-{block.path.relative_to(ROOT).as_posix().replace('/', '-')}"
    script = [PRELUDE, f"_OUT={out}", f"[ -f {state} ] && . {state}"]
    for n, cmd in enumerate(cmds):
        (out / f"{n}.claim").write_text(cmd.claim)
        serve = SERVE.match(cmd.text.strip())
        text = f"{serve.group(1)}_serve {serve.group(2)}" if serve else cmd.text
        # Braces around it: a comment ending its last line ends before the redirection.
        run = f"{{\n{text}\n}} > {out}/{n}.out\n_rc=$?; echo $_rc > {out}/{n}.rc"
        if _is_get(cmd.text) and claimed_pairs(cmd.claim):
            # A wall clock moves on its own: a GET is read again until its claim holds.
            run = (f"_t0=$SECONDS; while :; do\n{run}\n[ $_rc = 0 ] || break\n"
                   f"python3 {__file__} {out}/{n}.claim {out}/{n}.out '{volatile}' && break\n"
                   f"[ $((SECONDS - _t0)) -lt {RETRY_SECONDS} ] || break; sleep 0.2; done")
        script.append(f'{run}\n[ "$_rc" = 0 ] || exit "$_rc"')
    names = sorted({m for c in cmds for m in ASSIGNED.findall(c.text)})
    # `declare -p` fails for an env prefix (X=1 cmd), which sets no shell variable: say nothing.
    script.append(f"{{ alias -p; declare -p {' '.join(names)} 2> /dev/null; true; }} >> {state}"
                  if names else f"alias -p >> {state}")
    env = {**sb.env, "KEY": sb.key}
    proc = subprocess.run(["bash", "--noprofile", "--norc"], input="\n".join(script),
                          cwd=sb.root, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    for n, cmd in enumerate(cmds):
        assert (out / f"{n}.rc").exists(), \
            f"{block.id}: never reached {cmd.text!r}:\n{proc.stderr[-3000:]}"
        rc, output = int((out / f"{n}.rc").read_text()), (out / f"{n}.out").read_text()
        assert rc == 0, f"{block.id}: {cmd.text!r} exited {rc}:\n{output[-2000:]}\n" \
                        f"{proc.stderr[-3000:]}"
        if "curl" in cmd.text and not any(k == "code" for k, _ in claimed_pairs(cmd.claim)):
            assert not is_problem(output), \
                f"{block.id}: {cmd.text!r} answered a problem: {output[:1000]}"
        misses = claim_misses(cmd.claim, output, set(volatile.split(",")))
        assert not misses, f"{block.id}: {cmd.text!r}: {misses}; it printed {output[:1500]}"
    assert proc.returncode == 0, proc.stderr[-3000:]


def _is_get(text: str) -> bool:
    return text.lstrip().startswith("curl ") and not re.search(r"\s(-d|--data|-X)\b", text)


def run_python(block: Block, sb: Sandbox) -> None:
    spec = _spec_above(block)
    code = _substituted(block, block.text, sb.port)
    prelude = ("import json, os\nKEY = os.environ['KEY']\n"
               "spec = json.loads(os.environ['SPEC'])\n")
    env = {**sb.env, "KEY": sb.key, "SPEC": json.dumps(spec)}
    proc = subprocess.run([sys.executable, "-c", prelude + code], cwd=sb.root, env=env,
                          capture_output=True, text=True, timeout=DEFAULT_TIMEOUT,
                          check=False)
    assert proc.returncode == 0, f"{block.id}:\n{proc.stderr[-3000:]}"


def _spec_above(block: Block) -> object | None:
    """The first JSON body posted to /v1/clusters in the nearest shell block above."""
    above = [b for b in blocks(block.path) if b.line < block.line and b.lang in SHELL]
    for b in reversed(above):
        for cmd in commands(b.text):
            m = re.search(r"/v1/clusters\s.*?-d\s+'(\{.*?\})'", cmd.text, re.DOTALL)
            if m:
                return json.loads(m.group(1))
    return None


# -- the tests --------------------------------------------------------------------------------

def test_the_extractor_reads_blocks_markers_and_claims(tmp_path):
    """The extractor itself, on a document written here."""
    doc = tmp_path / "doc.md"
    doc.write_text("x\n\n<!-- not run: needs a Docker engine -->\n```sh\ndocker ps\n```\n\n"
                   "- a list\n\n  <!-- test: sub=a=>b; volatile=x,y -->\n  ```bash\n"
                   "  curl -s localhost:8000/x \\\n    -d '{\"a\":\n 1}'  # -> {\"k\": 1,\n"
                   "  #     \"s\": \"v\", \"n\": ...}\n  echo hi\n  ```\n```text\nnot a"
                   " snippet\n```\n")
    found = blocks(doc)
    assert [(b.line, b.lang) for b in found] == [(4, "sh"), (11, "bash"), (18, "text")]
    assert found[0].marker("not run") == "needs a Docker engine"
    assert found[1].options() == {"sub": ["a=>b"], "volatile": ["x,y"]}
    cmds = commands(found[1].text)
    assert [c.text.split()[0] for c in cmds] == ["curl", "echo"]
    assert claimed_pairs(cmds[0].claim) == [("k", 1), ("s", "v"), ("n", None)]
    assert claim_misses(cmds[0].claim, '{"k": 1, "s": "v", "n": 3}', set()) == []
    assert claim_misses(cmds[0].claim, '{"k": 2, "s": "v"}', set()) == [
        "'k' is [2], the doc says 1", "no 'n' in the answer"]
    assert claim_misses(cmds[0].claim, '{"k": 2, "s": "w", "n": 0}', {"k", "s"}) == []


def test_ci_runs_the_readme_test_command():
    """The `ci: test` block is what .ci/run runs: the first command line after the marker."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "readme_command test" in ci
    marked = [b for b in blocks(ROOT / "README.md") if b.marker("ci") == "test"]
    assert len(marked) == 1 and "pytest" in marked[0].text


@pytest.mark.parametrize("block", all_snippets(), ids=lambda b: b.id)
def test_block_runs(block: Block, request):
    reason = block.marker("not run")
    if reason is not None:
        assert len(reason.split()) >= 3, f"{block.id}: say why it is not run: {reason!r}"
        return
    if block.marker("ci") == "test":
        return  # .ci/run runs it: test_ci_runs_the_readme_test_command
    assert block.lang, f"{block.id}: a command in an untagged block: tag it sh, or mark it"
    if block.lang == "json":
        json.loads(block.text)
        return
    sb = request.getfixturevalue("sandbox")
    if block.lang == "python":
        run_python(block, sb)
        return
    if "_fresh_pg" in " ".join(v for _, v in block.markers):
        _require_postgres()  # a skip outside CI without a server, a failure in CI
    run_shell(block, sb)


def test_every_port_the_docs_use_is_the_servers():
    """The blocks talk to localhost:8000 only; the test's rewrite covers every one."""
    for b in all_snippets():
        if b.marker("not run") is None:
            for port in re.findall(r"(?:localhost|127\.0\.0\.1):(\d+)", b.text):
                assert port in ("8000", "5432"), f"{b.id}: port {port}"


MAX_CELL = 300  # characters: a longer table cell belongs in prose


def table_cells(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every cell of every Markdown table, fenced blocks left out."""
    cells, fenced = [], False
    for n, line in enumerate(path.read_text().split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.lstrip().startswith("|"):
            row = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            cells += [(n, c.strip()) for c in row]
    return cells


def test_no_table_cell_is_longer_than_a_paragraph_should_be():
    long = [f"{f.relative_to(ROOT)}:{n}: {len(c)} characters: {c[:60]}..."
            for f in doc_files() for n, c in table_cells(f) if len(c) > MAX_CELL]
    assert not long, "\n".join(long)


if __name__ == "__main__":  # the retry loop's check: CLAIM_FILE OUTPUT_FILE VOLATILE
    claim, output, volatile = sys.argv[1:4]
    sys.exit(1 if claim_misses(Path(claim).read_text(), Path(output).read_text(),
                               set(volatile.split(","))) else 0)
