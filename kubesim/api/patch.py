"""The three patch algorithms, as pure functions over decoded JSON, and the patch strategy of
each field.

Upstream: k8s.io/apimachinery ``pkg/util/strategicpatch/patch.go`` (mergeMap, mergeSlice,
mergeSliceWithSpecialElements, normalizeElementOrder, mergeSortedSlice, the ``$patch``,
``$retainKeys``, ``$setElementOrder/`` and ``$deleteFromPrimitiveList/`` directives) and
gopkg.in/evanphx/json-patch.v4 (RFC 6902 ``Apply``, RFC 7386 ``MergePatch`` and
``CreateMergePatch``). The patch strategy of each list and map comes from the
``x-kubernetes-patch-*`` extensions of the v1.35 OpenAPI schema (``PATCH_MERGE_KEYS`` and
friends below; a test checks them against kubernetes-validate's definitions). The same table
serves ``kubectl apply``'s three-way merge (``kubesim.api.merge``): a list without a patch
strategy there, such as a Node's ``taints``, is replaced, as strategicpatch does.

Each failure raises :class:`PatchFailure` carrying the StatusError the API server answers with
(the API server's ``pkg/endpoints/handlers/patch.go`` decides which); what PATCH then does with
the object (the typed decode, the update) is ``kubesim.apiserver.patch``.
"""

from __future__ import annotations

import copy

from kubesim.api.gofmt import go_json_kind, go_sprint
from kubesim.errors import BadRequest, InternalError, RequestInvalid, StatusError

# ---------------------------------------------------------------------------------------------
# patch strategies (x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key of the kinds
# kubesim serves; field names are unambiguous across those types except where noted)

PATCH_MERGE_KEYS = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
    "env": "name", "ports": "containerPort", "volumeMounts": "mountPath", "volumeDevices": "devicePath",
    "volumes": "name", "imagePullSecrets": "name", "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey", "resourceClaims": "name", "schedulingGates": "name",
    "conditions": "type", "addresses": "type", "ownerReferences": "uid", "podIPs": "ip", "hostIPs": "ip",
    "resourceClaimStatuses": "name", "allocatedResourcesStatus": "name",
}
# lists of scalars merged as sets: ObjectMeta.finalizers (not NamespaceSpec.finalizers), NodeSpec.podCIDRs
PATCH_MERGE_PRIMITIVE = {("metadata", "finalizers"), ("spec", "podCIDRs")}
# maps (and list items) whose patch strategy includes retainKeys
PATCH_RETAIN_KEYS = {"strategy", "volumes", "resourceClaims", "resourceClaimStatuses"}

DIRECTIVE = "$patch"
RETAIN_KEYS = "$retainKeys"
SET_ORDER = "$setElementOrder/"
DELETE_FROM_PRIMITIVE = "$deleteFromPrimitiveList/"


class PatchFailure(Exception):
    """A patch that cannot be applied. ``error`` is the StatusError the API server answers with;
    ``detail`` is the patch library's own message (an InternalError's cause), which is what
    ``kubectl patch --local`` prints."""

    def __init__(self, error: StatusError):
        super().__init__(str(error))
        self.error = error
        self.detail = getattr(error, "detail", error.message)


def merge_key(parent: str | None, name: str) -> tuple[bool, str | None]:
    """(merge strategy?, merge key) of list field ``name`` inside ``parent``: a list of objects
    merges by its key, a list of scalars (key None) as a set; any other list is replaced."""
    if name in PATCH_MERGE_KEYS:
        return True, PATCH_MERGE_KEYS[name]
    if (parent, name) in PATCH_MERGE_PRIMITIVE:
        return True, None
    return False, None


def strategic_merge_patch(original: dict, patch: dict) -> dict:
    """StrategicMergeMapPatch(original, patch) with MergeParallelList and IgnoreUnmatchedNulls."""
    if not isinstance(patch, dict):
        raise PatchFailure(BadRequest(f"json: cannot unmarshal {go_json_kind(patch)} into Go value of type "
                                      "map[string]interface {}"))
    return _merge_map(copy.deepcopy(original), copy.deepcopy(patch), None)


def _discard_nulls(v):
    if isinstance(v, dict):
        return {k: _discard_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_discard_nulls(x) for x in v]
    return v


def _kind_of(v) -> str:
    if isinstance(v, dict):
        return "map"
    if isinstance(v, list):
        return "slice"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if v is None:
        return "nil"
    return "string"


def _merge_map(original: dict | None, patch: dict, name: str | None) -> dict:
    if DIRECTIVE in patch:
        directive = patch[DIRECTIVE]
        if directive == "replace":
            out = dict(patch)
            del out[DIRECTIVE]
            return out
        if directive == "delete":
            return {}
        raise PatchFailure(InternalError(f"unknown patch type: {go_sprint(directive)} in map: {go_sprint(patch)}"))
    if original is None:
        original = {}
    if RETAIN_KEYS in patch:
        keep = patch.pop(RETAIN_KEYS)
        if not isinstance(keep, list):
            raise PatchFailure(BadRequest("invalid patch format of retainKeys"))
        for k in [k for k in patch if not k.startswith("$") and patch[k] is not None]:
            if k not in keep:
                raise PatchFailure(BadRequest("invalid patch format of retainKeys"))
        for k in list(original):
            if k not in keep:
                del original[k]
    orders = {k[len(SET_ORDER):]: patch.pop(k) for k in list(patch) if k.startswith(SET_ORDER)}
    deletions = {k[len(DELETE_FROM_PRIMITIVE):]: patch.pop(k) for k in list(patch)
                 if k.startswith(DELETE_FROM_PRIMITIVE)}
    for k, order in orders.items():  # mergePatchIntoOriginal
        if not isinstance(order, list):
            raise PatchFailure(BadRequest("invalid patch format of setElementOrder list"))
        merge, key = merge_key(name, k)
        in_original, in_patch = isinstance(original.get(k), list), isinstance(patch.get(k), list)
        if in_original and in_patch:
            merged = _merge_list(original[k], patch[k], key, k) if merge else patch[k]
        elif in_patch:
            merged = _discard_nulls(patch[k])
        elif in_original:
            merged = original[k]
        else:
            continue
        original[k] = normalize_element_order(merged, order, original[k] if in_original else [], key)
        patch.pop(k, None)
    for k, pv in patch.items():
        if pv is None:
            original.pop(k, None)
            continue
        if k not in original:
            original[k] = _discard_nulls(pv)
            continue
        ov = original[k]
        if _kind_of(ov) != _kind_of(pv):
            original[k] = pv
            continue
        if isinstance(pv, dict):
            original[k] = _merge_map(ov, pv, k)
        elif isinstance(pv, list):
            merge, key = merge_key(name, k)
            original[k] = _merge_list(ov, pv, key, k) if merge else pv
        else:
            original[k] = pv
    for k, values in deletions.items():
        if not isinstance(values, list):
            raise PatchFailure(BadRequest("invalid patch format of primitive list"))
        if isinstance(original.get(k), list):
            original[k] = [x for x in original[k] if x not in values]
    return original


def _index(items: list, item, key: str | None) -> int:
    for i, x in enumerate(items):
        if key is None:
            if x == item:
                return i
        elif isinstance(x, dict) and isinstance(item, dict) and key in x and x.get(key) == item.get(key):
            return i
    return -1


def _merge_list(original: list, patch: list, key: str | None, name: str) -> list:
    if not original and not patch:
        return original
    elements = original + patch
    maps = [isinstance(x, dict) for x in elements]
    if any(maps) and not all(maps):
        raise PatchFailure(InternalError(f"unable to merge lists with mixed types for {name}"))
    if not any(maps):
        merged: list = []
        for x in elements:
            if x not in merged:
                merged.append(x)
        key = None
    else:
        if key is None:
            raise PatchFailure(InternalError(f"cannot merge lists without merge key for {name}"))
        kept, replace = [], False
        for item in patch:
            directive = item.get(DIRECTIVE)
            if directive is None:
                kept.append(item)
            elif directive == "delete":
                if key not in item:
                    raise PatchFailure(InternalError(f"map: {go_sprint(item)} does not contain declared merge key: {key}"))
                original = [x for x in original if not (isinstance(x, dict) and x.get(key) == item[key])]
            elif directive == "replace":
                replace = True
            elif directive == "merge":
                raise PatchFailure(InternalError("merging lists cannot yet be specified in the patch"))
            else:
                raise PatchFailure(InternalError(f"unknown patch type: {go_sprint(directive)} in map: {go_sprint(item)}"))
        if replace:
            original, patch = kept, []
        else:
            patch = kept
        merged = list(original)
        for item in patch:
            if key not in item:
                raise PatchFailure(InternalError(f"map: {go_sprint(item)} does not contain declared merge key: {key}"))
            i = _index(merged, item, key)
            if i >= 0:
                merged[i] = _merge_map(merged[i], item, name)
            else:
                merged.append(_discard_nulls(item))
    return normalize_element_order(merged, patch, original, key)


def normalize_element_order(merged: list, patch_order: list, server_order: list, key: str | None) -> list:
    """normalizeElementOrder of a merged list: the items the patch names sorted by the patch's
    order, the others by the server's, then the two merged by the server's order (an item the
    server does not know goes before the server's items, as mergeSortedSlice does)."""
    patch_items = [x for x in merged if _index(patch_order, x, key) >= 0]
    server_only = [x for x in merged if _index(patch_order, x, key) < 0]

    def sort_by(items, order):
        pos = [(_index(order, x, key), i) for i, x in enumerate(items)]
        found = sorted(i for p, i in pos if p >= 0)
        ordered = sorted((x for x in items if _index(order, x, key) >= 0), key=lambda x: _index(order, x, key))
        out = list(items)
        for slot, x in zip(found, ordered):
            out[slot] = x
        return out

    left, right = sort_by(server_only, server_order), sort_by(patch_items, patch_order)
    out, i, j = [], 0, 0
    while i < len(left) or j < len(right):
        if i >= len(left):
            out.append(right[j])
            j += 1
        elif j >= len(right):
            out.append(left[i])
            i += 1
        else:
            li, ri = _index(server_order, left[i], key), _index(server_order, right[j], key)
            if li >= 0 and ri >= 0 and li < ri:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
    return out


def json_merge_patch(target, patch):
    """RFC 7386 MergePatch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = json_merge_patch(out.get(k), v)
    return out


def create_merge_patch(original, modified) -> dict:
    """RFC 7386 CreateMergePatch: the merge patch that turns ``original`` into ``modified``."""
    patch: dict = {}
    for k in original:
        if k not in modified:
            patch[k] = None
    for k, v in modified.items():
        if k not in original:
            patch[k] = v
        elif isinstance(v, dict) and isinstance(original[k], dict):
            sub = create_merge_patch(original[k], v)
            if sub:
                patch[k] = sub
        elif v != original[k] or type(v) is not type(original[k]):
            patch[k] = v
    return patch


class _JSONPatchError(Exception):
    pass


def decode_json_patch(patch) -> list[dict]:
    """jsonpatch.DecodePatch: a list of operation objects (BadRequest otherwise)."""
    if not isinstance(patch, list):
        raise PatchFailure(BadRequest(f"json: cannot unmarshal {go_json_kind(patch)} into Go value of type jsonpatch.Patch"))
    for op in patch:
        if not isinstance(op, dict):
            raise PatchFailure(BadRequest(f"json: cannot unmarshal {go_json_kind(op)} into Go value of type "
                                          "jsonpatch.Operation"))
    return patch


def _pointer(path) -> list[str]:
    if not isinstance(path, str):
        raise _JSONPatchError("operation missing path")
    if path == "":
        return []
    if not path.startswith("/"):
        raise _JSONPatchError(f"invalid path {path}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]


def _container(doc, parts: list[str]):
    cur = doc
    for p in parts[:-1]:
        if isinstance(cur, dict):
            if p not in cur:
                raise _JSONPatchError("doc is missing path")
            cur = cur[p]
        elif isinstance(cur, list):
            try:
                i = int(p)
            except ValueError:
                raise _JSONPatchError("doc is missing path") from None
            if i < 0 or i >= len(cur):
                raise _JSONPatchError("doc is missing path")
            cur = cur[i]
        else:
            raise _JSONPatchError("doc is missing path")
    return cur


def _list_index(container: list, key: str, allow_end: bool) -> int:
    if key == "-" and allow_end:
        return len(container)
    try:
        i = int(key)
    except ValueError:
        raise _JSONPatchError("invalid index") from None
    if i < 0 or i > len(container) or (i == len(container) and not allow_end):
        raise _JSONPatchError("index out of range")
    return i


def _get(doc, parts):
    if not parts:
        return doc
    c = _container(doc, parts)
    k = parts[-1]
    if isinstance(c, dict):
        if k not in c:
            raise _JSONPatchError("doc is missing key")
        return c[k]
    if isinstance(c, list):
        return c[_list_index(c, k, False)]
    raise _JSONPatchError("doc is missing path")


def _remove(doc, parts):
    c = _container(doc, parts)
    k = parts[-1]
    if isinstance(c, dict):
        if k not in c:
            raise _JSONPatchError("doc is missing key")
        return c.pop(k)
    if isinstance(c, list):
        return c.pop(_list_index(c, k, False))
    raise _JSONPatchError("doc is missing path")


def _add(doc, parts, value):
    if not parts:
        return value
    c = _container(doc, parts)
    k = parts[-1]
    if isinstance(c, dict):
        c[k] = value
    elif isinstance(c, list):
        c.insert(_list_index(c, k, True), value)
    else:
        raise _JSONPatchError("doc is missing path")
    return doc


def json_patch(doc: dict, ops: list[dict]) -> dict:
    """RFC 6902 Apply (evanphx/json-patch v4). A failing operation is the API server's 422
    response, which kubectl prints as ``The request is invalid``."""
    doc = copy.deepcopy(doc)
    try:
        for op in ops:
            kind = op.get("op")
            if kind == "add":
                if "value" not in op:
                    raise _JSONPatchError("missing value")
                doc = _add(doc, _pointer(op.get("path")), copy.deepcopy(op["value"]))
            elif kind == "remove":
                _remove(doc, _pointer(op.get("path")))
            elif kind == "replace":
                parts = _pointer(op.get("path"))
                if "value" not in op:
                    raise _JSONPatchError("missing value")
                if not parts:
                    doc = copy.deepcopy(op["value"])
                    continue
                _get(doc, parts)
                c = _container(doc, parts)
                if isinstance(c, dict):
                    c[parts[-1]] = copy.deepcopy(op["value"])
                else:
                    c[_list_index(c, parts[-1], False)] = copy.deepcopy(op["value"])
            elif kind == "move":
                value = _remove(doc, _pointer(op.get("from")))
                doc = _add(doc, _pointer(op.get("path")), value)
            elif kind == "copy":
                value = copy.deepcopy(_get(doc, _pointer(op.get("from"))))
                doc = _add(doc, _pointer(op.get("path")), value)
            elif kind == "test":
                if _get(doc, _pointer(op.get("path"))) != op.get("value"):
                    raise _JSONPatchError("testing value failed")
            else:
                raise _JSONPatchError(f"Unexpected kind: {kind}")
    except _JSONPatchError:
        raise PatchFailure(RequestInvalid()) from None
    return doc
