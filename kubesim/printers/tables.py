"""kubectl's table rows (``kubectl get``) for Pod, Node, Namespace, Event, Deployment, ReplicaSet,
DaemonSet, ControllerRevision, PriorityClass, PodDisruptionBudget, PersistentVolume(Claim),
StorageClass and CSINode, and their layout.

Upstream sources, read and re-expressed (not copied):

- kubernetes/kubernetes ``pkg/printers/internalversion/printers.go``: the column definitions
  (``podColumnDefinitions``, ``nodeColumnDefinitions``, ``eventColumnDefinitions``,
  ``namespaceColumnDefinitions``, ``deploymentColumnDefinitions``, ``replicaSetColumnDefinitions``,
  ``daemonSetColumnDefinitions``, ``controllerRevisionColumnDefinition``; priority 1 marks the
  ``-o wide`` extras) and the row functions ``printPod``, ``printNode``, ``printNamespace``,
  ``printEvent``, ``printDeployment``, ``printReplicaSet``, ``printDaemonSet``,
  ``printControllerRevision`` (with ``layoutContainerCells`` and ``formatResourceName``);
  ``priorityClassColumnDefinitions``/``printPriorityClass``, ``podDisruptionBudgetColumnDefinitions``/
  ``printPodDisruptionBudget`` (``N/A`` for an unset bound), ``persistentVolumeColumnDefinitions``/
  ``printPersistentVolume`` and ``persistentVolumeClaimColumnDefinitions``/
  ``printPersistentVolumeClaim`` (``helper.GetAccessModesAsString``, ``GetPersistentVolume(Claim)Class``,
  ``<unset>`` VolumeAttributesClass and VolumeMode, ``Terminating`` once deleted),
  ``storageClassColumnDefinitions``/``printStorageClass`` (`` (default)`` after the default class's
  name, ``storageutil.IsDefaultAnnotation``) and ``csiNodeColumnDefinitions``/``printCSINode``. A
  Deployment's wide SELECTOR is ``LabelSelectorAsSelector(...).String()`` (empty for an empty
  selector), a ReplicaSet's and DaemonSet's ``FormatLabelSelector`` (``<none>``). The API
  server always builds the wide row; kubectl drops the priority-1 cells when ``-o wide`` is not
  asked for, so each ``row`` function here returns one cell per column and :func:`render_table`
  filters.
- ``staging/src/k8s.io/cli-runtime/pkg/printers/tableprinter.go`` (``decorateTable``,
  ``printTable``, ``formatLabelHeaders``): the NAMESPACE column first for ``-A``, ``-L`` columns
  headed by the upper-cased last path segment of the key, LABELS last for ``--show-labels``,
  ``kind/name`` for multi-kind gets, headers upper-cased, no header row for an empty table,
  cells cut at a newline with ``...``.
- ``staging/src/k8s.io/cli-runtime/pkg/printers/tabwriter.go`` (``GetNewTabWriter``): the table
  (and ``-o custom-columns``) goes through ``github.com/liggitt/tabwriter`` - Go's
  ``text/tabwriter`` plus ``RememberWidths`` - with minwidth 6 (not 0: it shows with
  ``--no-headers``, where a column of one-character cells is still 6 wide), tabwidth 4,
  padding 3, pad char ``' '``.
- Go's ``src/text/tabwriter/tabwriter.go`` itself and liggitt's fork: :func:`tabwrite`
  re-implements their column-block algorithm (a column's width is set per run of consecutive
  lines that have a cell in it; the text after a line's last tab is not part of any column and
  is never padded; a form feed or a one-cell line flushes) - the one tabwriter of kubesim.
  ``describe`` uses it with kubectl's describe settings (plain ``text/tabwriter``, minwidth 0,
  tabwidth 8, padding 2).

The layouts (headers, ``-o wide``, ``--no-headers``, ``-A``, ``-L``, ``--show-labels``, ``kind/name``)
were checked against the real kubectl 1.36.4 printing the same rows served as a ``metav1.Table``.

Printers never fetch: every function takes the objects it prints and a :class:`PrintContext`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from kubesim.printers.age import human_duration, parse_timestamp, translate_timestamp_since

NONE = "<none>"
UNKNOWN = "<unknown>"
INVALID = "<invalid>"

# kubectl's get tabwriter (cli-runtime/pkg/printers/tabwriter.go)
TABLE_MINWIDTH, TABLE_TABWIDTH, TABLE_PADDING = 6, 4, 3

LABEL_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
NODE_LABEL_ROLE = "kubernetes.io/role"
NODE_UNREACHABLE_POD_REASON = "NodeLost"  # pkg/util/node.NodeUnreachablePodReason


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


# --------------------------------------------------------------------------------------------
# Go text/tabwriter


def _cut_cell(cell: str) -> str:
    """tableprinter's appendCellValue: a cell stops at its first newline, marked with ``...``."""
    for i, ch in enumerate(cell):
        if ch in "\f\n\r":
            return cell[:i] + "..."
    return cell


_CELL_END = re.compile("([\t\v\n\f])")


def tabwrite(text: str, minwidth: int = 0, tabwidth: int = 8, padding: int = 1,
             remember_widths: bool = False) -> str:
    """Lay out ``text`` exactly as Go's ``text/tabwriter`` does with pad char ``' '`` and flags 0
    (kubectl describe), or, with ``remember_widths``, as ``github.com/liggitt/tabwriter`` with its
    ``RememberWidths`` flag (kubectl get: see :func:`table_tabwrite`).

    A tab or vertical tab ends a cell, a newline or form feed ends a line (a form feed prints as a
    newline). A column is as wide as its widest cell plus ``padding``, at least ``minwidth``, and
    only for the run of consecutive lines that have a cell in it; the text after a line's last
    tab is never padded; widths count code points. A form feed, or a line of one cell, flushes:
    later lines start new column blocks, which with ``remember_widths`` keep the widest width each
    column had before.
    """
    del tabwidth  # only used by Go when padding with tabs
    out: list[str] = []
    remembered: list[int] | None = [] if remember_widths else None
    lines: list[list[str]] = [[]]
    parts = _CELL_END.split(text)
    for i in range(1, len(parts), 2):
        line = lines[-1]
        line.append(parts[i - 1])
        end = parts[i]
        if end == "\n" or end == "\f":
            lines.append([])
            if end == "\f" or len(line) == 1:
                _tab_format(lines, 0, len(lines), [], remembered, minwidth, padding, out)
                lines = [[]]
    if parts[-1]:  # Flush terminates a last cell only if it is not empty
        lines[-1].append(parts[-1])
    _tab_format(lines, 0, len(lines), [], remembered, minwidth, padding, out)
    return "".join(out)


def _tab_format(lines: list[list[str]], line0: int, line1: int, widths: list[int],
                remembered: list[int] | None, minwidth: int, padding: int, out: list[str]) -> None:
    """Writer.format: find the column blocks of ``lines[line0:line1]`` and write them."""
    column = len(widths)
    this = line0
    while this < line1:
        if column >= len(lines[this]) - 1:
            this += 1
            continue
        # a column block starts here: the lines below that also have a cell in this column
        _tab_write_lines(lines, line0, this, widths, out)
        line0 = this
        width = minwidth
        while this < line1 and column < len(lines[this]) - 1:
            width = max(width, len(lines[this][column]) + padding)
            this += 1
        if remembered is not None:  # RememberWidths: a column keeps its widest earlier width
            if len(remembered) < column:
                remembered.extend(widths[len(remembered):])
            if len(remembered) == column:
                remembered.append(width)
            elif remembered[column] > width:
                width = remembered[column]
            else:
                remembered[column] = width
        _tab_format(lines, line0, this, widths + [width], remembered, minwidth, padding, out)
        line0 = this
    _tab_write_lines(lines, line0, line1, widths, out)


def _tab_write_lines(lines: list[list[str]], line0: int, line1: int, widths: list[int],
                     out: list[str]) -> None:
    last = len(lines) - 1
    for i in range(line0, line1):
        for j, cell in enumerate(lines[i]):
            out.append(cell)
            if j < len(widths):
                out.append(" " * (widths[j] - len(cell)))
        if i < last:
            out.append("\n")


def table_tabwrite(text: str) -> str:
    """The writer kubectl get prints tables and custom columns through: cli-runtime's
    ``printers.GetNewTabWriter``, liggitt/tabwriter(6, 4, 3, ' ', RememberWidths)."""
    return tabwrite(text, TABLE_MINWIDTH, TABLE_TABWIDTH, TABLE_PADDING, remember_widths=True)


def format_cells(rows: list[list[str]]) -> str:
    """kubectl get's layout of header + rows (:func:`table_tabwrite`), one newline per row."""
    if not rows:
        return ""
    text = "".join("\t".join(_cut_cell(str(c)) for c in row) + "\n" for row in rows)
    return table_tabwrite(text)


# --------------------------------------------------------------------------------------------
# shared helpers


def _meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def format_labels(labels: dict | None) -> str:
    """labels.FormatLabels: ``k=v,k2=v2`` sorted by key, or ``<none>``."""
    if not labels:
        return NONE
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def age(obj: dict, ctx: PrintContext) -> str:
    return translate_timestamp_since(_meta(obj).get("creationTimestamp"), ctx.now)


def _later(a: float | None, b: float | None) -> float | None:
    if b is None:
        return a
    if a is None or b > a:
        return b
    return a


def _last_termination_finished(cs: dict) -> float | None:
    terminated = (cs.get("lastState") or {}).get("terminated")
    if terminated is None:
        return None
    return parse_timestamp(terminated.get("finishedAt"))


def is_restartable_init_container(container: dict | None) -> bool:
    """A sidecar: an init container with ``restartPolicy: Always``."""
    return bool(container) and container.get("restartPolicy") == "Always"


def _condition_true(status: dict, ctype: str) -> bool:
    for cond in status.get("conditions") or []:
        if cond.get("type") == ctype:
            return cond.get("status") == "True"
    return False


def _has_condition_true(status: dict, ctype: str) -> bool:
    return any(c.get("type") == ctype and c.get("status") == "True"
               for c in status.get("conditions") or [])


# --------------------------------------------------------------------------------------------
# Pod


def pod_ready_status_restarts(pod: dict, now: float) -> tuple[str, str, str]:
    """printPod's READY, STATUS and RESTARTS cells for one pod."""
    meta, spec, status = _meta(pod), pod.get("spec") or {}, pod.get("status") or {}
    restarts = 0
    sidecar_restarts = 0
    total = len(spec.get("containers") or [])
    ready = 0
    last_restart: float | None = None
    last_sidecar_restart: float | None = None

    phase = status.get("phase") or ""
    reason = status.get("reason") or phase
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    init_containers = spec.get("initContainers") or []
    init_by_name = {}
    for c in init_containers:
        init_by_name[c.get("name")] = c
        if is_restartable_init_container(c):
            total += 1

    initializing = False
    for i, cs in enumerate(status.get("initContainerStatuses") or []):
        count = int(cs.get("restartCount") or 0)
        finished = _last_termination_finished(cs)
        restarts += count
        last_restart = _later(last_restart, finished)
        sidecar = is_restartable_init_container(init_by_name.get(cs.get("name")))
        if sidecar:
            sidecar_restarts += count
            last_sidecar_restart = _later(last_sidecar_restart, finished)
        state = cs.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if terminated is not None and int(terminated.get("exitCode") or 0) == 0:
            continue
        if sidecar and cs.get("started") is True:
            if cs.get("ready"):
                ready += 1
            continue
        if terminated is not None:
            # initialization failed
            if not terminated.get("reason"):
                if terminated.get("signal"):
                    reason = f"Init:Signal:{terminated['signal']}"
                else:
                    reason = f"Init:ExitCode:{int(terminated.get('exitCode') or 0)}"
            else:
                reason = "Init:" + terminated["reason"]
        elif waiting is not None and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            reason = "Init:" + waiting["reason"]
        else:
            reason = f"Init:{i}/{len(init_containers)}"
        initializing = True
        break

    if not initializing or _condition_true(status, "Initialized"):
        restarts = sidecar_restarts
        last_restart = last_sidecar_restart
        has_running = False
        for cs in reversed(status.get("containerStatuses") or []):
            restarts += int(cs.get("restartCount") or 0)
            last_restart = _later(last_restart, _last_termination_finished(cs))
            state = cs.get("state") or {}
            terminated, waiting = state.get("terminated"), state.get("waiting")
            if waiting is not None and waiting.get("reason"):
                reason = waiting["reason"]
            elif terminated is not None and terminated.get("reason"):
                reason = terminated["reason"]
            elif terminated is not None:
                if terminated.get("signal"):
                    reason = f"Signal:{terminated['signal']}"
                else:
                    reason = f"ExitCode:{int(terminated.get('exitCode') or 0)}"
            elif cs.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        # back to "Running" if at least one container still reports running
        if reason == "Completed" and has_running:
            reason = "Running" if _has_condition_true(status, "Ready") else "NotReady"

    if meta.get("deletionTimestamp") and status.get("reason") == NODE_UNREACHABLE_POD_REASON:
        reason = "Unknown"
    elif meta.get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"

    restarts_cell = str(restarts)
    if restarts != 0 and last_restart is not None:
        restarts_cell = f"{restarts} ({human_duration(now - last_restart)} ago)"
    return f"{ready}/{total}", reason, restarts_cell


def print_pod(pod: dict, ctx: PrintContext) -> list[str]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    ready, reason, restarts = pod_ready_status_restarts(pod, ctx.now)
    pod_ips = status.get("podIPs") or []
    pod_ip = (pod_ips[0].get("ip") if pod_ips else "") or NONE
    gates = spec.get("readinessGates") or []
    readiness = NONE
    if gates:
        true_conditions = 0
        for gate in gates:
            for cond in status.get("conditions") or []:
                if cond.get("type") == gate.get("conditionType"):
                    if cond.get("status") == "True":
                        true_conditions += 1
                    break
        readiness = f"{true_conditions}/{len(gates)}"
    return [
        _meta(pod).get("name", ""), ready, reason, restarts, age(pod, ctx),
        pod_ip, spec.get("nodeName") or NONE, status.get("nominatedNodeName") or NONE, readiness,
    ]


POD_COLUMNS = [
    Column("Name", format="name"), Column("Ready"), Column("Status"), Column("Restarts"),
    Column("Age"), Column("IP", 1), Column("Node", 1), Column("Nominated Node", 1),
    Column("Readiness Gates", 1),
]


# --------------------------------------------------------------------------------------------
# Node


def find_node_roles(node: dict) -> list[str]:
    """Roles from ``node-role.kubernetes.io/<role>`` keys and a ``kubernetes.io/role`` value, sorted."""
    roles = set()
    for key, value in (_meta(node).get("labels") or {}).items():
        if key.startswith(LABEL_NODE_ROLE_PREFIX):
            role = key[len(LABEL_NODE_ROLE_PREFIX):]
            if role:
                roles.add(role)
        elif key == NODE_LABEL_ROLE and value:
            roles.add(value)
    return sorted(roles)


def node_status(node: dict) -> str:
    """``Ready``, ``NotReady`` or ``Unknown``, plus ``,SchedulingDisabled`` when cordoned."""
    conditions = {c.get("type"): c for c in (node.get("status") or {}).get("conditions") or []}
    status = []
    ready = conditions.get("Ready")
    if ready is not None:
        status.append("Ready" if ready.get("status") == "True" else "NotReady")
    if not status:
        status.append("Unknown")
    if (node.get("spec") or {}).get("unschedulable"):
        status.append("SchedulingDisabled")
    return ",".join(status)


def _node_address(node: dict, kind: str) -> str:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == kind:
            return address.get("address", "")
    return NONE


def print_node(node: dict, ctx: PrintContext) -> list[str]:
    info = (node.get("status") or {}).get("nodeInfo") or {}
    return [
        _meta(node).get("name", ""), node_status(node), ",".join(find_node_roles(node)) or NONE,
        age(node, ctx), info.get("kubeletVersion", ""),
        _node_address(node, "InternalIP"), _node_address(node, "ExternalIP"),
        info.get("osImage") or UNKNOWN, info.get("kernelVersion") or UNKNOWN,
        info.get("containerRuntimeVersion") or UNKNOWN,
    ]


NODE_COLUMNS = [
    Column("Name", format="name"), Column("Status"), Column("Roles"), Column("Age"),
    Column("Version"), Column("Internal-IP", 1), Column("External-IP", 1), Column("OS-Image", 1),
    Column("Kernel-Version", 1), Column("Container-Runtime", 1),
]


# --------------------------------------------------------------------------------------------
# Namespace


def print_namespace(ns: dict, ctx: PrintContext) -> list[str]:
    return [_meta(ns).get("name", ""), (ns.get("status") or {}).get("phase", ""), age(ns, ctx)]


NAMESPACE_COLUMNS = [Column("Name", format="name"), Column("Status"), Column("Age")]


# --------------------------------------------------------------------------------------------
# Event


def format_event_source(event: dict) -> str:
    """formatEventSource: ``component`` or ``component, host``; the reporting fields fill gaps."""
    source = event.get("source") or {}
    # core/v1 JSON names ReportingController "reportingComponent"; events.k8s.io/v1 names it
    # "reportingController" (accepted too)
    component = (source.get("component") or event.get("reportingComponent")
                 or event.get("reportingController") or "")
    instance = source.get("host") or event.get("reportingInstance") or ""
    return component if not instance else f"{component}, {instance}"


def event_first_seen(event: dict, now: float) -> str:
    if event.get("firstTimestamp"):
        return translate_timestamp_since(event["firstTimestamp"], now)
    return translate_timestamp_since(event.get("eventTime"), now)


def print_event(event: dict, ctx: PrintContext) -> list[str]:
    first = event_first_seen(event, ctx.now)
    last = translate_timestamp_since(event["lastTimestamp"], ctx.now) \
        if event.get("lastTimestamp") else first
    count = int(event.get("count") or 0)
    series = event.get("series")
    if series is not None:
        last = translate_timestamp_since(series.get("lastObservedTime"), ctx.now)
        count = int(series.get("count") or 0)
    elif count == 0:
        count = 1  # singleton events have no count in the new API
    involved = event.get("involvedObject") or {}
    kind = (involved.get("kind") or "").lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    return [
        last, event.get("type", ""), event.get("reason", ""), target,
        involved.get("fieldPath", ""), format_event_source(event),
        (event.get("message") or "").strip(), first, str(count), _meta(event).get("name", ""),
    ]


EVENT_COLUMNS = [
    Column("Last Seen"), Column("Type"), Column("Reason"), Column("Object"),
    Column("Subobject", 1), Column("Source", 1), Column("Message"), Column("First Seen", 1),
    Column("Count", 1), Column("Name", 1, "name"),
]


# --------------------------------------------------------------------------------------------
# apps/v1: Deployment, ReplicaSet, DaemonSet, ControllerRevision


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


def _status_int(obj: dict, key: str) -> int:
    return int((obj.get("status") or {}).get(key) or 0)


def print_deployment(d: dict, ctx: PrintContext) -> list[str]:
    names, images = layout_container_cells(d)
    return [
        _meta(d).get("name", ""), f"{_status_int(d, 'readyReplicas')}/{_spec_replicas(d)}",
        str(_status_int(d, "updatedReplicas")), str(_status_int(d, "availableReplicas")), age(d, ctx),
        names, images, label_selector_string((d.get("spec") or {}).get("selector")),
    ]


DEPLOYMENT_COLUMNS = [
    Column("Name", format="name"), Column("Ready"), Column("Up-to-date"), Column("Available"),
    Column("Age"), Column("Containers", 1), Column("Images", 1), Column("Selector", 1),
]


def print_replicaset(rs: dict, ctx: PrintContext) -> list[str]:
    names, images = layout_container_cells(rs)
    return [
        _meta(rs).get("name", ""), str(_spec_replicas(rs)), str(_status_int(rs, "replicas")),
        str(_status_int(rs, "readyReplicas")), age(rs, ctx),
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
        _meta(ds).get("name", ""), str(_status_int(ds, "desiredNumberScheduled")),
        str(_status_int(ds, "currentNumberScheduled")), str(_status_int(ds, "numberReady")),
        str(_status_int(ds, "updatedNumberScheduled")), str(_status_int(ds, "numberAvailable")),
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
    for ref in _meta(obj).get("ownerReferences") or []:
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
    return [_meta(cr).get("name", ""), controller, str(int(cr.get("revision") or 0)), age(cr, ctx)]


CONTROLLER_REVISION_COLUMNS = [
    Column("Name", format="name"), Column("Controller"), Column("Revision"), Column("Age"),
]


# --------------------------------------------------------------------------------------------
# scheduling, policy and storage kinds


def _go_bool_cell(v: object) -> str:
    return "true" if v is True else "false"


def print_priority_class(pc: dict, ctx: PrintContext) -> list[str]:
    value = pc.get("value")
    value = int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0
    return [_meta(pc).get("name", ""), str(value), _go_bool_cell(pc.get("globalDefault")), age(pc, ctx),
            str(pc.get("preemptionPolicy") or "")]


PRIORITY_CLASS_COLUMNS = [
    Column("Name", format="name"), Column("Value"), Column("Global-Default"), Column("Age"),
    Column("PreemptionPolicy"),
]


def int_or_string(v: object) -> str:
    """``(*intstr.IntOrString).String()``."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def print_pdb(pdb: dict, ctx: PrintContext) -> list[str]:
    spec = pdb.get("spec") or {}
    min_a = spec.get("minAvailable")
    max_u = spec.get("maxUnavailable")
    return [_meta(pdb).get("name", ""), "N/A" if min_a is None else int_or_string(min_a),
            "N/A" if max_u is None else int_or_string(max_u), str(_status_int(pdb, "disruptionsAllowed")),
            age(pdb, ctx)]


PDB_COLUMNS = [
    Column("Name", format="name"), Column("Min Available"), Column("Max Unavailable"),
    Column("Allowed Disruptions"), Column("Age"),
]

_ACCESS_MODE_ABBREVIATIONS = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                              ("ReadWriteOncePod", "RWOP"))
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def access_modes_string(modes: list | None) -> str:
    """helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, comma-joined."""
    modes = modes or []
    return ",".join(short for mode, short in _ACCESS_MODE_ABBREVIATIONS if mode in modes)


def volume_class(obj: dict) -> str:
    """GetPersistentVolume(Claim)Class: the beta annotation, else spec.storageClassName."""
    ann = _meta(obj).get("annotations") or {}
    if BETA_STORAGE_CLASS_ANNOTATION in ann:
        return ann[BETA_STORAGE_CLASS_ANNOTATION]
    return (obj.get("spec") or {}).get("storageClassName") or ""


def quantity_string(value: object) -> str:
    """``Quantity.String()`` of a stored quantity (``0`` when absent)."""
    if value is None:
        return "0"
    from kubesim.api.quantity import from_json

    try:
        return str(from_json(value))
    except ValueError:
        return str(value)


def print_persistent_volume(pv: dict, ctx: PrintContext) -> list[str]:
    spec, status, meta = pv.get("spec") or {}, pv.get("status") or {}, _meta(pv)
    ref = spec.get("claimRef")
    claim = f"{ref.get('namespace', '')}/{ref.get('name', '')}" if isinstance(ref, dict) else ""
    phase = "Terminating" if meta.get("deletionTimestamp") else status.get("phase", "")
    vm = spec.get("volumeMode")
    vac = spec.get("volumeAttributesClassName")
    return [meta.get("name", ""), quantity_string((spec.get("capacity") or {}).get("storage")),
            access_modes_string(spec.get("accessModes")), spec.get("persistentVolumeReclaimPolicy") or "",
            phase, claim, volume_class(pv), "<unset>" if vac is None else vac, status.get("reason") or "",
            age(pv, ctx), "<unset>" if vm is None else vm]


PERSISTENT_VOLUME_COLUMNS = [
    Column("Name", format="name"), Column("Capacity"), Column("Access Modes"), Column("Reclaim Policy"),
    Column("Status"), Column("Claim"), Column("StorageClass"), Column("VolumeAttributesClass"),
    Column("Reason"), Column("Age"), Column("VolumeMode", 1),
]


def print_persistent_volume_claim(pvc: dict, ctx: PrintContext) -> list[str]:
    spec, status, meta = pvc.get("spec") or {}, pvc.get("status") or {}, _meta(pvc)
    phase = "Terminating" if meta.get("deletionTimestamp") else status.get("phase", "")
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = access_modes_string(status.get("accessModes"))
        capacity = quantity_string((status.get("capacity") or {}).get("storage"))
    vm = spec.get("volumeMode")
    vac = spec.get("volumeAttributesClassName")
    return [meta.get("name", ""), phase, spec.get("volumeName") or "", capacity, modes, volume_class(pvc),
            "<unset>" if vac is None else vac, age(pvc, ctx), "<unset>" if vm is None else vm]


PERSISTENT_VOLUME_CLAIM_COLUMNS = [
    Column("Name", format="name"), Column("Status"), Column("Volume"), Column("Capacity"),
    Column("Access Modes"), Column("StorageClass"), Column("VolumeAttributesClass"), Column("Age"),
    Column("VolumeMode", 1),
]

DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                             "storageclass.beta.kubernetes.io/is-default-class")


def is_default_storage_class(sc: dict) -> bool:
    ann = _meta(sc).get("annotations") or {}
    return any(ann.get(a) == "true" for a in DEFAULT_CLASS_ANNOTATIONS)


def print_storage_class(sc: dict, ctx: PrintContext) -> list[str]:
    name = _meta(sc).get("name", "")
    if is_default_storage_class(sc):
        name += " (default)"
    return [name, sc.get("provisioner") or "", sc.get("reclaimPolicy") or "Delete",
            sc.get("volumeBindingMode") or "Immediate", _go_bool_cell(sc.get("allowVolumeExpansion")),
            age(sc, ctx)]


STORAGE_CLASS_COLUMNS = [
    Column("Name", format="name"), Column("Provisioner"), Column("ReclaimPolicy"), Column("VolumeBindingMode"),
    Column("AllowVolumeExpansion"), Column("Age"),
]


def print_csinode(node: dict, ctx: PrintContext) -> list[str]:
    drivers = (node.get("spec") or {}).get("drivers") or []
    return [_meta(node).get("name", ""), str(len(drivers)), age(node, ctx)]


CSINODE_COLUMNS = [Column("Name", format="name"), Column("Drivers"), Column("Age")]


# --------------------------------------------------------------------------------------------
# generic (CRD-like kinds without their own printer): NAME, AGE


def print_object_meta(obj: dict, ctx: PrintContext) -> list[str]:
    return [_meta(obj).get("name", ""), age(obj, ctx)]


GENERIC = TableDef([Column("Name", format="name"), Column("Age")], print_object_meta)

TABLES: dict[str, TableDef] = {
    "Pod": TableDef(POD_COLUMNS, print_pod),
    "Node": TableDef(NODE_COLUMNS, print_node),
    "Namespace": TableDef(NAMESPACE_COLUMNS, print_namespace),
    "Event": TableDef(EVENT_COLUMNS, print_event),
    "Deployment": TableDef(DEPLOYMENT_COLUMNS, print_deployment),
    "ReplicaSet": TableDef(REPLICASET_COLUMNS, print_replicaset),
    "DaemonSet": TableDef(DAEMONSET_COLUMNS, print_daemonset),
    "ControllerRevision": TableDef(CONTROLLER_REVISION_COLUMNS, print_controller_revision),
    "PriorityClass": TableDef(PRIORITY_CLASS_COLUMNS, print_priority_class),
    "PodDisruptionBudget": TableDef(PDB_COLUMNS, print_pdb),
    "PersistentVolume": TableDef(PERSISTENT_VOLUME_COLUMNS, print_persistent_volume),
    "PersistentVolumeClaim": TableDef(PERSISTENT_VOLUME_CLAIM_COLUMNS, print_persistent_volume_claim),
    "StorageClass": TableDef(STORAGE_CLASS_COLUMNS, print_storage_class),
    "CSINode": TableDef(CSINODE_COLUMNS, print_csinode),
}


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
    table = TABLES.get(kind, GENERIC)
    if not objects:
        return []
    visible = [i for i, c in enumerate(table.columns) if wide or c.priority == 0]
    name_col = next((i for i, c in enumerate(table.columns) if c.format == "name"), None)
    prefix = _kind_prefix(kind) if show_kind else ""

    rows: list[list[str]] = []
    if not no_headers:
        header = ["NAMESPACE"] if show_namespace else []
        header += [table.columns[i].name.upper() for i in visible]
        header += [key.split("/")[-1].upper() for key in label_columns]
        if show_labels:
            header.append("LABELS")
        rows.append(header)
    for obj in objects:
        cells = [str(c) for c in table.row(obj, ctx)]
        if show_kind and name_col is not None:
            cells[name_col] = f"{prefix}/{cells[name_col]}"
        meta = _meta(obj)
        labels = meta.get("labels") or {}
        row = [meta.get("namespace", "")] if show_namespace else []
        row += [cells[i] for i in visible]
        row += [labels.get(key, "") for key in label_columns]
        if show_labels:
            row.append(format_labels(labels))
        rows.append(row)
    return rows
