"""What an admission plugin sees of a request, and the two kinds of plugin.

Upstream: staging/src/k8s.io/apiserver/pkg/admission/interfaces.go (``Attributes``,
``MutationInterface``, ``ValidationInterface``) and errors.go (``NewForbidden``).
"""

from __future__ import annotations

from collections.abc import Callable

from kubesim.api import kinds
from kubesim.api.record import Record
from kubesim.errors import Forbidden

CREATE, UPDATE, DELETE = "CREATE", "UPDATE", "DELETE"


class Attributes(Record):
    """admission.Attributes: the operation and its object (for DELETE, the stored one), the old
    object of an update, and what a plugin may read: ``lister(kind)`` returns the stored objects
    of a kind (upstream: the plugin's informers; None where the caller has no cluster to read, as
    for the kubelet's mirror pods or a fresh cluster's objects), ``rng`` draws generated names,
    ``warnings`` collects what the response tells the client (None: nobody to tell),
    ``audit_annotations`` what the plugins add to the request's audit event
    (audit.AddAuditAnnotations; None: the request is not audited)."""

    __slots__ = ("audit_annotations", "lister", "obj", "old", "operation", "rng", "warnings")

    def __init__(self, operation: str, obj: dict, old: dict | None = None,
                 lister: Callable[[str], list[dict]] | None = None, rng: object = None,
                 warnings: list[str] | None = None, audit_annotations: dict | None = None):
        self.operation = operation
        self.obj = obj
        self.old = old
        self.lister = lister
        self.rng = rng
        self.warnings = warnings
        self.audit_annotations = audit_annotations

    @property
    def kind(self) -> str:
        return self.obj.get("kind", "")

    @property
    def name(self) -> str:
        return (self.obj.get("metadata") or {}).get("name") or ""


class MutationPlugin:
    """admission.MutationInterface: may change the object."""

    name = ""

    def admit(self, a: Attributes) -> None:
        raise NotImplementedError


class ValidationPlugin:
    """admission.ValidationInterface: may only refuse."""

    name = ""

    def validate(self, a: Attributes) -> None:
        raise NotImplementedError


def forbidden(a: Attributes, detail: str) -> Forbidden:
    """admission.NewForbidden: ``<resource> "<name>" is forbidden: <detail>`` (no name: ``<resource>
    is forbidden: ...``)."""
    resource = kinds.by_kind(a.kind).resource
    if a.name:
        return Forbidden(f'{resource} "{a.name}" is forbidden: {detail}')
    return Forbidden(f"{resource} is forbidden: {detail}")
