"""``kubectl create ingress NAME --rule=host/path=service:port[,tls[=secret]] --class
--default-backend --annotation``: the object it builds and the checks it makes first.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_ingress.go (kubectl 1.36):
``Validate`` (the rule regex ``regexHostPathSvc + regexTLS``, matched from the start only;
``key=[value]`` annotations; ``svcname:port`` default backend), ``buildIngressSpec``,
``buildTLSRules`` (one TLS entry per secret, a host listed once), ``buildIngressRules`` (paths
of the same host under one rule), ``buildHTTPIngressPath`` (a trailing ``*`` makes the path
``Prefix``, else ``Exact``) and ``parseServiceBackendPort`` (``intstr.Parse``: a number that
fits an int32 is a port number, anything else a port name). The object's keys are in
networking/v1's struct order, as kubectl prints a typed object.
"""

from __future__ import annotations

import re

from kubesim.errors import GoPanic, UsageError

RULE_REGEX = re.compile(r"^(?P<host>[\w\*\-\.]*)(?P<path>/.*)=(?P<svcname>[\w\-]+):(?P<svcport>[\w\-]+)"
                        r"(,(?P<istls>tls)=?(?P<secretname>[\w\-]+)?)?", re.ASCII)
_INT32 = re.compile(r"^[+-]?[0-9]+\Z")


def validate(rules: list[str], annotations: list[str], default_backend: str) -> None:
    """CreateIngressOptions.Validate."""
    if not default_backend and not rules:
        raise UsageError("not enough information provided: every ingress has to either specify a default-backend "
                         "(which catches all traffic) or a list of rules (which catch specific paths)")
    for rule in rules:
        if not RULE_REGEX.match(rule):
            raise UsageError(f"rule {rule} is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]")
    for annotation in annotations:
        if "=" not in annotation:
            raise UsageError(f"annotation {annotation} is invalid and should be in format key=[value]")
    if default_backend and len(default_backend.split(":")) != 2:
        raise UsageError("default-backend should be in format servicename:serviceport")


def parse_service_backend_port(port: str) -> dict:
    """parseServiceBackendPort: ``intstr.Parse`` (``strconv.ParseInt(val, 10, 32)``)."""
    if _INT32.match(port) and -(2 ** 31) <= int(port) < 2 ** 31:
        number = int(port)
        return {"number": number} if number else {}
    return {"name": port} if port else {}


def _backend(service: str) -> dict:
    """buildIngressBackendSvc."""
    parts = service.split(":")
    if len(parts) < 2:
        raise GoPanic(f"panic: runtime error: index out of range [1] with length {len(parts)}")
    return {"service": {"name": parts[0], "port": parse_service_backend_port(parts[1])}}


def _http_path(pathsvc: str) -> dict:
    """buildHTTPIngressPath."""
    parts = pathsvc.split("=")
    path, service = "/" + parts[0], parts[1]
    path_type = "Exact"
    if path.endswith("*"):
        path_type, path = "Prefix", path[:-1]
    return {"path": path, "pathType": path_type, "backend": _backend(service)}


def _tls_rules(rules: list[str]) -> list[dict]:
    """buildTLSRules."""
    seen: set[str] = set()
    out: list[dict] = []
    for rule in rules:
        parts = rule.split(",")
        if len(parts) != 2:
            continue
        host = rule.split("/", 1)[0]
        secret_parts = parts[1].split("=")
        secret = secret_parts[1] if len(secret_parts) > 1 else ""
        idx = next((i for i, t in enumerate(out) if t.get("secretName", "") == secret), -1)
        if host in seen:
            continue
        if idx > -1:
            out[idx].setdefault("hosts", []).append(host)
            seen.add(host)
            continue
        tls: dict = {}
        if host:
            tls["hosts"] = [host]
        if secret:
            tls["secretName"] = secret
        if tls:
            out.append(tls)
        seen.add(host)
    return out


def _ingress_rules(rules: list[str]) -> list[dict]:
    """buildIngressRules."""
    out: list[dict] = []
    for rule in rules:
        host, pathsvc = rule.split(",")[0].split("/", 1)
        path = _http_path(pathsvc)
        existing = next((r for r in out if r.get("host", "") == host), None)
        if existing is not None:
            existing["http"]["paths"].append(path)
            continue
        entry: dict = {"host": host} if host else {}
        entry["http"] = {"paths": [path]}
        out.append(entry)
    return out


def ingress(name: str, namespace: str | None, ingress_class: str, rules: list[str], default_backend: str,
            annotations: list[str]) -> dict:
    """createIngress: the networking/v1 Ingress kubectl sends (or prints)."""
    metadata: dict = {"name": name} if name else {}
    if namespace:
        metadata["namespace"] = namespace
    ann = dict(a.split("=", 1) for a in annotations)
    if ann:
        metadata["annotations"] = ann
    spec: dict = {}
    if ingress_class:
        spec["ingressClassName"] = ingress_class
    if default_backend:
        spec["defaultBackend"] = _backend(default_backend)
    tls = _tls_rules(rules)
    if tls:
        spec["tls"] = tls
    built = _ingress_rules(rules)
    if built:
        spec["rules"] = built
    return {"kind": "Ingress", "apiVersion": "networking.k8s.io/v1", "metadata": metadata, "spec": spec,
            "status": {"loadBalancer": {}}}
