"""Objects read through their structured-merge-diff schema: the field set of an object, the
comparison of two, the merge of an applied configuration into a live object, and the removal
of fields. What server-side apply and managedFields are made of.

Upstream: sigs.k8s.io/structured-merge-diff/v6 ``typed`` (tofieldset.go, compare.go,
merge.go, remove.go, helpers.go ``listItemToPathElement``, ``keyedAssociativeListItemToPathElement``)
over the schema the API server builds from its OpenAPI models (k8s.io/kube-openapi
``pkg/schemaconv``), shipped as ``kubesim/data/ssa-schema.json.xz`` (``tools/gen_ssa_schema.py``).

Values are decoded JSON; ``MISSING`` stands for an absent field (``nil`` in the walkers), which
differs from ``None`` (a JSON null, or a Go zero value's null). A type reference is ``""`` (a
leaf: scalars, untyped values), a type name (a struct), ``["l", elem, rel, keys[, defaults]]``
(rel ``a`` atomic, ``s`` set, ``m`` map-keyed) or ``["m", elem, atomic]``.
"""

from __future__ import annotations

import functools
import json

from kubesim.api import fieldpath as fp

MISSING = object()
_LEAF, _STRUCT, _MAP, _LIST = 0, 1, 2, 3
_ATOMIC_STRUCT = ["m", "", 1]


@functools.cache
def _schema() -> dict:
    import lzma
    from pathlib import Path

    with lzma.open(Path(__file__).resolve().parent.parent / "data" / "ssa-schema.json.xz", "rt") as fh:
        return json.load(fh)


def _frozen(ref):
    if isinstance(ref, list):
        return tuple(_frozen(x) for x in ref)
    if isinstance(ref, dict):
        return tuple(sorted(ref.items()))
    return ref


def kind_type(api_version: str, kind: str) -> tuple[str, dict] | None:
    """The type name of a kind and its Go zero value (what a create is compared with, a fresh
    copy: an apply's merge builds the new object on it); None for a kind the schema lacks."""
    import marshal

    entry = _schema()["kinds"].get(f"{api_version}/{kind}")
    return (entry[0], marshal.loads(marshal.dumps(entry[1]))) if entry else None


@functools.lru_cache(maxsize=256)
def kind_ref(api_version: str, kind: str) -> tuple[str, bool] | None:
    """The type name of a kind and whether it has a status (``kind_type`` without copying the
    zero value); None for a kind the schema lacks."""
    entry = _schema()["kinds"].get(f"{api_version}/{kind}")
    return (entry[0], "status" in entry[1]) if entry else None


@functools.lru_cache(maxsize=4096)
def _resolve(ref):
    """(shape, fields or element ref, atomic, list relation, keys, key defaults)."""
    if not ref:
        return _LEAF, None, True, None, None, None
    if isinstance(ref, str):
        t = _schema()["types"].get(ref)
        if t is None:
            return _LEAF, None, True, None, None, None
        # the field references as tuples: hashable, so that resolving one is looked up once
        # (frozen here, for the types a command meets: a few dozen of the schema's 700)
        return _STRUCT, {k: _frozen(r) for k, r in t["f"].items()}, bool(t.get("a")), None, None, None
    if ref[0] == "m":
        return _MAP, ref[1], bool(ref[2]), None, None, None
    return _LIST, ref[1], ref[2] == "a", ref[2], ref[3], (dict(ref[4]) if len(ref) > 4 else {})


# (keys, their values in a keyed list's item) -> the item's path element: the items of a kind's
# lists repeat the same keys (conditions by type, containers by name, ports by number), and
# writing ``k:{...}`` is a JSON encoding each. Only str and int values are kept (their JSON
# is their identity: "1" and 1 differ, as do their hashes; True and 1.0 do not, so are not kept).
_ITEM_PE: dict[tuple, str] = {}
_ITEM_PE_MAX = 8192
_ABSENT = object()


def _item_pe(item, rel: str, keys, defaults) -> str:
    if rel == "s":
        return fp.value(item)
    if not isinstance(item, dict):
        return fp.value(item)
    vals = []
    memo = True
    for k in keys:
        v = item[k] if k in item else defaults.get(k, _ABSENT)
        t = type(v)
        if t is not str and t is not int and v is not _ABSENT:
            memo = False
        vals.append(v)
    if memo:
        mk = (keys, tuple(vals))
        hit = _ITEM_PE.get(mk)
        if hit is not None:
            return hit
    fields = {k: v for k, v in zip(keys, vals) if v is not _ABSENT}
    pe = fp.key(fields)
    if memo:
        if len(_ITEM_PE) >= _ITEM_PE_MAX:
            _ITEM_PE.clear()
        _ITEM_PE[mk] = pe
    return pe


def _child_ref(shape, spec, name):
    if shape == _STRUCT:
        return spec.get(name, ""), name in spec
    return spec, False


# -- ToFieldSet ------------------------------------------------------------------------------

def to_field_set(obj: dict, ref: str) -> dict:
    """The set of every field ``obj`` sets (``TypedValue.ToFieldSet``)."""
    root: dict = {}
    _fields(obj, ref, root)
    return root


def _fields(v, ref, node: dict) -> None:
    """Fill ``node`` (the set node at ``v``'s path) with ``v``'s children."""
    shape, spec, atomic, rel, keys, defaults = _resolve(ref)
    if shape == _LEAF or atomic or v is None:
        return
    if shape == _LIST:
        if not isinstance(v, list):
            return
        seen, dups = set(), set()
        pes = []
        for item in v:
            pe = _item_pe(item, rel, keys, defaults)
            if pe in seen:
                dups.add(pe)
            seen.add(pe)
            pes.append(pe)
        for pe, item in zip(pes, v):
            if pe in dups:
                node[pe] = {}
                continue
            child: dict = {}
            _fields(item, spec, child)
            if child:
                child[fp.MEMBER] = {}
            node[pe] = child
        return
    if not isinstance(v, dict):
        return
    for name, val in v.items():
        cref, declared = _child_ref(shape, spec, name)
        child = {}
        _fields(val, cref, child)
        cshape = _resolve(cref)
        leaf = cshape[0] == _LEAF or cshape[2]
        if leaf or val is None or val == {} or not declared:
            if child:
                child[fp.MEMBER] = {}
            node["f:" + name] = child
        elif child:
            node["f:" + name] = child


# -- Compare ---------------------------------------------------------------------------------

class Comparison:
    """Added, Modified and Removed sets (``typed.Comparison``)."""

    __slots__ = ("added", "modified", "removed")

    def __init__(self):
        self.added: dict = {}
        self.modified: dict = {}
        self.removed: dict = {}

    def changed(self) -> dict:
        """Modified ∪ Added."""
        return fp.union(self.modified, self.added)


def compare(old, new, ref: str) -> Comparison:
    """What changed from ``old`` to ``new`` (``TypedValue.Compare``)."""
    c = Comparison()
    a, m, r = _cmp(old, new, ref, True)
    c.added, c.modified, c.removed = a or {}, m or {}, r or {}
    return c


def creation_shape(obj, ref: str):
    """What ``compare(zero, obj, ref)`` depends on, where ``zero`` is the type's zero value
    (``kind_type``: nulls and empty objects, no other value): which fields ``obj`` has and
    whether each is null, empty or set — not the values, but for the items of keyed lists and
    sets (their path elements are values), kept whole. Hashable; equal shapes compare alike."""
    t = type(obj)
    if t is not dict and t is not list:
        return "N" if obj is None else "S"
    if not obj:
        return "{}" if t is dict else "[]"
    shape, spec, atomic, _, _, _ = _resolve(ref)
    if shape == _LEAF or atomic:
        return "D" if t is dict else "L"  # compared whole, as a leaf: set is all that matters
    if t is dict:
        if shape != _STRUCT and shape != _MAP:
            return "D"  # an object where a list belongs: a leaf
        out = []
        for k, v in obj.items():
            tv = type(v)
            if tv is dict or tv is list:  # (a scalar's shape is worked out here, without a call)
                out.append((k, creation_shape(v, spec.get(k, "") if shape == _STRUCT else spec)))
            else:
                out.append((k, "N" if v is None else "S"))
        return tuple(out)
    if shape == _LIST:
        import marshal

        return ("[", marshal.dumps(obj))
    return "L"  # a list where an object belongs: its content is not looked at


def _empty(v) -> bool:
    return v is MISSING or v is None or v == {} or v == []


def _mark(node: dict | None) -> dict:
    """``node`` (children, or None) made a member itself."""
    if not node:
        return {}
    node[fp.MEMBER] = {}
    return node


def _add(d: dict, pe: str, node: dict) -> None:
    d[pe] = fp.union(d[pe], node, False) if pe in d else node


_CONTAINERS = (dict, list)


def _cmp(lhs, rhs, ref, root: bool = False):
    """(added, modified, removed) nodes at this value's path: a member leaf ``{}``, children,
    or None for nothing. The sets are built as the walk returns, without paths."""
    if lhs is not MISSING and rhs is not MISSING and lhs == rhs and type(lhs) is type(rhs):
        return None, None, None
    shape, spec, atomic, rel, keys, defaults = _resolve(ref)
    container = list if shape == _LIST else dict
    if shape == _LEAF or atomic or (_empty(lhs) and _empty(rhs)) or not (
            isinstance(lhs, container) or isinstance(rhs, container)):
        if lhs is MISSING:
            return {}, None, None
        if rhs is MISSING:
            return None, None, {}
        return (None, {}, None) if lhs != rhs else (None, None, None)
    added: dict = {}
    modified: dict = {}
    removed: dict = {}
    if shape == _LIST:
        _cmp_list(lhs if isinstance(lhs, list) else [], rhs if isinstance(rhs, list) else [],
                  spec, rel, keys, defaults, added, modified, removed)
    else:
        lm = lhs if isinstance(lhs, dict) else {}
        rm = rhs if isinstance(rhs, dict) else {}
        fields = spec if shape == _STRUCT else None
        for name, lv in lm.items():
            rv = rm.get(name, MISSING)
            if rv is not MISSING and type(lv) is type(rv) and lv == rv:
                continue  # (what _cmp answers first: nothing changed)
            pe = "f:" + name
            if not isinstance(lv, _CONTAINERS) and (rv is MISSING or not isinstance(rv, _CONTAINERS)):
                # (a scalar, or two: a leaf whatever the schema says, answered without a call)
                if rv is MISSING:
                    removed[pe] = {}
                elif lv != rv:
                    modified[pe] = {}
                continue
            cref = (fields.get(name, "") if fields is not None else spec)
            if rv is MISSING:
                removed[pe] = _only(lv, cref)
                continue
            a, m, r = _cmp(lv, rv, cref)
            if a is not None:
                added[pe] = a
            if m is not None:
                modified[pe] = m
            if r is not None:
                removed[pe] = r
        for name, rv in rm.items():
            if name not in lm:
                added["f:" + name] = _only(rv, fields.get(name, "") if fields is not None else spec) \
                    if isinstance(rv, _CONTAINERS) else {}
    if not root:
        if lhs is MISSING:
            return _mark(added), modified or None, removed or None
        if rhs is MISSING:
            return added or None, modified or None, _mark(removed)
    return added or None, modified or None, removed or None


def _only(v, ref) -> dict:
    """The node of a value only one side has: what ``_cmp(MISSING, v, ref)`` returns as added
    (and ``_cmp(v, MISSING, ref)`` as removed), every field of ``v`` a member, built without
    comparing anything."""
    shape, spec, atomic, rel, keys, defaults = _resolve(ref)
    if shape == _LEAF or atomic or v is None or not v or not isinstance(v, list if shape == _LIST else dict):
        return {}
    node: dict = {}
    if shape == _LIST:
        items: dict = {}
        for item in v:
            pe = _item_pe(item, rel, keys, defaults)
            # a duplicate is a member leaf (as _cmp_list makes it)
            items[pe] = _ABSENT if pe in items else item
        for pe, item in items.items():
            node[pe] = {} if item is _ABSENT else _only(item, spec)
    else:
        struct = shape == _STRUCT
        for name, val in v.items():
            tv = type(val)
            # (a scalar is a leaf whatever its type: no call)
            node["f:" + name] = _only(val, spec.get(name, "") if struct else spec) \
                if tv is dict or tv is list else {}
    return _mark(node)


def _cmp_list(lhs: list, rhs: list, elem, rel, keys, defaults, added: dict, modified: dict, removed: dict) -> None:
    lvals: dict = {}
    order: list = []
    for item in lhs:
        pe = _item_pe(item, rel, keys, defaults)
        if pe in lvals:
            lvals[pe].append(item)
        else:
            lvals[pe] = [item]
            order.append(pe)
    rvals: dict = {}
    for item in rhs:
        pe = _item_pe(item, rel, keys, defaults)
        if pe in rvals:
            rvals[pe].append(item)
        else:
            rvals[pe] = [item]
            if pe not in lvals:
                order.append(pe)
    for pe in order:
        ll, rl = lvals.get(pe, []), rvals.get(pe, [])
        if len(ll) <= 1 and len(rl) <= 1:
            if not ll:
                a, m, r = _only(rl[0], elem), None, None
            elif not rl:
                a, m, r = None, None, _only(ll[0], elem)
            else:
                a, m, r = _cmp(ll[0], rl[0], elem)
        elif len(ll) >= 2 and len(rl) >= 2:
            a, m, r = None, ({} if ll != rl else None), None
        elif len(ll) >= 2:
            a, m, r = _cmp(MISSING, rl[0], elem) if rl else (None, None, None)
            r = fp.union(r, {}, False) if r is not None else {}
        else:
            a, m, r = _cmp(ll[0], MISSING, elem) if ll else (None, None, None)
            a = fp.union(a, {}, False) if a is not None else {}
        if a is not None:
            _add(added, pe, a)
        if m is not None:
            _add(modified, pe, m)
        if r is not None:
            _add(removed, pe, r)


# -- Merge -----------------------------------------------------------------------------------

def merge(live, config, ref: str):
    """``config`` merged into ``live`` (``TypedValue.Merge``): config's values win, granular
    maps and lists are merged by field and key, atomic ones replaced."""
    if config is MISSING:
        return live
    if live is MISSING or live is None or config is None:
        return config
    shape, spec, atomic, rel, keys, defaults = _resolve(ref)
    if shape == _LEAF or atomic:
        return config
    if shape == _LIST:
        if not isinstance(live, list) or not isinstance(config, list):
            return config
        return _merge_list(live, config, spec, rel, keys, defaults)
    if not isinstance(live, dict) or not isinstance(config, dict):
        return config
    out = dict(live)
    for name, val in config.items():
        cref, _ = _child_ref(shape, spec, name)
        out[name] = merge(live.get(name, MISSING), val, cref)
    return out


def _merge_list(lhs: list, rhs: list, elem, rel, keys, defaults) -> list:
    """merge.go's ``visitListItems``: the live order, with the applied items placed where the
    applied list puts them relative to the items both share."""
    def index(items, duplicates: bool):
        pes, observed = [], {}
        for item in items:
            pe = _item_pe(item, rel, keys, defaults)
            if pe not in observed:
                observed[pe] = item
            elif not duplicates:
                continue
            else:
                observed[pe] = None  # a duplicated live item is not merged with the applied one
            pes.append(pe)
        return pes, observed

    rpes, robs = index(rhs, False)
    lpes, lobs = index(lhs, True)
    shared = [pe for pe in rpes if pe in lobs]
    nxt = shared.pop(0) if shared else None
    out, merged = [], set()
    li = ri = 0
    while li < len(lpes) or ri < len(rpes):
        if li < len(lpes) and ri < len(rpes):
            pe = lpes[li]
            if pe == rpes[ri]:
                merged.add(pe)
                out.append(merge(lobs[pe], robs[pe], elem))
                li += 1
                ri += 1
                nxt = shared.pop(0) if shared else None
                continue
            if pe in robs and nxt is not None and nxt != pe:
                li += 1
                continue
        if li < len(lpes):
            pe = lpes[li]
            if pe not in robs:
                out.append(lhs[li])
                li += 1
                continue
            if pe in merged:
                li += 1
        if ri < len(rpes):
            pe = rpes[ri]
            merged.add(pe)
            out.append(merge(lobs.get(pe, MISSING), robs[pe], elem))
            ri += 1
            if nxt is not None and nxt == pe:
                nxt = shared.pop(0) if shared else None
    return out


# -- RemoveItems -----------------------------------------------------------------------------

def remove_items(v, ref: str, remove: dict):
    """``v`` without the members of the set ``remove`` (``TypedValue.RemoveItems``): a member
    path drops its whole value."""
    if not remove or v is None:
        return v
    shape, spec, atomic, rel, keys, defaults = _resolve(ref)
    if shape == _LEAF or atomic:
        return v
    if shape == _LIST:
        if not isinstance(v, list):
            return v
        out = []
        for item in v:
            node = remove.get(_item_pe(item, rel, keys, defaults))
            if node is None:
                out.append(item)
            elif not fp.is_member(node):
                out.append(remove_items(item, spec, node))
        return out
    if not isinstance(v, dict):
        return v
    out = {}
    for name, val in v.items():
        node = remove.get("f:" + name)
        if node is None:
            out[name] = val
        elif not fp.is_member(node):
            cref, _ = _child_ref(shape, spec, name)
            out[name] = remove_items(val, cref, node)
    return out


def unknown_fields(obj, ref: str, path: str = "") -> list[str]:
    """Paths of fields the schema does not declare (``.spec.foo``): what the typed conversion
    of an applied configuration refuses."""
    shape, spec, atomic, rel, keys, defaults = _resolve(ref)
    out: list[str] = []
    if shape == _STRUCT and not atomic and isinstance(obj, dict):
        for name, val in obj.items():
            if name not in spec:
                out.append(f"{path}.{name}")
            else:
                out.extend(unknown_fields(val, spec[name], f"{path}.{name}"))
    elif shape == _MAP and not atomic and isinstance(obj, dict):
        for name, val in obj.items():
            out.extend(unknown_fields(val, spec, f"{path}.{name}"))
    elif shape == _LIST and not atomic and isinstance(obj, list):
        for item in obj:
            out.extend(unknown_fields(item, spec, path + fp.element_string(_item_pe(item, rel, keys, defaults))))
    return out
