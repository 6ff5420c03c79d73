"""kubectl's table columns and rows for apps/v1's Deployment, ReplicaSet, DaemonSet and ControllerRevision.

Upstream: pkg/printers/internalversion/printers.go: ``printDeployment``, ``printReplicaSet``, ``printDaemonSet``, ``printControllerRevision``, ``printStatefulSet`` (with
``layoutContainerCells`` and ``formatResourceName``). A Deployment's wide SELECTOR is
``LabelSelectorAsSelector(...).String()`` (empty for an empty selector), a ReplicaSet's and
DaemonSet's ``FormatLabelSelector`` (``<none>``).
"""

from __future__ import annotations

from kubesim.printers.tables import (
    INVALID,
    NONE,
    Column,
    PrintContext,
    age,
    format_labels,
    object_meta,
    status_int,
)


def layout_container_cells(obj: dict) -> tuple[str, str]:
    """layoutContainerCells: the pod template's container names and images, comma-joined."""
    containers = ((((obj.get("spec") or {}).get("template") or {}).get("spec") or {})
                  .get("containers") or [])
    return (",".join(c.get("name", "") for c in containers),
            ",".join(c.get("image", "") for c in containers))


def label_selector_string(selector: dict | None) -> str:
    """``metav1.LabelSelectorAsSelector(s).String()``: requirements sorted by key, ``""`` for an
    empty (or missing) selector, ``<invalid>`` when it does not convert (printDeployment)."""
    from kubesim.api.selectors import from_label_selector

    try:
        return str(from_label_selector(selector))
    except ValueError:
        return INVALID


def format_label_selector(selector: dict | None) -> str:
    """``metav1.FormatLabelSelector``: like :func:`label_selector_string` but ``<none>`` when it
    selects everything (or nothing), and ``<error>`` for a bad operator."""
    if selector is None:
        return NONE
    if not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return NONE
    from kubesim.api.selectors import from_label_selector

    try:
        text = str(from_label_selector(selector))
    except ValueError:
        return "<error>"
    return text or NONE


def _spec_replicas(obj: dict) -> int:
    """``spec.replicas`` of a stored object (the API server defaults a missing one to 1)."""
    value = (obj.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


def print_deployment(d: dict, ctx: PrintContext) -> list[str]:
    names, images = layout_container_cells(d)
    return [
        object_meta(d).get("name", ""), f"{status_int(d, 'readyReplicas')}/{_spec_replicas(d)}",
        str(status_int(d, "updatedReplicas")), str(status_int(d, "availableReplicas")), age(d, ctx),
        names, images, label_selector_string((d.get("spec") or {}).get("selector")),
    ]


DEPLOYMENT_COLUMNS = [
    Column("Name", format="name"), Column("Ready"), Column("Up-to-date"), Column("Available"),
    Column("Age"), Column("Containers", 1), Column("Images", 1), Column("Selector", 1),
]


def print_replicaset(rs: dict, ctx: PrintContext) -> list[str]:
    names, images = layout_container_cells(rs)
    return [
        object_meta(rs).get("name", ""), str(_spec_replicas(rs)), str(status_int(rs, "replicas")),
        str(status_int(rs, "readyReplicas")), age(rs, ctx),
        names, images, format_label_selector((rs.get("spec") or {}).get("selector")),
    ]


REPLICASET_COLUMNS = [
    Column("Name", format="name"), Column("Desired"), Column("Current"), Column("Ready"),
    Column("Age"), Column("Containers", 1), Column("Images", 1), Column("Selector", 1),
]


def print_daemonset(ds: dict, ctx: PrintContext) -> list[str]:
    spec = ds.get("spec") or {}
    node_selector = ((spec.get("template") or {}).get("spec") or {}).get("nodeSelector")
    names, images = layout_container_cells(ds)
    return [
        object_meta(ds).get("name", ""), str(status_int(ds, "desiredNumberScheduled")),
        str(status_int(ds, "currentNumberScheduled")), str(status_int(ds, "numberReady")),
        str(status_int(ds, "updatedNumberScheduled")), str(status_int(ds, "numberAvailable")),
        format_labels(node_selector), age(ds, ctx),
        names, images, format_label_selector(spec.get("selector")),
    ]


DAEMONSET_COLUMNS = [
    Column("Name", format="name"), Column("Desired"), Column("Current"), Column("Ready"),
    Column("Up-to-date"), Column("Available"), Column("Node Selector"), Column("Age"),
    Column("Containers", 1), Column("Images", 1), Column("Selector", 1),
]


def controller_of(obj: dict) -> dict | None:
    """metav1.GetControllerOf: the owner reference with ``controller: true``."""
    for ref in object_meta(obj).get("ownerReferences") or []:
        if ref.get("controller") is True:
            return ref
    return None


def format_resource_name(api_version: str, kind: str, name: str) -> str:
    """formatResourceName with kind: ``strings.ToLower(GroupKind.String()) + "/" + name``, the
    group taken from the reference's apiVersion (``daemonset.apps/fluentd``, ``pod/x``)."""
    group = api_version.split("/")[0] if "/" in api_version else ""
    if not kind and not group:
        return name
    group_kind = f"{kind}.{group}" if group else kind
    return f"{group_kind.lower()}/{name}"


def print_controller_revision(cr: dict, ctx: PrintContext) -> list[str]:
    ref = controller_of(cr)
    controller = NONE
    if ref is not None:
        controller = format_resource_name(ref.get("apiVersion", ""), ref.get("kind", ""),
                                          ref.get("name", ""))
    return [object_meta(cr).get("name", ""), controller, str(int(cr.get("revision") or 0)), age(cr, ctx)]


CONTROLLER_REVISION_COLUMNS = [
    Column("Name", format="name"), Column("Controller"), Column("Revision"), Column("Age"),
]


def print_statefulset(sts: dict, ctx: PrintContext) -> list[str]:
    """printStatefulSet: READY is status.readyReplicas / spec.replicas."""
    names, images = layout_container_cells(sts)
    return [object_meta(sts).get("name", ""), f"{status_int(sts, 'readyReplicas')}/{_spec_replicas(sts)}",
            age(sts, ctx), names, images]


STATEFULSET_COLUMNS = [
    Column("Name", format="name"), Column("Ready"), Column("Age"), Column("Containers", 1), Column("Images", 1),
]
