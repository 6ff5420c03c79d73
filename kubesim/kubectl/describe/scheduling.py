"""describe for scheduling.k8s.io/v1's PriorityClass.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``describePriorityClass``).
"""

from __future__ import annotations

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    DescribeContext,
    PrefixWriter,
    describe_events,
    format_labels,
    go_bool,
    object_meta,
)


def describe_priority_class(pc: dict, ctx: DescribeContext) -> str:
    meta = object_meta(pc)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    value = pc.get("value")
    w.write(LEVEL_0, f"Value:\t{int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0}\n")
    w.write(LEVEL_0, f"GlobalDefault:\t{go_bool(pc.get('globalDefault'))}\n")
    if pc.get("preemptionPolicy") is not None:
        w.write(LEVEL_0, f"PreemptionPolicy:\t{pc['preemptionPolicy']}\n")
    w.write(LEVEL_0, f"Description:\t{pc.get('description') or ''}\n")
    w.write(LEVEL_0, f"Annotations:\t{format_labels(meta.get('annotations'))}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
