"""The Services kubectl generates: ``expose`` (and ``run --expose``) from an exposed object.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/expose/expose.go (kubectl 1.36:
``ExposeServiceOptions.createService``, ``parseLabels``, ``parseProtocols``) and
pkg/polymorphichelpers (``canBeExposed``, ``mapBasedSelectorForObject``, ``portsForObject``,
``multiProtocolsForObject``). Objects are built in Go struct order (``-o json`` prints them as
they are), with ``status.loadBalancer`` as a typed Service carries it.
"""

from __future__ import annotations

from kubesim.errors import UsageError

EXPOSABLE = ("Pod", "Service", "Deployment", "ReplicaSet", "ReplicationController")
DNS1035_LABEL_MAX_LENGTH = 63


def can_be_exposed(kind: str, group: str) -> None:
    """canBeExposed: ``cannot expose a <Kind.group>``."""
    if kind not in EXPOSABLE:
        raise UsageError(f"cannot expose a {kind}.{group}" if group else f"cannot expose a {kind}")


def make_labels(labels: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in labels.items())


def map_based_selector(obj: dict) -> str:
    """mapBasedSelectorForObject."""
    kind, spec = obj.get("kind"), obj.get("spec") or {}
    if kind == "ReplicationController":
        return make_labels(spec.get("selector") or {})
    if kind == "Pod":
        labels = (obj.get("metadata") or {}).get("labels") or {}
        if not labels:
            raise ValueError("the pod has no labels and cannot be exposed")
        return make_labels(labels)
    if kind == "Service":
        if spec.get("selector") is None:
            raise ValueError("the service has no pod selector set")
        return make_labels(spec["selector"])
    sel = spec.get("selector") or {}
    what = "deployment" if kind == "Deployment" else "replicaset"
    if not sel.get("matchLabels"):
        raise ValueError(f"invalid {what}: no selectors, therefore cannot be exposed")
    if sel.get("matchExpressions"):
        from kubesim.api.gofmt import go_json

        raise ValueError(f'couldn\'t convert expressions - "{go_json(sel["matchExpressions"])}" to map-based '
                         "selector format")
    return make_labels(sel["matchLabels"])


def _pod_spec(obj: dict) -> dict:
    if obj.get("kind") == "Pod":
        return obj.get("spec") or {}
    return ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}


def ports_for_object(obj: dict) -> list[str]:
    """portsForObject: each distinct container port (a Service's ports), in order."""
    seen: list[str] = []
    if obj.get("kind") == "Service":
        nums = [p.get("port") for p in (obj.get("spec") or {}).get("ports") or []]
    else:
        nums = [p.get("containerPort") for c in _pod_spec(obj).get("containers") or [] for p in c.get("ports") or []]
    for n in nums:
        key = str(int(n or 0))
        if key not in seen:
            seen.append(key)
    return seen


def protocols_for_object(obj: dict) -> dict[str, list[str]]:
    """multiProtocolsForObject: port -> its protocols (TCP when unset), each once."""
    out: dict[str, list[str]] = {}
    if obj.get("kind") == "Service":
        pairs = [(p.get("port"), p.get("protocol")) for p in (obj.get("spec") or {}).get("ports") or []]
    else:
        pairs = [(p.get("containerPort"), p.get("protocol")) for c in _pod_spec(obj).get("containers") or []
                 for p in c.get("ports") or []]
    for port, proto in pairs:
        protos = out.setdefault(str(int(port or 0)), [])
        if (proto or "TCP") not in protos:
            protos.append(proto or "TCP")
    return out


def parse_labels(spec: str) -> dict[str, str]:
    """expose.go's parseLabels."""
    if not spec:
        raise UsageError("no label spec passed")
    out: dict[str, str] = {}
    for item in spec.split(","):
        kv = item.split("=")
        if len(kv) != 2:
            raise UsageError(f"unexpected label spec: {item}")
        if not kv[0]:
            raise UsageError("unexpected empty label key")
        out[kv[0]] = kv[1]
    return out


def _atoi(s: str) -> int:
    from kubesim.kubectl.generate.flags import go_atoi

    try:
        return go_atoi(s)
    except ValueError as e:
        raise UsageError(str(e)) from None


def service(name: str, selector: str, port: str = "", ports: str = "", protocol: str = "",
            protocols: dict[str, list[str]] | None = None, labels: str = "", target_port: str = "",
            external_ip: str = "", type_: str = "", load_balancer_ip: str = "", session_affinity: str = "",
            cluster_ip: str = "", namespace: str | None = None) -> dict:
    """createService."""
    if not selector:
        raise UsageError("selector must be specified")
    sel = parse_labels(selector)
    lab = parse_labels(labels) if labels else None
    if not name:
        raise UsageError("name must be specified")
    port_string = ports or port
    svc_ports: list[dict] = []
    if port_string:
        items = port_string.split(",")
        for i, item in enumerate(items):
            num = _atoi(item)
            pname = f"port-{i + 1}" if len(items) > 1 else ""
            proto = protocol
            if not proto and not protocols:
                proto = "TCP"
            elif not proto and protocols:
                proto = "TCP"
                found = protocols.get(item)
                if found is not None:
                    if len(found) == 1:
                        proto = found[0]
                    else:
                        for p in found:
                            svc_ports.append(_port(f"port-{i + 1}-{p.lower()}", num, p))
                        continue
            svc_ports.append(_port(pname, num, proto))
    for p in svc_ports:
        if target_port:
            p["targetPort"] = int(target_port) if _is_int(target_port) else target_port
        else:
            p["targetPort"] = p["port"]
    md: dict = {"name": name}
    if namespace:
        md["namespace"] = namespace
    if lab is not None:
        md["labels"] = lab
    spec: dict = {}
    if svc_ports:
        spec["ports"] = svc_ports
    spec["selector"] = sel
    if cluster_ip:
        spec["clusterIP"] = cluster_ip
    if type_:
        spec["type"] = type_
    if external_ip:
        spec["externalIPs"] = [external_ip]
    if session_affinity:
        if session_affinity not in ("None", "ClientIP"):
            raise UsageError(f"unknown session affinity: {session_affinity}")
        spec["sessionAffinity"] = session_affinity
    if type_ == "LoadBalancer" and load_balancer_ip:
        spec["loadBalancerIP"] = load_balancer_ip
    return {"kind": "Service", "apiVersion": "v1", "metadata": md, "spec": spec, "status": {"loadBalancer": {}}}


def _port(name: str, port: int, protocol: str) -> dict:
    p: dict = {}
    if name:
        p["name"] = name
    p["protocol"] = protocol
    p["port"] = port
    return p


def _is_int(s: str) -> bool:
    """intstr.Parse: a number when strconv.Atoi takes it."""
    try:
        int(s)
        return s.strip() == s and s.isascii()
    except ValueError:
        return False


# -- create service clusterip|nodeport|loadbalancer|externalname ---------------------------------
# Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_service.go (ServiceOptions.Validate,
# createService, parsePorts; utilsnet.ParsePort with zero allowed).

SERVICE_TYPES = {"clusterip": "ClusterIP", "nodeport": "NodePort", "loadbalancer": "LoadBalancer",
                 "externalname": "ExternalName"}

CREATE_SERVICE_HELP = """Create a service using a specified subcommand.

Aliases:
service, svc

Available Commands:
  clusterip      Create a ClusterIP service
  externalname   Create an ExternalName service
  loadbalancer   Create a LoadBalancer service
  nodeport       Create a NodePort service

Usage:
  kubesim create service [flags] [options]

Use "kubesim create service <command> --help" for more information about a given command.
Use "kubesim options" for a list of global command-line options (applies to all commands).
"""


def _parse_port(s: str) -> int:
    """utilsnet.ParsePort(s, true): strconv.ParseUint(s, 10, 16)."""
    import re

    from kubesim.api.gofmt import go_quote

    if not re.fullmatch(r"[0-9]+", s):
        raise UsageError(f"strconv.ParseUint: parsing {go_quote(s)}: invalid syntax")
    n = int(s)
    if n > 65535:
        raise UsageError(f"strconv.ParseUint: parsing {go_quote(s)}: value out of range")
    return n


def parse_ports(spec: str) -> tuple[int, int | str]:
    """parsePorts: ``port[:targetPort]``, the target a number or a port name."""
    from kubesim.api.meta.validation import is_valid_port_name, is_valid_port_num

    parts = spec.split(":")
    port = _parse_port(parts[0])
    if len(parts) == 1:
        return port, port
    target = parts[1]
    try:
        from kubesim.kubectl.generate.flags import go_atoi

        num = go_atoi(target)
    except ValueError:
        errs = is_valid_port_name(target)
        if errs:
            raise UsageError(",".join(errs)) from None
        return port, target
    errs = is_valid_port_num(num)
    if errs:
        raise UsageError(",".join(errs))
    return port, num


def validate_create_service(type_: str, tcp: list[str], cluster_ip: str, external_name: str) -> None:
    """ServiceOptions.Validate."""
    from kubesim.api.meta.validation import is_dns1123_subdomain

    if cluster_ip == "None" and type_ != "ClusterIP":
        raise UsageError("ClusterIP=None can only be used with ClusterIP service type")
    if cluster_ip != "None" and not tcp and type_ != "ExternalName":
        raise UsageError("at least one tcp port specifier must be provided")
    if type_ == "ExternalName" and is_dns1123_subdomain(external_name):
        raise UsageError(f"invalid service external name {external_name}")


def created_service(name: str, type_: str, tcp: list[str], cluster_ip: str = "", node_port: int = 0,
                    external_name: str = "", namespace: str | None = None) -> dict:
    """ServiceOptions.createService: ports named ``port-target``, labelled and selected by
    ``app: NAME``."""
    ports = []
    for t in tcp:
        port, target = parse_ports(t)
        p: dict = {"name": t.replace(":", "-"), "protocol": "TCP", "port": port, "targetPort": target}
        if node_port:
            p["nodePort"] = node_port
        ports.append(p)
    md: dict = {"name": name}
    if namespace:
        md["namespace"] = namespace
    md["labels"] = {"app": name}
    spec: dict = {}
    if ports:
        spec["ports"] = ports
    spec["selector"] = {"app": name}
    if cluster_ip:
        spec["clusterIP"] = cluster_ip
    spec["type"] = type_
    if external_name:
        spec["externalName"] = external_name
    return {"kind": "Service", "apiVersion": "v1", "metadata": md, "spec": spec, "status": {"loadBalancer": {}}}
