"""The two API-server calls the extender makes: read a pod, bind it to a node.

``ApiServer`` is what the routes take (``app.state.kube_api`` when set, so tests can pass a
recorder); ``KubernetesApiServer`` is the real one, through the ``kubernetes`` client, which
it configures from the pod's service account when running in a cluster and from
``$KUBECONFIG`` (or ``~/.kube/config``) otherwise. RBAC it needs: ``get`` on ``pods`` and
``create`` on ``pods/binding`` (deploy/kubernetes/rbac.yaml).
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any, Protocol


class ApiServerError(Exception):
    """The API server refused or could not be reached; the message says which."""


class ApiServer(Protocol):
    def get_pod(self, namespace: str, name: str) -> dict[str, Any]: ...

    def bind(self, namespace: str, name: str, uid: str, node: str) -> None: ...


def load_client_config() -> Any:
    """An ``ApiClient`` for this process: in-cluster first, else the kubeconfig."""
    from kubernetes import client, config

    try:
        config.load_incluster_config()
    except config.ConfigException:
        # $KUBECONFIG read now: the client reads it once, when it is first imported.
        config.load_kube_config(config_file=os.environ.get("KUBECONFIG"))
    return client.ApiClient()


class KubernetesApiServer:
    def __init__(self, api_client: Any = None):
        self._client = api_client
        self._lock = threading.Lock()

    def _core(self) -> Any:
        try:
            from kubernetes import client, config
        except ImportError as exc:
            raise ApiServerError("the kubernetes client is not installed "
                                 "(pip install 'headroom[kube]')") from exc

        with self._lock:
            if self._client is None:
                try:
                    self._client = load_client_config()
                except (config.ConfigException, OSError) as exc:
                    raise ApiServerError(f"no API server configured: {exc}") from exc
        return client.CoreV1Api(self._client)

    def get_pod(self, namespace: str, name: str) -> dict[str, Any]:
        core = self._core()
        from kubernetes.client.exceptions import ApiException

        try:
            resp = core.read_namespaced_pod(name, namespace, _preload_content=False)
        except ApiException as exc:
            raise ApiServerError(f"reading pod {namespace}/{name}: {exc.status} {exc.reason}") \
                from exc
        except OSError as exc:  # urllib3's connection errors are OSErrors
            raise ApiServerError(f"reading pod {namespace}/{name}: {exc}") from exc
        return json.loads(resp.data)

    def bind(self, namespace: str, name: str, uid: str, node: str) -> None:
        core = self._core()
        from kubernetes.client.exceptions import ApiException

        # POST pods/{name}/binding, as kube-scheduler's own binder does, with the pod's UID,
        # so that the API server refuses the binding if the pod was replaced by another of the
        # same name. The raw body, and no decoding of the answer: the client's V1Binding
        # model rejects the Status the API server returns.
        body = {"apiVersion": "v1", "kind": "Binding",
                "metadata": {"name": name, "namespace": namespace, "uid": uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        try:
            core.create_namespaced_pod_binding(name, namespace, body,
                                                       _preload_content=False)
        except ApiException as exc:
            raise ApiServerError(f"binding {namespace}/{name} to {node}: {exc.status} "
                                 f"{exc.reason}") from exc
        except OSError as exc:
            raise ApiServerError(f"binding {namespace}/{name} to {node}: {exc}") from exc
