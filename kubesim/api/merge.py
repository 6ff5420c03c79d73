"""kubectl apply's three-way merge, and the last-applied-configuration annotation.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/apply/patcher.go (client-side apply: a strategic
merge patch computed from the last applied configuration, the new configuration and the live
object) and staging/src/k8s.io/apimachinery/pkg/util/strategicpatch (CreateThreeWayMergePatch:
fields present in the last applied configuration but absent from the new one are deleted;
fields the user never set, such as defaults, are kept). Each field's patch strategy is the
schema's, from the one table in ``kubesim.api.patch``: lists of objects merge by their
patchMergeKey and lists of scalars with the merge strategy as sets (items another writer added
stay, in the live order, as ``$setElementOrder`` leaves them); any other list, such as a Node's
``taints``, is replaced by the new configuration's; a map with the retainKeys strategy (a
Deployment's ``strategy``, each of a pod's ``volumes``) keeps only the keys the new
configuration sets, as the ``$retainKeys`` directive kubectl sends makes the server do.
"""

from __future__ import annotations

import copy
import json

from kubesim.api.patch import PATCH_RETAIN_KEYS, merge_key, normalize_element_order

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def last_applied_json(desired: dict) -> str:
    """What kubectl stores: the configuration with the annotation itself removed, compact JSON
    with sorted keys (Go's encoding of a map), and a trailing newline."""
    cfg = dict(desired)  # (only its metadata changes: copied below; the rest is only read)
    md = cfg.setdefault("metadata", {})
    if isinstance(md, dict):
        md = cfg["metadata"] = dict(md)
    ann = dict(md.get("annotations") or {})
    ann.pop(LAST_APPLIED, None)
    md["annotations"] = ann
    return json.dumps(cfg, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"


def three_way(live, last, desired, field: str | None = None, parent: str | None = None):
    """Merge ``desired`` into ``live``, deleting what ``last`` had and ``desired`` dropped.
    ``field`` is the name of the value's field (a list item's: its list's), ``parent`` the name
    of the field that holds it: together they select the patch strategy."""
    if isinstance(desired, dict) and isinstance(live, dict):
        last = last if isinstance(last, dict) else {}
        retain = field in PATCH_RETAIN_KEYS and any(v is not None for v in desired.values())
        out = {k: v for k, v in live.items() if k in desired} if retain else dict(live)
        for k in last:
            if k not in desired:
                out.pop(k, None)
        for k, v in desired.items():
            if v is None:
                out.pop(k, None)
                continue
            out[k] = three_way(live.get(k), last.get(k), v, k, field)
        return out
    if isinstance(desired, list) and isinstance(live, list) and field is not None:
        merge, key = merge_key(parent, field)
        last_list = last if isinstance(last, list) else []
        if merge and key is not None and all(isinstance(x, dict) and key in x for x in desired) \
                and all(isinstance(x, dict) for x in live):
            last_by = {x.get(key): x for x in last_list if isinstance(x, dict)}
            live_by = {x.get(key): x for x in live}
            wanted = {x[key] for x in desired}
            out = [three_way(live_by[x[key]], last_by.get(x[key]), x, field, parent) if x[key] in live_by
                   else copy.deepcopy(x) for x in desired]
            # items the user never applied (added by defaulting or other writers) stay
            out.extend(copy.deepcopy(x) for x in live if x.get(key) not in wanted and x.get(key) not in last_by)
            return normalize_element_order(out, desired, live, key)
        if merge and key is None and not any(isinstance(x, (dict, list)) for x in desired + live):
            out = []
            for x in desired + [x for x in live if x not in desired and x not in last_list]:
                if x not in out:
                    out.append(x)
            return normalize_element_order(out, desired, live, None)
    return copy.deepcopy(desired)
