"""describe for storage.k8s.io/v1's StorageClass and CSINode.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``describeStorageClass``,
``describeCSINode``).
"""

from __future__ import annotations

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    LEVEL_3,
    LEVEL_4,
    DescribeContext,
    PrefixWriter,
    describe_events,
    format_labels,
    format_rfc1123z,
    go_string_slice_v,
    object_meta,
    print_annotations_multiline,
    print_bool,
    print_labels_multiline,
)


def describe_storage_class(sc: dict, ctx: DescribeContext) -> str:
    meta = object_meta(sc)
    ann = meta.get("annotations") or {}
    is_default = any(ann.get(a) == "true" for a in ("storageclass.kubernetes.io/is-default-class",
                                                    "storageclass.beta.kubernetes.io/is-default-class"))
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"IsDefaultClass:\t{'Yes' if is_default else 'No'}\n")
    w.write(LEVEL_0, f"Annotations:\t{format_labels(ann)}\n")
    w.write(LEVEL_0, f"Provisioner:\t{sc.get('provisioner', '')}\n")
    w.write(LEVEL_0, f"Parameters:\t{format_labels(sc.get('parameters'))}\n")
    ave = sc.get("allowVolumeExpansion")
    w.write(LEVEL_0, f"AllowVolumeExpansion:\t{'<unset>' if ave is None else print_bool(ave)}\n")
    options = sc.get("mountOptions") or []
    if not options:
        w.write(LEVEL_0, "MountOptions:\t<none>\n")
    else:
        w.write(LEVEL_0, "MountOptions:\n")
        for o in options:
            w.write(LEVEL_1, f"{o}\n")
    if sc.get("reclaimPolicy") is not None:
        w.write(LEVEL_0, f"ReclaimPolicy:\t{sc['reclaimPolicy']}\n")
    if sc.get("volumeBindingMode") is not None:
        w.write(LEVEL_0, f"VolumeBindingMode:\t{sc['volumeBindingMode']}\n")
    if sc.get("allowedTopologies") is not None:
        topologies = sc["allowedTopologies"] or []
        w.write(LEVEL_0, "AllowedTopologies:\t")
        if not topologies:
            w.write_line("<none>")
        else:
            w.write_line("")
            for i, term in enumerate(topologies):
                reqs = (term or {}).get("matchLabelExpressions") or []
                w.write(LEVEL_1, f"Term {i}:\t")
                if not reqs:
                    w.write_line("<none>")
                for j, rq in enumerate(reqs):
                    if j != 0:
                        w.write(LEVEL_1, "\t")
                    expr = f"{rq.get('key', '')} in"
                    if rq.get("values"):
                        expr += " [" + ", ".join(str(v) for v in rq["values"]) + "]"
                    w.write(LEVEL_0, expr + "\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def describe_csinode(node: dict, ctx: DescribeContext) -> str:
    meta = object_meta(node)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"CreationTimestamp:\t{format_rfc1123z(meta.get('creationTimestamp'))}\n")
    w.write(LEVEL_0, "Spec:\n")
    drivers = (node.get("spec") or {}).get("drivers")
    if drivers is not None:
        w.write(LEVEL_1, "Drivers:\n")
        for d in drivers:
            w.write(LEVEL_2, f"{d.get('name', '')}:\n")
            w.write(LEVEL_3, f"Node ID:\t{d.get('nodeID', '')}\n")
            count = (d.get("allocatable") or {}).get("count")
            if count is not None:
                w.write(LEVEL_3, "Allocatables:\n")
                w.write(LEVEL_4, f"Count:\t{int(count)}\n")
            if d.get("topologyKeys") is not None:
                w.write(LEVEL_3, f"Topology Keys:\t{go_string_slice_v(d['topologyKeys'])}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
