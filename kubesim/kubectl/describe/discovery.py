"""kubectl describe for EndpointSlices.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (kubectl 1.36)
``describeEndpointSliceV1``.
"""

from __future__ import annotations

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    LEVEL_3,
    DescribeContext,
    PrefixWriter,
    describe_events,
    object_meta,
    print_annotations_multiline,
    print_labels_multiline,
)


def describe_endpoint_slice(eps: dict, ctx: DescribeContext) -> str:
    meta = object_meta(eps)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"AddressType:\t{eps.get('addressType', '')}\n")
    ports = eps.get("ports") or []
    if not ports:
        w.write(LEVEL_0, "Ports: <unset>\n")
    else:
        w.write(LEVEL_0, "Ports:\n")
        w.write(LEVEL_1, "Name\tPort\tProtocol\n")
        w.write(LEVEL_1, "----\t----\t--------\n")
        for p in ports:
            name = p.get("name") or "<unset>"
            num = str(int(p["port"])) if p.get("port") is not None else "<unset>"
            w.write(LEVEL_1, f"{name}\t{num}\t{p.get('protocol', '')}\n")
    endpoints = eps.get("endpoints") or []
    if not endpoints:
        w.write(LEVEL_0, "Endpoints: <none>\n")
    else:
        w.write(LEVEL_0, "Endpoints:\n")
        for ep in endpoints:
            w.write(LEVEL_1, f"- Addresses:\t{', '.join(ep.get('addresses') or []) or '<none>'}\n")
            w.write(LEVEL_2, "Conditions:\n")
            ready = (ep.get("conditions") or {}).get("ready")
            w.write(LEVEL_3, f"Ready:\t{'<unset>' if ready is None else ('true' if ready else 'false')}\n")
            w.write(LEVEL_2, f"Hostname:\t{ep['hostname'] if ep.get('hostname') is not None else '<unset>'}\n")
            ref = ep.get("targetRef")
            if ref is not None:
                w.write(LEVEL_2, f"TargetRef:\t{ref.get('kind', '')}/{ref.get('name', '')}\n")
            w.write(LEVEL_2, f"NodeName:\t{ep['nodeName'] if ep.get('nodeName') is not None else '<unset>'}\n")
            w.write(LEVEL_2, f"Zone:\t{ep['zone'] if ep.get('zone') is not None else '<unset>'}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
