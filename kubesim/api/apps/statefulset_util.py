"""StatefulSet helpers shared by the StatefulSet controller and kubectl.

Upstream: pkg/controller/statefulset/stateful_set_utils.go (``getPatch``: what a
ControllerRevision stores, the pod template as a strategic-merge ``$patch: replace``;
``ApplyRevision``), pkg/controller/history/controller_history.go (``HashControllerRevision``:
FNV-1 32 of the revision's raw JSON, then the collision count in decimal;
``ControllerRevisionName``) and kubectl's polymorphichelpers/rollback.go
(``getStatefulSetPatch``, the same patch, to compare a StatefulSet with a revision).

The raw JSON is ``json.Marshal`` of a ``map[string]interface{}``: keys sorted, no spaces, ``<``,
``>``, ``&`` escaped. kubesim's stored template is what the controller would decode, except
that it may keep zero values Go would drop (``omitempty``): the controller drops them with
``kubesim.controllers.hashing.omit_empty_pod_template``.
"""

from __future__ import annotations

import copy
import json

STATEFULSET_REVISION_LABEL = "controller-revision-hash"   # apps.StatefulSetRevisionLabel (on pods)
CONTROLLER_REVISION_HASH_LABEL = "controller.kubernetes.io/hash"  # history.ControllerRevisionHashLabel
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"     # apps.StatefulSetPodNameLabel
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"          # apps.PodIndexLabel

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


def _omit_empty(v):
    if isinstance(v, dict):
        return {k: _omit_empty(x) for k, x in v.items() if x is not None and x != []}
    if isinstance(v, list):
        return [_omit_empty(x) for x in v]
    return v


def get_patch(sts: dict, omit=_omit_empty) -> dict:
    """getPatch: ``{"spec": {"template": <template>, "$patch": "replace"}}``. ``omit`` drops what
    Go's encoder would (the controller passes the typed ``omit_empty_pod_template``; kubectl,
    which may not import it, the untyped default, which only drops empty lists)."""
    template = omit(copy.deepcopy((sts.get("spec") or {}).get("template") or {}))
    template["$patch"] = "replace"
    return {"spec": {"template": template}}


def go_marshal_sorted(value) -> bytes:
    """json.Marshal of decoded JSON (maps sort their keys)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                    ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text.encode()


def fnv32(data: bytes, h: int = _FNV32_OFFSET) -> int:
    """hash/fnv New32 (FNV-1: multiply, then xor)."""
    for b in data:
        h = (h * _FNV32_PRIME) & 0xFFFFFFFF
        h ^= b
    return h


def hash_controller_revision(data: dict, probe: int | None) -> str:
    """history.HashControllerRevision of a revision whose Data.Raw is ``data`` marshalled."""
    from kubesim.api.names import NAME_ALPHABET

    h = fnv32(go_marshal_sorted(data))
    if probe is not None:
        h = fnv32(str(int(probe)).encode(), h)
    # rand.SafeEncodeString
    return "".join(NAME_ALPHABET[b % len(NAME_ALPHABET)] for b in str(h).encode())


def apply_revision(sts: dict, revision: dict) -> dict:
    """ApplyRevision: the StatefulSet with the revision's pod template."""
    out = copy.deepcopy(sts)
    template = copy.deepcopy((((revision.get("data") or {}).get("spec") or {}).get("template")) or {})
    template.pop("$patch", None)
    out.setdefault("spec", {})["template"] = template
    return out


def _zeroless(v):
    if isinstance(v, dict):
        out = {k: _zeroless(x) for k, x in v.items()}
        return {k: x for k, x in out.items() if x not in (None, "", False, [], {}) and not (x == 0 and x is not False)}
    if isinstance(v, list):
        return [_zeroless(x) for x in v]
    return v


def matches_revision(sts: dict, revision: dict) -> bool:
    """statefulsetMatch (kubectl's rollback.go): the StatefulSet's template is the revision's.
    The revision holds the template as Go wrote it (zero values omitted); kubesim's stored
    StatefulSet may spell some out, so zero values are ignored on both sides."""
    return _zeroless(get_patch(sts)) == _zeroless(revision.get("data") or {})
