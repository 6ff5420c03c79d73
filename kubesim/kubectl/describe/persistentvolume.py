"""describe for the core group's PersistentVolume and PersistentVolumeClaim.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (``describePersistentVolume``,
``describePersistentVolumeClaim``, ``printVolumeNodeAffinity``, ``getPodsForPVC``).
"""

from __future__ import annotations

from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    DescribeContext,
    PrefixWriter,
    describe_events,
    format_rfc1123z,
    go_bool,
    go_string_slice_v,
    object_meta,
    print_annotations_multiline,
    print_labels_multiline,
    quantity_string,
)
from kubesim.printers.age import translate_timestamp_since

_ACCESS_MODES = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                 ("ReadWriteOncePod", "RWOP"))


_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"


def _access_modes(modes: list | None) -> str:
    modes = modes or []
    return ",".join(short for mode, short in _ACCESS_MODES if mode in modes)


def _volume_class(obj: dict) -> str:
    ann = object_meta(obj).get("annotations") or {}
    if _BETA_STORAGE_CLASS in ann:
        return ann[_BETA_STORAGE_CLASS]
    return (obj.get("spec") or {}).get("storageClassName") or ""


def _storage_string(rl: dict | None) -> str:
    value = (rl or {}).get("storage")
    return "0" if value is None else quantity_string(value)


def _print_node_selector_terms(w: PrefixWriter, level: int, title: str, reqs: list | None) -> None:
    w.write(level, f"{title}:\t")
    if not reqs:
        w.write_line("<none>")
        return
    for i, rq in enumerate(reqs):
        if i != 0:
            w.write(level, "\t")
        expr = f"{rq.get('key', '')} {str(rq.get('operator', '')).lower()}"
        if rq.get("values"):
            expr += " [" + ", ".join(str(v) for v in rq["values"]) + "]"
        w.write(LEVEL_0, expr + "\n")


def _print_volume_node_affinity(w: PrefixWriter, affinity: dict | None) -> None:
    w.write(LEVEL_0, "Node Affinity:\t")
    if not isinstance(affinity, dict) or affinity.get("required") is None:
        w.write_line("<none>")
        return
    w.write_line("")
    terms = (affinity.get("required") or {}).get("nodeSelectorTerms") or []
    w.write(LEVEL_1, "Required Terms:\t")
    if not terms:
        w.write_line("<none>")
        return
    w.write_line("")
    for i, term in enumerate(terms):
        _print_node_selector_terms(w, LEVEL_2, f"Term {i}", (term or {}).get("matchExpressions"))


def _describe_pv_source(spec: dict, w: PrefixWriter) -> None:
    if isinstance(spec.get("hostPath"), dict):
        hp = spec["hostPath"]
        htype = "<none>" if hp.get("type") is None else hp["type"]
        w.write(LEVEL_2, "Type:\tHostPath (bare host directory volume)\n"
                         f"    Path:\t{hp.get('path', '')}\n"
                         f"    HostPathType:\t{htype}\n")
    elif isinstance(spec.get("local"), dict):
        w.write(LEVEL_2, "Type:\tLocalVolume (a persistent volume backed by local storage on a node)\n"
                         f"    Path:\t{spec['local'].get('path', '')}\n")
    elif isinstance(spec.get("nfs"), dict):
        nfs = spec["nfs"]
        w.write(LEVEL_2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n"
                         f"    Server:\t{nfs.get('server', '')}\n"
                         f"    Path:\t{nfs.get('path', '')}\n"
                         f"    ReadOnly:\t{go_bool(nfs.get('readOnly'))}\n")
    elif isinstance(spec.get("csi"), dict):
        csi = spec["csi"]
        w.write(LEVEL_2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n"
                         f"    Driver:\t{csi.get('driver', '')}\n"
                         f"    FSType:\t{csi.get('fsType', '')}\n"
                         f"    VolumeHandle:\t{csi.get('volumeHandle', '')}\n"
                         f"    ReadOnly:\t{go_bool(csi.get('readOnly'))}\n")
        attrs = csi.get("volumeAttributes") or {}
        w.write(LEVEL_2, "VolumeAttributes:\t")
        if not attrs:
            w.write_line("<none>")
        else:
            # printCSIPersistentVolumeAttributesMultilineIndent writes every piece at LEVEL_2
            for i, key in enumerate(sorted(attrs)):
                if i != 0:
                    w.write(LEVEL_2, "")
                    w.write(LEVEL_2, "\t")
                w.write(LEVEL_2, f"{key}={attrs[key]}\n")
    else:
        w.write(LEVEL_2, "<unknown>\n")


def _terminating(meta: dict, now: float) -> str:
    return f"Terminating (lasts {translate_timestamp_since(meta.get('deletionTimestamp'), now)})"


def describe_persistent_volume(pv: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(pv), pv.get("spec") or {}, pv.get("status") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"Finalizers:\t{go_string_slice_v(meta.get('finalizers'))}\n")
    w.write(LEVEL_0, f"StorageClass:\t{_volume_class(pv)}\n")
    if spec.get("volumeAttributesClassName") is not None:
        w.write(LEVEL_0, f"VolumeAttributesClass:\t{spec['volumeAttributesClassName']}\n")
    if meta.get("deletionTimestamp"):
        w.write(LEVEL_0, f"Status:\t{_terminating(meta, ctx.now)}\n")
    else:
        w.write(LEVEL_0, f"Status:\t{status.get('phase', '')}\n")
    ref = spec.get("claimRef")
    claim = f"{ref.get('namespace', '')}/{ref.get('name', '')}" if isinstance(ref, dict) else ""
    w.write(LEVEL_0, f"Claim:\t{claim}\n")
    w.write(LEVEL_0, f"Reclaim Policy:\t{spec.get('persistentVolumeReclaimPolicy', '')}\n")
    w.write(LEVEL_0, f"Access Modes:\t{_access_modes(spec.get('accessModes'))}\n")
    if spec.get("volumeMode") is not None:
        w.write(LEVEL_0, f"VolumeMode:\t{spec['volumeMode']}\n")
    w.write(LEVEL_0, f"Capacity:\t{_storage_string(spec.get('capacity'))}\n")
    _print_volume_node_affinity(w, spec.get("nodeAffinity"))
    w.write(LEVEL_0, f"Message:\t{status.get('message', '')}\n")
    w.write(LEVEL_0, "Source:\n")
    _describe_pv_source(spec, w)
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def claim_users(pvc: dict, pods: list[dict]) -> list[dict]:
    """getPodsForPVC: the pods of the claim's namespace with a volume naming it (directly, or as
    the generic ephemeral volume ``<pod>-<volume>``)."""
    from kubesim.api.volumes import pod_claims

    name, ns = object_meta(pvc).get("name"), object_meta(pvc).get("namespace", "")
    out = []
    for pod in pods:
        if object_meta(pod).get("namespace", "") != ns:
            continue
        if any(claim == name for _, claim, _ in pod_claims(pod)):
            out.append(pod)
    return out


def describe_persistent_volume_claim(pvc: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(pvc), pvc.get("spec") or {}, pvc.get("status") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    w.write(LEVEL_0, f"StorageClass:\t{_volume_class(pvc)}\n")
    if spec.get("volumeAttributesClassName") is not None:
        w.write(LEVEL_0, f"VolumeAttributesClass:\t{spec['volumeAttributesClassName']}\n")
    if meta.get("deletionTimestamp"):
        w.write(LEVEL_0, f"Status:\t{_terminating(meta, ctx.now)}\n")
    else:
        w.write(LEVEL_0, f"Status:\t{status.get('phase', '')}\n")
    w.write(LEVEL_0, f"Volume:\t{spec.get('volumeName', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"Finalizers:\t{go_string_slice_v(meta.get('finalizers'))}\n")
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = _access_modes(status.get("accessModes"))
        capacity = _storage_string(status.get("capacity"))
    w.write(LEVEL_0, f"Capacity:\t{capacity}\n")
    w.write(LEVEL_0, f"Access Modes:\t{modes}\n")
    if spec.get("volumeMode") is not None:
        w.write(LEVEL_0, f"VolumeMode:\t{spec['volumeMode']}\n")
    ds = spec.get("dataSource")
    if isinstance(ds, dict):
        w.write(LEVEL_0, "DataSource:\n")
        if ds.get("apiGroup"):
            w.write(LEVEL_1, f"APIGroup:\t{ds['apiGroup']}\n")
        w.write(LEVEL_1, f"Kind:\t{ds.get('kind', '')}\n")
        w.write(LEVEL_1, f"Name:\t{ds.get('name', '')}\n")
    users = sorted(claim_users(pvc, ctx.pods), key=lambda p: object_meta(p).get("name", ""))
    w.write(LEVEL_0, "Used By:\t")
    if not users:
        w.write_line("<none>")
    for i, pod in enumerate(users):
        if i != 0:
            w.write(LEVEL_0, "\t")
        w.write(LEVEL_0, f"{object_meta(pod).get('name', '')}\n")
    conditions = status.get("conditions") or []
    if conditions:
        w.write(LEVEL_0, "Conditions:\n")
        w.write(LEVEL_1, "Type\tStatus\tLastProbeTime\tLastTransitionTime\tReason\tMessage\n")
        w.write(LEVEL_1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(LEVEL_1, f"{c.get('type', '')} \t{c.get('status', '')} \t"
                             f"{format_rfc1123z(c.get('lastProbeTime'))} \t"
                             f"{format_rfc1123z(c.get('lastTransitionTime'))} \t"
                             f"{c.get('reason', '')} \t{c.get('message', '')}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
