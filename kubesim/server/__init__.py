"""``kubesim serve``: the client interface (``kubesim.kubectl.client.Client``) spoken as the
Kubernetes REST API over HTTP(S), so the real kubectl and client libraries talk to a simulated
cluster.

One process opens a state; every request is handled as one CLI command is: a session on the state
(``kubesim.controlplane.session``: the state's lock, one writer at a time), a ``LocalClient`` call,
the control plane settled and the transaction committed. The simulated clock follows wall time
(unless ``KUBESIM_NOW`` pins it), and a ticker settles the cluster when a component asked to be
woken, so grace periods end without a request.

Modules: ``cmd`` (the verb), ``http`` (the server and its routes), ``discovery`` (``/version``,
``/api``, ``/apis``, OpenAPI), ``status`` (errors as ``metav1.Status``), ``table`` (server-side
printing), ``tls`` (the CA and serving certificate, made with the ``openssl`` command).

Upstream: staging/src/k8s.io/apiserver/pkg/endpoints (handlers/get.go, create.go, update.go,
patch.go, delete.go, watch.go, responsewriters/status.go, discovery/), k8s.io/kubernetes
pkg/controlplane (the groups and their order).
"""
