"""A minimal stand-in API server for checking ``kubesim explain`` against the real kubectl.

kubectl's explain needs a server only for two reads: discovery (which resources exist, for its
RESTMapper) and the OpenAPI v3 documents. This serves kubesim's discovery (its kinds registry)
and the upstream v1.35 OpenAPI v3 documents (k8s.io/kubernetes api/openapi-spec/v3), over plain
HTTP on loopback, so that ``kubectl --server http://127.0.0.1:PORT explain ...`` prints what it
would print against a v1.35 cluster serving the same resources. Used by
``tests/kubectl/cmd/test_explain.py`` to regenerate its golden files.

    python tools/openapi_oracle.py [SPEC_DIR [V2_PROTOBUF]]   # prints the port, serves until killed
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_SPEC = "/root/go/pkg/mod/k8s.io/kubernetes@v1.35.4/api/openapi-spec/v3"


def _routes(spec_dir: str) -> dict[str, bytes]:
    from kubesim.api import kinds

    served = [k for k in [*kinds.REGISTRY.all(), *kinds.REGISTRY.other_versions.values()] if k.served]
    routes: dict[str, object] = {
        "/api": {"kind": "APIVersions", "versions": ["v1"],
                 "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]},
        "/version": {"major": "1", "minor": "35", "gitVersion": "v1.35.4", "platform": "linux/amd64"},
    }
    groups: dict[str, list] = {}
    for k in served:
        groups.setdefault(k.group, [])
        if k.version not in groups[k.group]:
            groups[k.group].append(k.version)
    routes["/apis"] = {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
        {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in vs],
         "preferredVersion": {"groupVersion": f"{g}/{vs[0]}", "version": vs[0]}}
        for g, vs in groups.items() if g]}
    for g, vs in groups.items():
        for v in vs:
            gv = f"{g}/{v}" if g else v
            routes[("/apis/" if g else "/api/") + gv] = {
                "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv,
                "resources": [{"name": k.plural, "singularName": k.singular, "namespaced": k.namespaced,
                               "kind": k.kind, "verbs": list(k.verbs), "shortNames": list(k.short_names),
                               "categories": list(k.categories)}
                              for k in served if (k.group, k.version) == (g, v)]}
    # metrics-server's aggregated group, which kubesim's clusters behave as having (last: priority 100)
    from kubesim.api import metricsapi

    routes["/apis"]["groups"].append({"name": metricsapi.GROUP, "versions": [
        {"groupVersion": metricsapi.GROUP_VERSION, "version": metricsapi.VERSION}],
        "preferredVersion": {"groupVersion": metricsapi.GROUP_VERSION, "version": metricsapi.VERSION}})
    routes["/apis/" + metricsapi.GROUP_VERSION] = {
        "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": metricsapi.GROUP_VERSION,
        "resources": [{"name": p, "singularName": "", "namespaced": ns, "kind": kind, "verbs": list(metricsapi.VERBS)}
                      for p, kind, ns in metricsapi.RESOURCES]}
    paths = {}
    for path in sorted(glob.glob(os.path.join(spec_dir, "*_openapi.json"))):
        name = os.path.basename(path)[: -len("_openapi.json")].split("__")
        if len(name) < 2 or not re.fullmatch(r"v\d+", name[-1]):
            continue
        key = "/".join(name)
        paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash=0"}
        with open(path, "rb") as f:
            routes[f"/openapi/v3/{key}"] = f.read()
    routes["/openapi/v3"] = {"paths": paths}
    return {k: v if isinstance(v, bytes) else json.dumps(v).encode() for k, v in routes.items()}


def serve(spec_dir: str = DEFAULT_SPEC, v2_protobuf: str | None = None) -> tuple[ThreadingHTTPServer, int]:
    """Serve on a free loopback port; ``v2_protobuf``: the OpenAPI v2 document as kube-apiserver
    serves it at /openapi/v2 (protobuf: ``tools/swagger2pb`` converts upstream's swagger.json),
    for ``explain --output=plaintext-openapiv2``."""
    routes = _routes(spec_dir)
    if v2_protobuf:
        with open(v2_protobuf, "rb") as f:
            routes["/openapi/v2"] = f.read()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = routes.get(self.path.split("?")[0])
            if body is None:
                body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                   "reason": "NotFound", "code": 404}).encode()
            self.send_response(200 if body and self.path.split("?")[0] in routes else 404)
            self.send_header("Content-Type", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
                             if self.path.startswith("/openapi/v2") else "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


if __name__ == "__main__":
    srv, port = serve(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SPEC, sys.argv[2] if len(sys.argv) > 2 else None)
    print(port, flush=True)
    threading.Event().wait()
