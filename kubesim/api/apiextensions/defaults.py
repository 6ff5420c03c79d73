"""Scheme defaults of apiextensions.k8s.io/v1.

Upstream: k8s.io/apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go
(``SetDefaults_CustomResourceDefinition``, ``SetDefaults_CustomResourceDefinitionSpec``,
``SetDefaults_ServiceReference``).
"""

from __future__ import annotations


def set_defaults_custom_resource_definition(obj: dict) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    names = spec.get("names")
    if isinstance(names, dict):
        if not names.get("singular") and names.get("kind"):
            names["singular"] = str(names["kind"]).lower()
        if not names.get("listKind") and names.get("kind"):
            names["listKind"] = f"{names['kind']}List"
    conversion = spec.get("conversion")
    if conversion is None:
        spec["conversion"] = {"strategy": "None"}
    elif isinstance(conversion, dict):
        service = ((conversion.get("webhook") or {}).get("clientConfig") or {}).get("service")
        if isinstance(service, dict) and service.get("port") is None:
            service["port"] = 443
    status = obj.get("status")
    if not (isinstance(status, dict) and status.get("storedVersions")):
        for v in spec.get("versions") or ():
            if isinstance(v, dict) and v.get("storage"):
                obj.setdefault("status", {})
                if isinstance(obj["status"], dict):
                    obj["status"]["storedVersions"] = [v.get("name", "")]
                break
