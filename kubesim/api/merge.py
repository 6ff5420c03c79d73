"""kubectl apply's three-way merge, and the last-applied-configuration annotation.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/apply/patcher.go (client-side apply: a strategic
merge patch computed from the last applied configuration, the new configuration and the live
object) and staging/src/k8s.io/apimachinery/pkg/util/strategicpatch (lists of objects merge by
their patchMergeKey; fields present in the last applied configuration but absent from the new
one are deleted; fields the user never set, such as defaults, are kept). The merge keys below
are the patchMergeKey tags of the core/v1 and apps/v1 types kubesim serves.
"""

from __future__ import annotations

import copy
import json

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

# field name → patchMergeKey (core/v1 types.go tags)
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "env": "name",
    "ports": "containerPort",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "taints": "key",
    "conditions": "type",
    "topologySpreadConstraints": "topologyKey",
    "resourceClaims": "name",
}


def last_applied_json(desired: dict) -> str:
    """What kubectl stores: the configuration with the annotation itself removed, compact JSON
    with sorted keys (Go's encoding of a map), and a trailing newline."""
    cfg = copy.deepcopy(desired)
    md = cfg.setdefault("metadata", {})
    ann = dict(md.get("annotations") or {})
    ann.pop(LAST_APPLIED, None)
    md["annotations"] = ann
    return json.dumps(cfg, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"


def three_way(live, last, desired, field: str | None = None):
    """Merge ``desired`` into ``live``, deleting what ``last`` had and ``desired`` dropped."""
    if isinstance(desired, dict) and isinstance(live, dict):
        last = last if isinstance(last, dict) else {}
        out = dict(live)
        for k in last:
            if k not in desired:
                out.pop(k, None)
        for k, v in desired.items():
            if v is None:
                out.pop(k, None)
                continue
            out[k] = three_way(live.get(k), last.get(k), v, k)
        return out
    if isinstance(desired, list) and isinstance(live, list) and field in MERGE_KEYS:
        key = MERGE_KEYS[field]
        if all(isinstance(x, dict) and key in x for x in desired) and all(isinstance(x, dict) for x in live):
            last_list = last if isinstance(last, list) else []
            last_by = {x.get(key): x for x in last_list if isinstance(x, dict)}
            live_by = {x.get(key): x for x in live}
            wanted = {x[key] for x in desired}
            out = [three_way(live_by.get(x[key]), last_by.get(x[key]), x, None) if x[key] in live_by
                   else copy.deepcopy(x) for x in desired]
            # items the user never applied (added by defaulting or other writers) stay
            out.extend(copy.deepcopy(x) for x in live
                       if x.get(key) not in wanted and x.get(key) not in last_by)
            return out
    return copy.deepcopy(desired)
