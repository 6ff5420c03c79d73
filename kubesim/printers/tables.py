"""kubectl's tables (``kubectl get``): the column model, the shared cell helpers, and the
decoration kubectl applies to the server's table; the columns and rows of each kind are in one
module per API group (``core``, ``apps``, ``policy``, ``scheduling``, ``storage``), the layout in
``tabwriter``.

Upstream sources, read and re-expressed (not copied):

- kubernetes/kubernetes ``pkg/printers/internalversion/printers.go``: each kind's column
  definitions (priority 1 marks the ``-o wide`` extras) and row function. The API server always
  builds the wide row; kubectl drops the priority-1 cells when ``-o wide`` is not asked for, so
  each row function returns one cell per column and :func:`render_table` filters.
- ``staging/src/k8s.io/cli-runtime/pkg/printers/tableprinter.go`` (``decorateTable``,
  ``printTable``, ``formatLabelHeaders``): the NAMESPACE column first for ``-A``, ``-L`` columns
  headed by the upper-cased last path segment of the key, LABELS last for ``--show-labels``,
  ``kind/name`` for multi-kind gets, headers upper-cased, no header row for an empty table,
  cells cut at a newline with ``...``.

The layouts (headers, ``-o wide``, ``--no-headers``, ``-A``, ``-L``, ``--show-labels``, ``kind/name``)
were checked against the real kubectl 1.36.4 printing the same rows served as a ``metav1.Table``.

Printers never fetch: every function takes the objects it prints and a :class:`PrintContext`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kubesim.printers.age import translate_timestamp_since

NONE = "<none>"
UNKNOWN = "<unknown>"
INVALID = "<invalid>"


@dataclass(frozen=True)
class Column:
    """One table column: upstream's name (upper-cased in the header) and its priority.

    ``format="name"`` marks the object's name column, which multi-kind gets prefix with
    ``kind/`` (upstream's ``Format: "name"``).
    """

    name: str
    priority: int = 0
    format: str = ""


@dataclass(frozen=True)
class PrintContext:
    now: float


@dataclass
class TableDef:
    columns: list[Column]
    row: Callable[[dict, PrintContext], list[str]]


def object_meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def format_labels(labels: dict | None) -> str:
    """labels.FormatLabels: ``k=v,k2=v2`` sorted by key, or ``<none>``."""
    if not labels:
        return NONE
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def age(obj: dict, ctx: PrintContext) -> str:
    return translate_timestamp_since(object_meta(obj).get("creationTimestamp"), ctx.now)


def print_object_meta(obj: dict, ctx: PrintContext) -> list[str]:
    """The generic table's row (kinds without their own printer): NAME, AGE."""
    return [object_meta(obj).get("name", ""), age(obj, ctx)]


GENERIC = TableDef([Column("Name", format="name"), Column("Age")], print_object_meta)


# kind -> (module of this package, its columns, its row function)
TABLES: dict[str, tuple[str, str, str]] = {
    "Pod": ("core", "POD_COLUMNS", "print_pod"),
    "Node": ("core", "NODE_COLUMNS", "print_node"),
    "Namespace": ("core", "NAMESPACE_COLUMNS", "print_namespace"),
    "Event": ("core", "EVENT_COLUMNS", "print_event"),
    "ConfigMap": ("core", "CONFIG_MAP_COLUMNS", "print_config_map"),
    "Secret": ("core", "SECRET_COLUMNS", "print_secret"),
    "ServiceAccount": ("core", "SERVICE_ACCOUNT_COLUMNS", "print_service_account"),
    "PersistentVolume": ("core", "PERSISTENT_VOLUME_COLUMNS", "print_persistent_volume"),
    "PersistentVolumeClaim": ("core", "PERSISTENT_VOLUME_CLAIM_COLUMNS", "print_persistent_volume_claim"),
    "Deployment": ("apps", "DEPLOYMENT_COLUMNS", "print_deployment"),
    "ReplicaSet": ("apps", "REPLICASET_COLUMNS", "print_replicaset"),
    "DaemonSet": ("apps", "DAEMONSET_COLUMNS", "print_daemonset"),
    "ControllerRevision": ("apps", "CONTROLLER_REVISION_COLUMNS", "print_controller_revision"),
    "RuntimeClass": ("node", "RUNTIME_CLASS_COLUMNS", "print_runtime_class"),
    "PriorityClass": ("scheduling", "PRIORITY_CLASS_COLUMNS", "print_priority_class"),
    "PodDisruptionBudget": ("policy", "PDB_COLUMNS", "print_pdb"),
    "StorageClass": ("storage", "STORAGE_CLASS_COLUMNS", "print_storage_class"),
    "CSINode": ("storage", "CSINODE_COLUMNS", "print_csinode"),
    "Job": ("batch", "JOB_COLUMNS", "print_job"),
    "CronJob": ("batch", "CRONJOB_COLUMNS", "print_cronjob"),
    "Lease": ("coordination", "LEASE_COLUMNS", "print_lease"),
    "Role": ("rbac", "ROLE_COLUMNS", "print_role"),
    "ClusterRole": ("rbac", "ROLE_COLUMNS", "print_role"),
    "RoleBinding": ("rbac", "ROLE_BINDING_COLUMNS", "print_role_binding"),
    "ClusterRoleBinding": ("rbac", "ROLE_BINDING_COLUMNS", "print_role_binding"),
    "NetworkPolicy": ("networking", "NETWORK_POLICY_COLUMNS", "print_network_policy"),
    "Ingress": ("networking", "INGRESS_COLUMNS", "print_ingress"),
    "IngressClass": ("networking", "INGRESS_CLASS_COLUMNS", "print_ingress_class"),
    "StatefulSet": ("apps", "STATEFULSET_COLUMNS", "print_statefulset"),
    "Service": ("service", "SERVICE_COLUMNS", "print_service"),
    "Endpoints": ("service", "ENDPOINTS_COLUMNS", "print_endpoints"),
    "EndpointSlice": ("discovery", "ENDPOINT_SLICE_COLUMNS", "print_endpoint_slice"),
    "LimitRange": ("core", "LIMIT_RANGE_COLUMNS", "print_limit_range"),
    "ResourceQuota": ("core", "RESOURCE_QUOTA_COLUMNS", "print_resource_quota"),
    "HorizontalPodAutoscaler": ("autoscaling", "HPA_COLUMNS", "print_hpa"),
    "CustomResourceDefinition": ("apiextensions", "CRD_COLUMNS", "print_custom_resource_definition"),
}


def table_of(kind: str) -> TableDef:
    """The kind's table (the generic NAME, AGE one for kinds without their own)."""
    entry = TABLES.get(kind)
    if entry is None:
        return _custom_table(kind) or GENERIC
    import importlib

    module = importlib.import_module(f"kubesim.printers.{entry[0]}")
    return TableDef(getattr(module, entry[1]), getattr(module, entry[2]))


def unread(kind: str) -> tuple[str, ...]:
    """Dotted paths of a built-in kind's objects its table never reads: their managedFields,
    and what the module of its row function lists in its ``UNREAD`` (``core.POD_UNREAD``).
    A lister may leave them out of the objects it prints (``Client.list``'s ``omit``)."""
    entry = TABLES.get(kind)
    if entry is None:
        return ()
    import importlib

    module = importlib.import_module(f"kubesim.printers.{entry[0]}")
    return ("metadata.managedFields", *getattr(module, "UNREAD", {}).get(kind, ()))


def _custom_table(kind: str) -> TableDef | None:
    """A custom resource's table, from the columns of the CRD that serves ``kind``."""
    from kubesim.api.kinds import REGISTRY

    found = REGISTRY.kinds_named(kind)
    if not found or found[0].crd is None:
        return None
    from kubesim.printers.apiextensions import custom_resource_table

    return custom_resource_table(found[0].crd, found[0].version)


def _kind_prefix(kind: str) -> str:
    """``strings.ToLower(GroupKind.String())``: ``pod``, ``deployment.apps``."""
    try:
        from kubesim.api.kinds import by_kind

        return by_kind(kind).ref
    except (ImportError, KeyError):
        return kind.lower()


def render_table(kind: str, objects: list[dict], ctx: PrintContext, *, wide: bool = False,
                 no_headers: bool = False, show_namespace: bool = False, show_labels: bool = False,
                 label_columns: list[str] | tuple[str, ...] = (), show_kind: bool = False,
                 ) -> list[list[str]]:
    """Header + one row per object, as cells, decorated the way kubectl decorates server tables.

    An empty ``objects`` gives ``[]`` (kubectl prints no header for an empty table; saying
    "No resources found" is the caller's job).
    """
    if not objects:
        return []
    header = [] if no_headers else [table_header(kind, wide=wide, show_namespace=show_namespace,
                                                 show_labels=show_labels, label_columns=label_columns)]
    return header + list(table_rows(kind, objects, ctx, wide=wide, show_namespace=show_namespace,
                                    show_labels=show_labels, label_columns=label_columns, show_kind=show_kind))


def table_header(kind: str, *, wide: bool = False, show_namespace: bool = False, show_labels: bool = False,
                 label_columns: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The header row of :func:`render_table`."""
    table = table_of(kind)
    header = ["NAMESPACE"] if show_namespace else []
    header += [c.name.upper() for c in table.columns if wide or c.priority == 0]
    header += [key.split("/")[-1].upper() for key in label_columns]
    if show_labels:
        header.append("LABELS")
    return header


def table_rows(kind: str, objects, ctx: PrintContext, *, wide: bool = False, show_namespace: bool = False,
               show_labels: bool = False, label_columns: list[str] | tuple[str, ...] = (),
               show_kind: bool = False):
    """The rows of :func:`render_table` (no header), one per object of the iterable ``objects``
    as it is read: a caller printing objects listed in pieces keeps only the rows."""
    table = table_of(kind)
    visible = [i for i, c in enumerate(table.columns) if wide or c.priority == 0]
    name_col = next((i for i, c in enumerate(table.columns) if c.format == "name"), None)
    prefix = _kind_prefix(kind) if show_kind else ""
    row_of = table.row
    for obj in objects:
        cells = [str(c) for c in row_of(obj, ctx)]
        if show_kind and name_col is not None:
            cells[name_col] = f"{prefix}/{cells[name_col]}"
        meta = object_meta(obj)
        labels = meta.get("labels") or {}
        row = [meta.get("namespace", "")] if show_namespace else []
        row += [cells[i] for i in visible]
        row += [labels.get(key, "") for key in label_columns]
        if show_labels:
            row.append(format_labels(labels))
        yield row


def status_int(obj: dict, key: str) -> int:
    return int((obj.get("status") or {}).get(key) or 0)


def go_bool_cell(v: object) -> str:
    return "true" if v is True else "false"
