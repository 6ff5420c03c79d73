"""NamespaceLifecycle: the namespaces every cluster needs cannot be deleted.

Upstream: plugin/pkg/admission/namespace/lifecycle/admission.go: a DELETE of one of the
immortal namespaces (``default``, ``kube-system``, ``kube-public``; kube-apiserver adds
``kube-node-lease``) is refused with "this namespace may not be deleted". The plugin also
refuses objects in a namespace that does not exist or is terminating; kubesim checks that the
namespace exists in the API server's create (``kubesim.apiserver.objects.create_object``),
after admission, as it always has.
"""

from __future__ import annotations

from kubesim.apiserver.admission.interfaces import (
    DELETE,
    Attributes,
    ValidationPlugin,
    forbidden,
)

IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


class NamespaceLifecycle(ValidationPlugin):
    name = "NamespaceLifecycle"

    def validate(self, a: Attributes) -> None:
        if a.operation == DELETE and a.kind == "Namespace" and a.name in IMMORTAL_NAMESPACES:
            raise forbidden(a, "this namespace may not be deleted")
