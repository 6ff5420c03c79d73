"""DefaultIngressClass: an Ingress that names no class gets the cluster's default one.

Upstream: plugin/pkg/admission/network/defaultingressclass/admission.go (plugin name
``DefaultIngressClass``, CREATE only): an Ingress without ``spec.ingressClassName`` and without
the deprecated ``kubernetes.io/ingress.class`` annotation gets the name of the IngressClass
annotated ``ingressclass.kubernetes.io/is-default-class: "true"`` (``getDefaultClass``: of
several, the newest, then by name). No default class: the Ingress is left as it is.
"""

from __future__ import annotations

from kubesim.apiserver.admission.interfaces import CREATE, Attributes, MutationPlugin

ANNOTATION_IS_DEFAULT_INGRESS_CLASS = "ingressclass.kubernetes.io/is-default-class"
ANNOTATION_INGRESS_CLASS = "kubernetes.io/ingress.class"


def get_default_class(classes: list[dict]) -> dict | None:
    """getDefaultClass."""
    defaults = [c for c in classes
                if ((c.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_IS_DEFAULT_INGRESS_CLASS) == "true"]
    if not defaults:
        return None
    defaults.sort(key=lambda c: c["metadata"].get("name", ""))
    defaults.sort(key=lambda c: c["metadata"].get("creationTimestamp") or "", reverse=True)
    return defaults[0]


class DefaultIngressClass(MutationPlugin):
    name = "DefaultIngressClass"

    def admit(self, a: Attributes) -> None:
        if a.operation != CREATE or a.kind != "Ingress" or a.lister is None:
            return
        spec = a.obj.get("spec") if isinstance(a.obj.get("spec"), dict) else {}
        annotations = (a.obj.get("metadata") or {}).get("annotations") or {}
        if spec.get("ingressClassName") is not None or ANNOTATION_INGRESS_CLASS in annotations:
            return
        default = get_default_class(a.lister("IngressClass"))
        if default is not None:
            a.obj.setdefault("spec", {})["ingressClassName"] = default["metadata"]["name"]
