"""networking.k8s.io/v1 scheme defaulting: NetworkPolicy and IngressClass.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/networking/v1/defaults.go``
(``SetDefaults_NetworkPolicyPort``: a port's protocol is ``TCP``; ``SetDefaults_NetworkPolicy``:
no policyTypes means ``Ingress``, plus ``Egress`` when there are egress rules;
``SetDefaults_IngressClass``: a parameters reference without a scope is ``Cluster``-scoped) and
the generated ``zz_generated.defaults.go`` that walks every ingress and egress rule's ports;
and what the API server's typed decode and encode (``k8s.io/api/networking/v1/types.go``'s
``json`` tags) leave of an object: ``decode_network_policy``, ``decode_ingress``.
"""

from __future__ import annotations


def _dicts(v) -> list[dict]:
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def _drop_empty(d: dict, *keys: str) -> None:
    """``omitempty`` fields: an empty list or map, or null, is not written back."""
    for k in keys:
        if k in d and (d[k] is None or d[k] == [] or d[k] == {}):
            del d[k]


def _selector(sel) -> dict:
    """A metav1.LabelSelector as it is written back (both fields omitempty)."""
    if not isinstance(sel, dict):
        return {}
    _drop_empty(sel, "matchLabels", "matchExpressions")
    return sel


def decode_network_policy(np: dict) -> None:
    """What the typed decode and encode do to a NetworkPolicy besides defaults: ``spec`` and its
    ``podSelector`` are structs, always written (``{}``); the lists are ``omitempty``."""
    spec = np.get("spec")
    if not isinstance(spec, dict):
        spec = np["spec"] = {}
    spec["podSelector"] = _selector(spec.get("podSelector"))
    _drop_empty(spec, "ingress", "egress", "policyTypes")
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for rule in _dicts(spec.get(direction)):
            _drop_empty(rule, "ports", peers)
            for port in _dicts(rule.get("ports")):
                _drop_empty(port, "protocol", "port", "endPort")
            for peer in _dicts(rule.get(peers)):
                _drop_empty(peer, "ipBlock")
                for key in ("podSelector", "namespaceSelector"):
                    if key in peer:
                        if peer[key] is None:
                            del peer[key]
                        else:
                            peer[key] = _selector(peer[key])
                if isinstance(peer.get("ipBlock"), dict):
                    _drop_empty(peer["ipBlock"], "except")


def set_defaults_network_policy(np: dict) -> None:
    """SetObjectDefaults_NetworkPolicy."""
    spec = np.get("spec")
    if not isinstance(spec, dict):
        return
    if not spec.get("policyTypes"):
        spec["policyTypes"] = ["Ingress"]
        if spec.get("egress"):
            spec["policyTypes"].append("Egress")
    for direction in ("ingress", "egress"):
        for rule in _dicts(spec.get(direction)):
            for port in _dicts(rule.get("ports")):
                if port.get("protocol") is None:
                    port["protocol"] = "TCP"


def set_defaults_ingress_class(ic: dict) -> None:
    """SetDefaults_IngressClass."""
    params = (ic.get("spec") or {}).get("parameters")
    if isinstance(params, dict) and params.get("scope") is None:
        params["scope"] = "Cluster"


def _null_api_group(backend) -> None:
    resource = backend.get("resource") if isinstance(backend, dict) else None
    if isinstance(resource, dict) and "apiGroup" not in resource:
        resource["apiGroup"] = None


def decode_ingress(ing: dict) -> None:
    """What the typed decode leaves in an Ingress beyond defaults: a resource backend's
    ``apiGroup`` (core ``TypedLocalObjectReference``, a ``*string`` without ``omitempty``)
    serialises as ``null`` when it was not given; ``tls``, ``rules`` and a TLS entry's ``hosts``
    are ``omitempty``."""
    spec = ing.get("spec")
    if not isinstance(spec, dict):
        return
    _drop_empty(spec, "tls", "rules")
    for tls in _dicts(spec.get("tls")):
        _drop_empty(tls, "hosts")
    _null_api_group(spec.get("defaultBackend"))
    for rule in _dicts(spec.get("rules")):
        http = rule.get("http")
        for path in _dicts(http.get("paths")) if isinstance(http, dict) else []:
            _null_api_group(path.get("backend"))
