"""What a resource's strategy decides, and the steps every create and update takes around it.

Upstream: staging/src/k8s.io/apiserver/pkg/registry/rest/create.go (``RESTCreateStrategy``:
``NamespaceScoped``, ``PrepareForCreate``, ``Validate``, ``Canonicalize``; ``BeforeCreate``),
update.go (``RESTUpdateStrategy``: ``PrepareForUpdate``, ``ValidateUpdate``; ``BeforeUpdate``),
delete.go (``RESTGracefulDeleteStrategy``), a resource storage's own ``Delete`` and each
resource's
pkg/registry/<group>/<resource>/strategy.go, which kubesim mirrors in
``kubesim.apiserver.registry.<group>.<resource>``.

A strategy also names its kind's decode-time defaults (``set_defaults``: the scheme's
``SetObjectDefaults_<Kind>``, from ``kubesim.api.<group>.defaults``), which upstream's scheme
applies when the request body is decoded.
"""

from __future__ import annotations

from kubesim.api import kinds
from kubesim.api.names import generate_name


class Strategy:
    """The rules of one kind. The base has none: a kind that needs no rules still gets its own
    (small) subclass, so every kind has one place to look."""

    kind = ""
    # a create keeps the status the client sent (a Node's: its kubelet fills in the rest);
    # every other kind's status is the server's to set
    keeps_status_on_create = False
    # CheckGracefulDelete: a delete only marks the object, which goes when its kubelet is done
    # (pods); such an object's finalizers are not modelled
    graceful_delete = False
    # a delete with Foreground or Orphan propagation marks the object with the policy's
    # finalizer and leaves its dependents to the garbage collector (kubesim: the kinds whose
    # dependents the collector follows); other kinds go at once, as with Background
    propagates_deletion = False
    # the object's uid is set before PrepareForCreate (upstream fills the system metadata
    # first; kubesim's store assigns it otherwise): a strategy that reads it says so
    uid_before_prepare = False

    @property
    def namespaced(self) -> bool:
        """NamespaceScoped."""
        return kinds.by_kind(self.kind).namespaced

    def set_defaults(self, obj: dict) -> None:
        """The scheme's decode-time defaults."""

    def begin_create(self, obj: dict, store, rng) -> None:
        """The REST storage's BeginCreate hook (the Service storage's allocators): runs after
        defaulting and admission, before PrepareForCreate and validation, with the stored
        objects (``store``) and the request's random source. Raises to refuse."""

    def begin_update(self, new: dict, old: dict, store, rng) -> None:
        """The REST storage's BeginUpdate hook, run before PrepareForUpdate and validation."""

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        """PrepareForCreate: what the server sets on a new object (status, generation, ...).
        ``now`` (RFC 3339) is the request's time."""

    def prepare_for_update(self, new: dict, old: dict) -> None:
        """PrepareForUpdate: what an update through the object may not change, and the
        generation."""

    def validate(self, obj: dict) -> list:
        """Validate: the field errors of a new object."""
        return []

    def validate_update(self, new: dict, old: dict) -> list:
        """ValidateUpdate: the field errors of an update."""
        return []

    def prepare_for_status_update(self, new: dict, old: dict) -> None:
        """The status strategy's PrepareForUpdate, for a write through ``.../status`` (``new``
        already carries the old spec and metadata)."""

    def validate_status_update(self, new: dict, old: dict) -> list:
        """The status strategy's ValidateUpdate: the field errors of a status write."""
        return []

    def warnings_on_create(self, obj: dict) -> list[str]:
        """WarningsOnCreate: what the response tells the client (kubectl prints ``Warning: ...``)."""
        return []

    def warnings_on_update(self, new: dict, old: dict) -> list[str]:
        """WarningsOnUpdate."""
        return []

    def canonicalize(self, obj: dict) -> None:
        """Canonicalize: normalise a validated object before it is stored."""

    def before_delete(self, obj: dict) -> None:
        """What the resource's storage refuses to delete: raise (Forbidden) to refuse ``obj``."""

    def check_graceful_delete(self, obj: dict, grace_seconds: float | None, now: float) -> float:
        """rest.CheckGracefulDelete for a ``graceful_delete`` resource: mark ``obj`` (its
        deletionTimestamp and deletionGracePeriodSeconds) and return the grace period, 0 for
        removing it at once."""
        return 0.0

    def delete_dependents(self, store, obj: dict) -> None:
        """What goes with ``obj`` when it is removed from the store, where a real cluster's
        controllers would remove it promptly (kubesim does it in the same write)."""


def before_create(strategy: Strategy, obj: dict, rng=None, now: str | None = None) -> None:
    """rest.BeforeCreate up to validation: a cluster-scoped object loses its namespace, the
    deletion fields are the server's, ``generateName`` becomes a name (``rng`` draws its
    suffix), then the strategy's PrepareForCreate."""
    meta = obj.setdefault("metadata", {})
    if not strategy.namespaced:
        meta.pop("namespace", None)
    meta.pop("deletionTimestamp", None)
    meta.pop("deletionGracePeriodSeconds", None)
    if meta.get("generateName") and not meta.get("name"):
        if rng is None:
            import random

            rng = random.Random()
        meta["name"] = generate_name(meta["generateName"], rng)
    if strategy.uid_before_prepare and not meta.get("uid"):
        from kubesim.apiserver.storage import new_uid

        meta["uid"] = new_uid(rng)
    strategy.prepare_for_create(obj, now)
