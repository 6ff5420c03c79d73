"""describe for policy/v1's PodDisruptionBudget.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``describePodDisruptionBudgetV1``).
"""

from __future__ import annotations

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_2,
    DescribeContext,
    PrefixWriter,
    describe_events,
    format_label_selector,
    int_or_string_text,
    object_meta,
)


def describe_pdb(pdb: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(pdb), pdb.get("spec") or {}, pdb.get("status") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    if spec.get("minAvailable") is not None:
        w.write(LEVEL_0, f"Min available:\t{int_or_string_text(spec['minAvailable'])}\n")
    elif spec.get("maxUnavailable") is not None:
        w.write(LEVEL_0, f"Max unavailable:\t{int_or_string_text(spec['maxUnavailable'])}\n")
    if spec.get("selector") is not None:
        w.write(LEVEL_0, f"Selector:\t{format_label_selector(spec['selector'])}\n")
    else:
        w.write(LEVEL_0, "Selector:\t<unset>\n")
    w.write(LEVEL_0, "Status:\n")
    for label, key in (("Allowed disruptions", "disruptionsAllowed"), ("Current", "currentHealthy"),
                       ("Desired", "desiredHealthy"), ("Total", "expectedPods")):
        w.write(LEVEL_2, f"{label}:\t{int(status.get(key) or 0)}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
