"""WATCH: the changes to the objects of one kind, as the API server streams them to a client.

A watch starts "now" (as a watch from a list's resourceVersion does) and sees every later write
that concerns it, in the order it was made: ``ADDED`` when an object starts to match (created,
or changed into the selectors), ``MODIFIED`` when a matching object is written again (a write
that changes nothing the selectors see still counts: every update is an event), ``DELETED`` when
it goes or stops matching, with the object as it was last and the deletion's resourceVersion.
Each event carries the simulated time it happened at, which the server-side printer ages rows
against.

Upstream: staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go
(``convertToWatchEvent``: the filter applied to the old and the new object decides the event
type), staging/src/k8s.io/apimachinery/pkg/watch/watch.go (the event types), and the
``metadata.name`` field selector clients put on a watch of one object
(client-go tools/watch, kubectl's wait and rollout status).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from kubesim.api.kinds import KindInfo
from kubesim.apiserver.context import Cluster
from kubesim.errors import BadRequest

ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"


@dataclass(frozen=True)
class Event:
    type: str  # ADDED | MODIFIED | DELETED
    object: dict  # a copy, the client's to keep
    at: float  # the simulated time of the write


class Watch:
    """One client's watch; ``events()`` hands over what happened since the last call."""

    def __init__(self, cluster: Cluster, info: KindInfo, namespace: str | None, name: str | None = None,
                 label_selector: str | None = None, field_selector: str | None = None):
        from kubesim.apiserver.objects import list_objects

        self.cluster, self.info = cluster, info
        self.namespace = namespace if info.namespaced else None
        self.name = name
        self._labels = self._fields = None
        if label_selector or field_selector:
            from kubesim.api import selectors

            try:
                if label_selector:
                    self._labels = selectors.parse_label_selector(label_selector)
                if field_selector:
                    self._fields = (selectors.convert_field_selector(
                        info.kind, selectors.parse_field_selector(field_selector)), selectors.fields_of(info.kind))
            except ValueError as e:
                raise BadRequest(str(e)) from None
        # what the client knows to exist: key -> the object as last sent (None: as it was when
        # the watch started, which the client listed itself)
        self._sent: dict[tuple[str, str], dict | None] = {}
        if name is not None:
            current = cluster.store.get(info.kind, self.namespace or "", name)
            present = [current] if current is not None and self._matches(current) else []
        else:
            present = [o for o in list_objects(cluster, info, self.namespace) if self._matches(o)]
        for o in present:
            self._sent[_key(o)] = None
        self._queue: list[Event] = []
        self._stopped = False
        cluster.store.listen(info.kind, self._on_write)

    def _matches(self, obj: dict) -> bool:
        md = obj.get("metadata") or {}
        if self.name is not None and md.get("name") != self.name:
            return False
        if self.namespace is not None and (md.get("namespace") or "") != self.namespace:
            return False
        if self._labels is not None and not self._labels.matches(md.get("labels") or {}):
            return False
        if self._fields is not None:
            fsel, fields_of = self._fields
            if not fsel.matches(fields_of(obj)):
                return False
        return True

    def _on_write(self, key, obj: dict | None, old: dict | None) -> None:
        k = (key[1], key[2])
        if self.name is not None and key[2] != self.name:
            return
        if self.namespace is not None and key[1] != self.namespace:
            return
        was = k in self._sent
        now = self.cluster.now()
        if obj is not None and self._matches(obj):
            snapshot = copy.deepcopy(obj)
            self._sent[k] = snapshot
            self._queue.append(Event(MODIFIED if was else ADDED, snapshot, now))
        elif was:
            last = copy.deepcopy(old if obj is None else (self._sent[k] or obj))
            rv = str(self.cluster.store.resource_version())
            last.setdefault("metadata", {})["resourceVersion"] = rv
            del self._sent[k]
            self._queue.append(Event(DELETED, last, now))

    def events(self) -> list[Event]:
        out, self._queue = self._queue, []
        return out

    def stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            self.cluster.store.unlisten(self.info.kind, self._on_write)


def _key(obj: dict) -> tuple[str, str]:
    md = obj.get("metadata") or {}
    return (md.get("namespace") or "", md["name"])
