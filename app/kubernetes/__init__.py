"""Kubernetes integration: what Kubernetes objects mean to Headroom (pure translation).

``resources`` reads quantities and a pod's requests, ``mapping`` turns requests into a job
type and nodes into servers, ``pinning`` writes and reads the plan that pins a Kueue Workload's
pods, ``messages`` words Headroom's reasons, ``review`` reads AdmissionReview v1 requests. No
I/O here; the service (``app/service/kubernetes.py``) decides, the watcher (``watcher.py``)
talks to the API server."""
