"""A fake Kubernetes API server: serves pods from the fixtures and records bindings and
status patches.

Only the calls Headroom makes: the extender's ``GET /api/v1/namespaces/{ns}/pods/{name}`` and
``POST /api/v1/namespaces/{ns}/pods/{name}/binding``, the pod watcher's lists (``GET
/api/v1/pods`` or ``/api/v1/namespaces/{ns}/pods``, with ``fieldSelector`` on
``spec.schedulerName`` and ``limit``/``continue`` paging), and the Kueue controller's ``PATCH``
of workloads' and admission checks' ``status``. It runs in a thread on a free port;
``kubeconfig()`` writes a kubeconfig that points the ``kubernetes`` client at it, which is how
a ``headroom serve`` child process is told to use it."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text())


_POD = re.compile(r"^/api/v1/namespaces/([^/]+)/pods/([^/]+)(/binding)?$")
_PODS = re.compile(r"^/api/v1(?:/namespaces/([^/]+))?/pods$")


class FakeApiServer:
    def __init__(self) -> None:
        self.pods: dict[tuple[str, str], dict[str, Any]] = {}
        self.bindings: list[dict[str, Any]] = []  # (path, body) of every binding POSTed
        self.refuse_bindings = False
        self.patches: list[dict[str, Any]] = []
        self.lists: list[dict[str, Any]] = []  # (namespace, query) of every pod list
        self.resource_version = "100"  # what a list answers as its metadata.resourceVersion
        self.failing_lists = 0  # this many next lists answer 500
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _list(self, namespace: str | None, query: dict[str, list[str]]) -> None:
                fake.lists.append({"namespace": namespace, "query": query})
                if fake.failing_lists > 0:
                    fake.failing_lists -= 1
                    self._send(500, {"kind": "Status", "code": 500, "reason": "InternalError"})
                    return
                wanted = {}
                for term in query.get("fieldSelector", [""])[0].split(","):
                    if term:
                        key, _, value = term.partition("=")
                        wanted[key] = value
                if set(wanted) - {"spec.schedulerName"}:
                    self._send(400, {"kind": "Status", "code": 400, "reason": "BadRequest"})
                    return
                pods = [p for (ns, _n), p in sorted(fake.pods.items())
                        if namespace in (None, ns) and all(
                            p["spec"].get("schedulerName") == v for v in wanted.values())]
                start = int(query.get("continue", ["0"])[0])
                limit = int(query.get("limit", ["0"])[0]) or len(pods)
                meta = {"resourceVersion": fake.resource_version}
                if start + limit < len(pods):
                    meta["continue"] = str(start + limit)
                self._send(200, {"kind": "PodList", "apiVersion": "v1", "metadata": meta,
                                 "items": pods[start:start + limit]})

            def do_GET(self) -> None:  # noqa: N802
                url = urlsplit(self.path)
                listing = _PODS.match(url.path)
                if listing:
                    self._list(listing.group(1), parse_qs(url.query))
                    return
                m = _POD.match(self.path.split("?")[0])
                pod = fake.pods.get((m.group(1), m.group(2))) if m and not m.group(3) else None
                if pod is None:
                    self._send(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                     "reason": "NotFound", "code": 404})
                else:
                    self._send(200, pod)

            def do_POST(self) -> None:  # noqa: N802
                m = _POD.match(self.path.split("?")[0])
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if not m or not m.group(3):
                    self._send(404, {"kind": "Status", "code": 404})
                    return
                fake.bindings.append({"path": self.path.split("?")[0], "body": body})
                if fake.refuse_bindings:
                    self._send(409, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                     "reason": "Conflict", "code": 409})
                else:
                    self._send(201, {"kind": "Status", "apiVersion": "v1", "status": "Success",
                                     "code": 201})

            def do_PATCH(self) -> None:  # noqa: N802
                # Kueue's status subresources (workloads, admissionchecks): recorded.
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                path = self.path.split("?")[0]
                fake.patches.append({"path": path, "content_type": self.headers["Content-Type"],
                                     "body": body})
                if path.startswith("/apis/kueue.x-k8s.io/v1beta1/") and path.endswith("/status"):
                    self._send(200, body)
                else:
                    self._send(404, {"kind": "Status", "code": 404})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def add_pod(self, pod: dict[str, Any]) -> None:
        self.pods[(pod["metadata"]["namespace"], pod["metadata"]["name"])] = pod

    def kubeconfig(self, path: Path) -> Path:
        path.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "fake", "user": {"token": "fake-token"}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}]}))
        return path

    def __enter__(self) -> FakeApiServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
