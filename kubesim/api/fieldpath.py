"""Sets of field paths, as managedFields record them (``fieldsV1``).

Upstream: sigs.k8s.io/structured-merge-diff/v6 ``fieldpath`` (set.go, element.go, path.go,
serialize.go, serialize-pe.go). A set is kept in its serialized shape, so that decoding and
encoding an object's managedFields costs nothing: a node is a dict whose keys are path elements
written as ``fieldsV1`` writes them (``f:name``, ``k:{"name":"nginx"}``, ``v:"a"``, ``i:0``);
a node is a member of the set when it is ``{}`` (a leaf) or has the key ``"."``. The root of
a set is a dict of children only (the empty path is never a member); ``{}`` is the empty set.

``encode`` sorts each node's elements as ``PathElement.Compare`` does (field names, then keys,
then values, then indices), the order ``fieldsV1`` is written in; ``paths`` lists the members
as ``Set.Iterate`` does (each node's members, then its children's), written as ``Path.String``
writes them (``.spec.containers[name="nginx"].image``), the text of an apply conflict.
"""

from __future__ import annotations

import functools
import json
import marshal

MEMBER = "."


def is_member(node: dict) -> bool:
    return not node or MEMBER in node


def union(a: dict, b: dict, root: bool = True) -> dict:
    """a ∪ b (``Set.Union``), sharing unchanged subtrees."""
    if a is b:
        return a
    if root and not b:
        return a
    if root and not a:
        return b
    out = dict(a)
    for k, v in b.items():
        if k == MEMBER:
            continue
        w = out.get(k)
        out[k] = v if w is None else union(w, v, False)
    if not root:
        am, bm = is_member(a), is_member(b)
        out.pop(MEMBER, None)
        if (am or bm) and out:
            out[MEMBER] = {}
    return out


def difference(a: dict, b: dict, root: bool = True) -> dict | None:
    """a − b (``Set.Difference``): the members of ``a`` not in ``b``; None for an empty node."""
    if root and not b:
        return a
    member = not root and is_member(a) and not is_member(b)
    out = {}
    for k, v in a.items():
        if k == MEMBER:
            continue
        w = b.get(k)
        if w is None:
            out[k] = v
        else:
            r = difference(v, w, False)
            if r is not None:
                out[k] = r
    return _node(out, member, root)



def _node(out: dict, member: bool, root: bool) -> dict | None:
    """A set operation's result at one node: the root as it is; elsewhere None when nothing is
    left, and the membership marker kept when both sides had it."""
    if root:
        return out
    if not out:
        return {} if member else None
    if member:
        out[MEMBER] = {}
    return out


def intersection(a: dict, b: dict, root: bool = True) -> dict | None:
    """a ∩ b (``Set.Intersection``); None for an empty node."""
    member = not root and is_member(a) and is_member(b)
    out = {}
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    for k, v in small.items():
        if k == MEMBER:
            continue
        w = big.get(k)
        if w is not None:
            r = intersection(v, w, False) if small is a else intersection(w, v, False)
            if r is not None:
                out[k] = r
    return _node(out, member, root)


def keep_holders(a: dict, b: dict, root: bool = True) -> dict | None:
    """``a`` without membership at the paths where ``b`` has a node (a member or the parent of
    one): removing ``a``'s members must not remove what ``b`` owns, nor what holds it."""
    out = {}
    for k, v in a.items():
        if k == MEMBER:
            continue
        w = b.get(k)
        if w is None:
            out[k] = v
            continue
        r = keep_holders(v, w, False)
        if r is not None:
            out[k] = r
    if root:
        return out
    return out or None


def empty(s: dict | None) -> bool:
    return not s


def insert(root: dict, path: tuple) -> None:
    """Add ``path`` (a tuple of path elements) to the set ``root``, in place."""
    if not path:
        return
    node = root
    for pe in path[:-1]:
        child = node.get(pe)
        if child is None:
            node[pe] = child = {}
        elif not child:  # a leaf member gains a child: it stays a member
            child[MEMBER] = {}
        node = child
    last = path[-1]
    child = node.get(last)
    if child is None:
        node[last] = {}
    elif child:
        child[MEMBER] = {}


def has(root: dict, path: tuple) -> bool:
    node = root
    for pe in path:
        node = node.get(pe)
        if node is None:
            return False
    return is_member(node)


def remove_paths(root: dict, prefixes: tuple[tuple, ...]) -> dict:
    """``root`` without the members at ``prefixes`` (not their children): the stripMeta manager's
    cut of apiVersion, kind, metadata, metadata.name and the other fields only the server sets.
    A new set when anything goes."""
    out = root
    for path in prefixes:
        if has(out, path):
            out = _unmark(out, path, True)
    return out


def _unmark(node: dict, path: tuple, root: bool) -> dict | None:
    """A copy of ``node`` without the member at ``path``; None when nothing is left of it."""
    out = dict(node)
    pe = path[0]
    child = out[pe]
    if len(path) == 1:
        if len(child) > 1:
            child = dict(child)
            del child[MEMBER]
            out[pe] = child
        else:
            del out[pe]
    else:
        sub = _unmark(child, path[1:], False)
        if sub is None:
            del out[pe]
        else:
            out[pe] = sub
    if not root and not any(k != MEMBER for k in out):
        return {} if MEMBER in node else None
    return out


# -- path elements ---------------------------------------------------------------------------

def _go_json(v) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def field(name: str) -> str:
    return "f:" + name


def key(fields: dict) -> str:
    """``k:`` and the key fields as JSON, sorted by name (``KeyByFields``)."""
    return "k:" + _go_json(fields)


def value(v) -> str:
    return "v:" + _go_json(v)


def index(i: int) -> str:
    return "i:" + str(i)


def _value_order(v):
    if isinstance(v, bool):
        return (2, v)
    if isinstance(v, (int, float)):
        return (0, v)
    if isinstance(v, str):
        return (1, v)
    return (3, _go_json(v))


@functools.lru_cache(maxsize=8192)
def _order(pe: str):
    kind, rest = pe[0], pe[2:]
    if kind == "f":
        return (0, rest)
    if kind == "k":
        return (1, [(n, _value_order(x)) for n, x in json.loads(rest).items()])
    if kind == "v":
        return (2, _value_order(json.loads(rest)))
    return (3, int(rest))


def _sorted_items(node: dict):
    return sorted(((k, v) for k, v in node.items() if k != MEMBER), key=lambda kv: _order(kv[0]))


# the elements of a node (in its dict's order) -> the same, MEMBER left out, in upstream's order:
# the sets of one kind's objects repeat the same few shapes (every pod of a DaemonSet has the
# same fields), so each is sorted once
_ENCODE_ORDER: dict[tuple, tuple] = {}
_ENCODE_ORDER_MAX = 16384


def _element_order(elements: tuple) -> tuple:
    order = _ENCODE_ORDER.get(elements)
    if order is None:
        order = tuple(sorted((k for k in elements if k != MEMBER), key=_order))
        if len(_ENCODE_ORDER) >= _ENCODE_ORDER_MAX:
            _ENCODE_ORDER.clear()
        _ENCODE_ORDER[elements] = order
    return order


# a set (marshalled: its content and order) -> its encoding (marshalled): most writes leave
# most managers' sets as they were, and objects of one kind repeat the same sets
_ENCODED: dict[bytes, bytes] = {}
_ENCODED_MAX = 2048


def encode(root: dict, memo: bool = True) -> dict:
    """The set as ``fieldsV1``, its elements in upstream's order (a new dict). ``memo``: False
    for a set unlikely to be seen again (the memo's key costs a third of an encoding)."""
    if not memo:
        return _encode(root)
    key = marshal.dumps(root)
    hit = _ENCODED.get(key)
    if hit is not None:
        return marshal.loads(hit)
    out = _encode(root)
    if len(_ENCODED) >= _ENCODED_MAX:
        _ENCODED.clear()
    _ENCODED[key] = marshal.dumps(out)
    return out


def _encode(node: dict) -> dict:
    out = {}
    if MEMBER in node and len(node) > 1:
        out[MEMBER] = {}
    for k in _element_order(tuple(node)):
        v = node[k]
        out[k] = _encode(v) if v else {}
    return out


def element_string(pe: str) -> str:
    """``PathElement.String``: ``.name``, ``[name="nginx"]``, ``[=value]``, ``[0]``."""
    kind, rest = pe[0], pe[2:]
    if kind == "f":
        return "." + rest
    if kind == "k":
        return "[" + ",".join(f"{n}={_to_string(x)}" for n, x in json.loads(rest).items()) + "]"
    if kind == "v":
        return "[=" + _to_string(json.loads(rest)) + "]"
    return "[" + rest + "]"


def _to_string(v) -> str:
    """``value.ToString``: strings quoted as Go's %q quotes them."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        from kubesim.api.gofmt import go_quote

        return go_quote(v)
    if isinstance(v, list):
        return "[" + ",".join(_to_string(x) for x in v) + "]"
    if isinstance(v, dict):
        return "".join(f"{k}={_to_string(x)}" for k, x in v.items())
    return str(v)


def paths(root: dict, prefix: tuple = ()) -> list[tuple]:
    """The members of ``root`` in ``Set.Iterate``'s order."""
    out = []
    items = _sorted_items(root)
    for k, v in items:
        if is_member(v):
            out.append(prefix + (k,))
    for k, v in items:
        if any(c != MEMBER for c in v):
            out.extend(paths(v, prefix + (k,)))
    return out


def path_string(path: tuple) -> str:
    return "".join(element_string(pe) for pe in path)
