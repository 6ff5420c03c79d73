"""managedFields: who set which field, kept on every write, and server-side apply.

Upstream: k8s.io/apimachinery ``pkg/util/managedfields/internal`` (the FieldManager's chain,
fieldmanager.go ``NewDefaultFieldManager``: versioncheck → lastappliedupdater →
lastappliedmanager → skipnonapplied → capmanagers → buildmanagerinfo → managedfieldsupdater →
stripmeta → structuredmerge) and sigs.k8s.io/structured-merge-diff/v6 ``merge/update.go``
(``Updater.Update``, ``Updater.Apply``, ``prune``), conflict.go for the 409's texts,
managedfields.go for the entries' encoding (``BuildManagerIdentifier``,
``sortEncodedManagedFields``); the manager of a request without ``fieldManager`` is its
user agent's program name (endpoints/handlers/rest.go ``managerOrUserAgent``).

An Update records, for its manager, the fields it changed (added or modified), and takes them
from every other manager; fields it removed leave everyone. An Apply merges the configuration
into the live object, owns exactly the configuration's fields, removes the fields it applied
before and no longer applies unless someone else owns them, and is refused with a conflict
when it would change a field another manager owns (unless forced, which takes it). Writes of
the control plane's own components go through ``Tracker``, which the store calls before each
write, with the component's name as the manager.

Not modelled: version conversion of entries recorded at other API versions (each entry is
compared at the object's version), and the probabilistic skip of tracking on create. A
component's write is recorded as the status subresource's when it changed status (kubesim's
components do not say which endpoint they would have used).
"""

from __future__ import annotations

import json
import marshal
import weakref

from kubesim.api import fieldpath as fp
from kubesim.api import typed
from kubesim.errors import StatusError

BEFORE_FIRST_APPLY = "before-first-apply"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
APPLY, UPDATE = "Apply", "Update"

# stripmeta.go: fields no manager ever owns
_STRIP = (("f:apiVersion",), ("f:kind",), ("f:metadata",), ("f:metadata", "f:name"),
          ("f:metadata", "f:namespace"), ("f:metadata", "f:creationTimestamp"), ("f:metadata", "f:selfLink"),
          ("f:metadata", "f:uid"), ("f:metadata", "f:clusterName"), ("f:metadata", "f:generation"),
          ("f:metadata", "f:managedFields"), ("f:metadata", "f:resourceVersion"))


class Entry:
    """One manager's fields (``fieldpath.VersionedSet`` with its time)."""

    __slots__ = ("api_version", "fields", "manager", "operation", "subresource", "time")

    def __init__(self, manager: str, operation: str, api_version: str, subresource: str, time: str | None,
                 fields: dict):
        self.manager, self.operation, self.api_version = manager, operation, api_version
        self.subresource, self.time, self.fields = subresource, time, fields

    @property
    def ident(self) -> tuple:
        """``BuildManagerIdentifier``: an applier's entry does not depend on its version."""
        return (self.manager, self.operation, "" if self.operation == APPLY else self.api_version, self.subresource)


def decode(entries) -> dict[tuple, Entry]:
    out: dict[tuple, Entry] = {}
    for e in entries or ():
        if not isinstance(e, dict):
            continue
        en = Entry(e.get("manager", ""), e.get("operation", ""), e.get("apiVersion", ""), e.get("subresource", ""),
                   e.get("time"), e.get("fieldsV1") or {})
        out[en.ident] = en
    return out


_SECONDS: dict[str, float] = {}  # an entry's time -> its seconds (a command writes a few times)


def _seconds(e: Entry) -> float:
    if not e.time:
        return 0
    s = _SECONDS.get(e.time)
    if s is None:
        from kubesim.clock import parse_time

        try:
            s = parse_time(e.time)
        except ValueError:
            s = 0
        if len(_SECONDS) >= 4096:
            _SECONDS.clear()
        _SECONDS[e.time] = s
    return s


def encode(managed: dict[tuple, Entry], encoded: tuple = (), found: tuple | None = None) -> list[dict]:
    """The entries as the object stores them, in ``sortEncodedManagedFields``' order.
    ``encoded``: sets that are stored entries' own ``fieldsV1`` nobody else holds (encoded when
    they were stored): an entry with one of them keeps it as it is. ``found``: when given, the
    sets of the entries as the write found them; the others, just worked out, are encoded
    without ``fieldpath.encode``'s memo (a kubelet's status set names its pod's IP: every one
    differs), those found through it (other objects of the kind hold the same)."""
    seconds = _seconds
    out = []
    for e in sorted(managed.values(), key=lambda e: (e.operation, seconds(e), e.manager, e.api_version, e.subresource)):
        fields = e.fields
        if not any(fields is s for s in encoded):
            fields = fp.encode(fields, found is None or any(fields is s for s in found))
        d = {"apiVersion": e.api_version, "fieldsType": "FieldsV1", "fieldsV1": fields,
             "manager": e.manager, "operation": e.operation}
        if e.subresource:
            d["subresource"] = e.subresource
        if e.time:
            d["time"] = e.time
        out.append(d)
    return out


def _strip(s: dict) -> dict:
    if "f:metadata" not in s and "f:apiVersion" not in s and "f:kind" not in s:
        return s  # (every path of _STRIP starts with one of them: nothing to strip)
    return fp.remove_paths(s, _STRIP)


def _type_of(obj: dict):
    return typed.kind_type(obj.get("apiVersion", ""), obj.get("kind", ""))


def _ignored(s: dict, subresource: str, has_status: bool) -> dict:
    """The strategy's reset fields: the main resource never owns status; status owns only it."""
    if not has_status:
        return s
    if subresource == "status":
        return {k: v for k, v in s.items() if k in ("f:status", "f:metadata")}
    if subresource:
        return s
    return {k: v for k, v in s.items() if k != "f:status"}


# -- Update ----------------------------------------------------------------------------------

def update(live: dict | None, new: dict, manager: str, now: str, subresource: str = "",
           client_fields=None) -> None:
    """Record an Update of ``live`` (None: a create) to ``new`` by ``manager`` in
    ``new``'s managedFields, in place. ``client_fields`` is the managedFields the request
    carried (None when it carried none): a non-empty one replaces the live entries, an empty
    one (or ``[{}]``) resets them."""
    t = typed.kind_ref(new.get("apiVersion", ""), new.get("kind", ""))
    md = new.setdefault("metadata", {})
    if t is None:
        md.pop("managedFields", None)
        return
    ref, has_status = t
    if client_fields is not None and client_fields != (live or {}).get("metadata", {}).get("managedFields"):
        if client_fields == [] or client_fields == [{}]:
            md.pop("managedFields", None)
            return
        managed = decode(client_fields)
    else:
        managed = decode((live or {}).get("metadata", {}).get("managedFields"))
    if not managed and live is not None:
        # skipnonapplied.go: an object created without tracking stays untracked until applied
        md.pop("managedFields", None)
        return
    if live is None and not managed and subresource != "scale":
        _store_created(md, new, ref, manager, subresource, now)
        return
    before = managed.get((manager, UPDATE, new.get("apiVersion", ""), subresource))
    managed = _update(live if live is not None else _type_of(new)[1], new, ref, managed, manager,
                      new.get("apiVersion", ""), subresource, now, has_status)
    if subresource == "scale":
        # scalehandler.go ToParent: the parent's entries keep the times they had (none when new)
        entry = managed.get((manager, UPDATE, new.get("apiVersion", ""), subresource))
        if entry is not None:
            entry.time = before.time if before is not None else None
    _store(md, managed)


# A create's entry (its Update from the kind's zero value) depends on which fields the object
# has, not on their values (``typed.creation_shape``). Objects of one shape (the Events of a
# reason, the pods of a DaemonSet) share it: worked out once per (type, manager, subresource,
# shape), copied for each (kept marshalled: a copy is one load).
_CREATED: dict[tuple, bytes] = {}
_CREATED_MAX = 4096


def _store_created(md: dict, new: dict, ref: str, manager: str, subresource: str, now: str) -> None:
    api_version = new.get("apiVersion", "")
    key = (ref, manager, api_version, subresource, typed.creation_shape(_body(new), ref))
    entries = _CREATED.get(key)
    if entries is None:
        zero = _type_of(new)[1]
        managed = cap_update_managers(_update(zero, new, ref, {}, manager, api_version, subresource, now,
                                              "status" in zero))
        entries = marshal.dumps([{k: v for k, v in e.items() if k != "time"} for e in encode(managed)])
        if len(_CREATED) >= _CREATED_MAX:
            _CREATED.clear()
        _CREATED[key] = entries
    out = marshal.loads(entries)
    if not out:
        md.pop("managedFields", None)
        return
    if now:
        for e in out:
            e["time"] = now
    md["managedFields"] = out


MAX_UPDATE_MANAGERS = 10  # capmanagers.go DefaultMaxUpdateManagers
ANCIENT_CHANGES = "ancient-changes"


def cap_update_managers(managed: dict[tuple, Entry]) -> dict[tuple, Entry]:
    """capmanagers.go: past 10 Update managers, the oldest are merged, per version, into one
    ``ancient-changes`` entry (with the time of the last merged)."""
    updaters = [k for k, e in managed.items() if e.operation != APPLY]
    if len(updaters) <= MAX_UPDATE_MANAGERS:
        return managed
    from kubesim.clock import parse_time

    def order(k):
        t = managed[k].time
        try:
            seconds = int(parse_time(t)) if t else 0
        except ValueError:
            seconds = 0
        return (seconds, json.dumps(identifier(managed[k]), separators=(",", ":")))

    updaters.sort(key=order)
    first_of: dict[str, tuple] = {}
    length = len(updaters)
    for key in updaters:
        if length <= MAX_UPDATE_MANAGERS:
            break
        e = managed[key]
        bucket = (ANCIENT_CHANGES, UPDATE, e.api_version, "")
        if e.api_version in first_of:
            if bucket not in managed:
                first = managed.pop(first_of[e.api_version])
                managed[bucket] = Entry(ANCIENT_CHANGES, UPDATE, first.api_version, "", first.time, first.fields)
            old = managed[bucket]
            managed[bucket] = Entry(ANCIENT_CHANGES, UPDATE, e.api_version, "", e.time, fp.union(e.fields, old.fields))
            del managed[key]
            length -= 1
        else:
            first_of[e.api_version] = key
    return managed


def _store(md: dict, managed: dict[tuple, Entry], encoded: tuple = (), found: tuple | None = None) -> None:
    managed = cap_update_managers(managed)
    if managed:
        md["managedFields"] = encode(managed, encoded, found)
    else:
        md.pop("managedFields", None)


def _update(old: dict, new: dict, ref: str, managed: dict[tuple, Entry], manager: str, api_version: str,
            subresource: str, now: str, has_status: bool) -> dict[tuple, Entry]:
    cmp = typed.compare(_body(old), _body(new), ref)
    changed = _strip(_ignored(cmp.changed(), subresource, has_status))
    removed = cmp.removed
    ident = (manager, UPDATE, api_version, subresource)
    out: dict[tuple, Entry] = {}
    for key, e in managed.items():  # the manager's own entry too: it is merged back below
        s = e.fields
        # (a set sharing no top-level field with the change keeps what it has: a status
        # write leaves the spec's managers as they were; but a difference drops a root "."
        # a client's managedFields may carry)
        if changed and ("." in s or not s.keys().isdisjoint(changed)):
            s = fp.difference(s, changed)
        if removed and ("." in s or not s.keys().isdisjoint(removed)):
            s = fp.difference(s, removed)
        if s:
            out[key] = Entry(e.manager, e.operation, e.api_version, e.subresource, e.time, s)
    if changed:
        prev = out.get(ident)
        fields = fp.union(prev.fields, changed) if prev else changed
        out[ident] = Entry(manager, UPDATE, api_version, subresource, now, fields)
    return out


def _body(obj: dict) -> dict:
    md = obj.get("metadata")
    if md and "managedFields" in md:
        obj = dict(obj)
        obj["metadata"] = {k: v for k, v in md.items() if k != "managedFields"}
    return obj


# -- Apply -----------------------------------------------------------------------------------

class Conflict(StatusError):
    """409 Conflict with reason Conflict: the apply would change fields other managers own
    (errors.NewApplyConflict). ``conflicts``: (manager identifier, path) pairs, the identifier
    a dict as ``BuildManagerIdentifier`` encodes it."""

    code = 409
    reason = "Conflict"

    def __init__(self, conflicts: list[tuple[dict, tuple]]):
        self.conflicts = conflicts
        super().__init__(conflict_message(conflicts))
        self.details = {"causes": [{"reason": "FieldManagerConflict", "message": f"conflict with {print_manager(m)}",
                                    "field": fp.path_string(p)} for m, p in conflicts]}


def identifier(e: Entry) -> dict:
    """``BuildManagerIdentifier``: the entry without its fields and time (and an applier's
    without its version), in ManagedFieldsEntry's field order."""
    d = {"manager": e.manager, "operation": e.operation}
    if e.operation != APPLY and e.api_version:
        d["apiVersion"] = e.api_version
    if e.subresource:
        d["subresource"] = e.subresource
    return d


def print_manager(m: dict) -> str:
    """conflict.go ``printManager``."""
    from kubesim.api.gofmt import go_quote

    s = go_quote(m.get("manager", ""))
    if m.get("subresource"):
        s += f" with subresource {go_quote(m['subresource'])}"
    if m.get("operation") == UPDATE:
        s += f" using {m.get('apiVersion', '')}"
        if m.get("time"):
            s += f" at {m['time']}"
    return s


def conflict_message(conflicts: list[tuple[dict, tuple]]) -> str:
    """conflict.go ``getConflictMessage``: one conflict on a line; several grouped by manager,
    the managers in the order of their identifiers."""
    if len(conflicts) == 1:
        m, p = conflicts[0]
        return f"Apply failed with 1 conflict: conflict with {print_manager(m)}: {fp.path_string(p)}"
    by: dict[str, list] = {}
    managers = {}
    for m, p in conflicts:
        key = json.dumps(m, separators=(",", ":"))
        by.setdefault(key, []).append(p)
        managers[key] = m
    lines = []
    for key in sorted(by):
        lines.append(f"conflicts with {print_manager(managers[key])}:")
        lines.extend(f"- {fp.path_string(p)}" for p in by[key])
    return f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)


class UnknownError(StatusError):
    """An error the API server passes on as it is (Status reason "", code 500): kubectl prints
    ``Error from server: <message>``."""

    reason = ""

    def __str__(self) -> str:
        return f"Error from server: {self.message}"


def _gvk(obj: dict) -> str:
    """schema.GroupVersionKind's String: ``apps/v1, Kind=Deployment``, ``/v1, Kind=Pod``."""
    av = obj.get("apiVersion", "")
    return f"{av if '/' in av else '/' + av}, Kind={obj.get('kind', '')}"


def _object_gvknn(obj: dict) -> str:
    md = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return f"{md.get('namespace', '')}/{md.get('name', '')}; {_gvk(obj)}"


def _validation_errors(errs: list[str]) -> str:
    """structured-merge-diff ``ValidationErrors.Error``."""
    if len(errs) == 1:
        return errs[0]
    return "\n".join(["errors:"] + ["  " + e for e in errs])


def apply(live: dict | None, config: dict, manager: str, now: str, force: bool = False,
          subresource: str = "") -> dict:
    """Server-side apply of ``config`` to ``live`` (None: the object does not exist yet) by
    ``manager``: the object to store, its managedFields set. Raises ``Conflict``."""
    t = _type_of(config)
    if t is None:
        raise StatusError(f"no schema for {config.get('apiVersion')}/{config.get('kind')}")
    ref, zero = t
    has_status = "status" in zero
    api_version = config.get("apiVersion", "")
    unknown = typed.unknown_fields(config, ref)
    if unknown:
        raise UnknownError(f"failed to create typed patch object ({_object_gvknn(config)}): "
                           + _validation_errors([f"{p}: field not declared in schema" for p in unknown]))
    base = live if live is not None else zero
    managed = decode((base.get("metadata") or {}).get("managedFields"))
    if not managed and live is not None:
        # skipnonapplied.go: the fields already there become an Update manager's first
        managed = _update(zero, live, ref, {}, BEFORE_FIRST_APPLY, api_version, subresource, now, has_status)
    try:
        obj, out = _apply(base, config, ref, managed, manager, api_version, subresource, now, force, has_status)
    except Conflict as c:
        if manager != "kubectl" or force:
            raise
        # lastappliedmanager.go: fields kubectl's client-side apply set to what it last applied
        allowed = _allowed_from_last_applied(live, ref, api_version)
        if allowed is None:
            raise
        rest = [(m, p) for m, p in c.conflicts if not fp.has(allowed, p)]
        if rest:
            raise Conflict(rest) from None
        obj, out = _apply(base, config, ref, managed, manager, api_version, subresource, now, True, has_status)
    if manager == "kubectl" and live is not None:
        ann = (live.get("metadata") or {}).get("annotations") or {}
        if ann.get(LAST_APPLIED):  # lastappliedupdater.go
            from kubesim.api.merge import last_applied_json

            obj.setdefault("metadata", {}).setdefault("annotations", {})[LAST_APPLIED] = last_applied_json(config)
    _store(obj.setdefault("metadata", {}), out)
    return obj


def _apply(live: dict, config: dict, ref: str, managed: dict[tuple, Entry], manager: str, api_version: str,
           subresource: str, now: str, force: bool, has_status: bool) -> tuple[dict, dict[tuple, Entry]]:
    live_body = _body(live)
    merged = typed.merge(live_body, config, ref)
    ident = (manager, APPLY, "", subresource)
    last = managed.get(ident)
    applied = _strip(_ignored(typed.to_field_set(config, ref), subresource, has_status))
    out = dict(managed)
    out[ident] = Entry(manager, APPLY, api_version, subresource, last.time if last else None, applied)
    if last is not None and last.fields:
        owned: dict = {}
        for e in out.values():
            owned = fp.union(owned, e.fields)
        # prune's addBackOwnedItems: what anyone still owns stays, with what holds it
        gone = fp.keep_holders(fp.difference(last.fields, owned), owned)
        if gone:
            merged = typed.remove_items(merged, ref, gone)
    cmp = typed.compare(live_body, merged, ref)
    changed = _ignored(cmp.changed(), subresource, has_status)
    conflicts: list[tuple[dict, tuple]] = []
    for key, e in managed.items():
        if key == ident:
            continue
        both = fp.intersection(e.fields, changed) if changed else None
        if both:
            conflicts.extend((identifier(e), p) for p in fp.paths(both))
    if conflicts and not force:
        raise Conflict(conflicts)
    result: dict[tuple, Entry] = {}
    for key, e in out.items():
        s = e.fields
        if key != ident:
            if changed:
                s = fp.difference(s, changed)
            if cmp.removed:
                s = fp.difference(s, cmp.removed)
        if s or key == ident:
            result[key] = Entry(e.manager, e.operation, e.api_version, e.subresource, e.time, s)
    if not result[ident].fields:
        del result[ident]
    elif merged != live_body:  # managedfieldsupdater.go: a no-op apply keeps its time (none when new)
        result[ident].time = now
    return merged, result


def _allowed_from_last_applied(live: dict | None, ref: str, api_version: str) -> dict | None:
    if live is None:
        return None
    raw = ((live.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    if not raw:
        return None
    try:
        last = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(last, dict) or last.get("apiVersion") != api_version:
        return None
    s = typed.to_field_set(last, ref)
    cmp = typed.compare(last, _body(live), ref)
    for part in (cmp.modified, cmp.added, cmp.removed):
        s = fp.difference(s, part)
    return s


# -- the control plane's own writes ------------------------------------------------------------

def _marshal(obj: dict) -> bytes:
    return marshal.dumps(obj)


# The parts of an object a write often leaves as they were (a status write: the spec), each
# marshalled on its own in the object's snapshot: when a write's part marshals to the bytes the
# snapshot holds, the written part itself stands for the part as last written (equal bytes,
# equal values of the same types), neither decoded again nor compared further.
_PARTS = ("spec", "status")


def _parts(obj: dict) -> dict[str, bytes] | None:
    """``obj``'s parts (``_PARTS``) marshalled; None when it has none."""
    out = None
    for k in _PARTS:
        if k in obj:
            if out is None:
                out = {}
            out[k] = marshal.dumps(obj[k])
    return out


def _snapshot(obj: dict, parts: dict[str, bytes] | None) -> bytes | tuple:
    """``obj`` as written, marshalled: whole, or, with ``parts`` (``_parts(obj)``), as its keys in
    order, its parts and the rest."""
    if parts is None:
        return _marshal(obj)
    return tuple(obj), parts, _marshal({k: v for k, v in obj.items() if k not in parts})


def _restore(snapshot: bytes | tuple, obj: dict | None = None, parts: dict[str, bytes] | None = None) -> dict:
    """The object a ``_snapshot`` holds, a copy of its own but for the parts whose bytes
    ``parts`` (``_parts(obj)``) repeats: those are ``obj``'s own."""
    if type(snapshot) is bytes:
        return marshal.loads(snapshot)
    order, held, rest = snapshot
    rest = marshal.loads(rest)
    out = {}
    for k in order:
        b = held.get(k)
        if b is None:
            out[k] = rest[k]
        elif parts is not None and parts.get(k) == b:
            out[k] = obj[k]
        else:
            out[k] = marshal.loads(b)
    return out


class Tracker:
    """The store's write hook: managedFields for the writes of the components (the
    controllers, the kubelets, the scheduler), named by ``cluster.field_manager`` as the
    settle loop sets it. A write whose managedFields the API server's handlers already set
    (``handled``) is only remembered, as the state the next write of the object is compared
    with."""

    def __init__(self, cluster):
        # (weakly: the cluster holds its tracker, and a long-lived ``kubesim serve`` must free
        # each request's cluster by reference counting, its objects with it)
        self.cluster = weakref.proxy(cluster)
        # key -> the object as last written, marshalled (``_snapshot``: a writer may change the
        # stored dict in place before its next write): dumping costs a few microseconds,
        # loading is paid only by an object written again
        self._last: dict[tuple, bytes | tuple] = {}
        self._handled: set[int] = set()

    def handled(self, obj: dict) -> None:
        self._handled.add(id(obj))

    def previous(self, key: tuple, obj: dict | None = None, parts: dict[str, bytes] | None = None) -> dict | None:
        """The object as last written (by this command, else as committed). ``obj`` and
        ``parts``: the object being written and its ``_parts``, which may stand for the same
        parts of the previous (read only, as the result is)."""
        snapshot = self._last.get(key)
        if snapshot is not None:
            return _restore(snapshot, obj, parts)
        return self.cluster.store.committed(*key)

    def before_write(self, key: tuple, obj: dict) -> None:
        t = typed.kind_ref(obj.get("apiVersion", ""), obj.get("kind", ""))
        # (marshalled before the record, which changes only the metadata)
        parts = _parts(obj) if t is not None else None
        if id(obj) in self._handled:
            self._handled.discard(id(obj))
        elif t is not None:
            manager = getattr(self.cluster, "field_manager", None)
            if manager:
                self._record(key, obj, manager, t, parts)
        if t is not None:  # (a kind without a schema has no managedFields: nothing compares it)
            self._last[key] = _snapshot(obj, parts)

    def _record(self, key: tuple, obj: dict, manager: str, t: tuple, parts: dict[str, bytes] | None = None) -> None:
        snapshot = key in self._last  # (then ``old`` is a copy of its own, else the store's)
        old = self.previous(key, obj, parts)
        md = obj.setdefault("metadata", {})
        if old is None:
            update(None, obj, manager, self.cluster.stamp())
            return
        managed = decode((old.get("metadata") or {}).get("managedFields"))
        if not managed:
            md.pop("managedFields", None)
            return
        ref, has_status = t
        cmp_status = obj.get("status") != old.get("status")
        subresource = "status" if has_status and cmp_status else ""
        # the sets of the entries the write leaves as they were (a status write: the spec's
        # managers) are the snapshot's own, already encoded: kept, not encoded again (a tenth
        # of a kubelet's status write)
        found = tuple(e.fields for e in managed.values())
        _store(md, _update(old, obj, ref, managed, manager, obj.get("apiVersion", ""), subresource,
                           self.cluster.stamp(), has_status),
               found if snapshot else (), found)
