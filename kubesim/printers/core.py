"""kubectl's table columns and rows for the core group's Pod, Node, Namespace, Event, PersistentVolume,
PersistentVolumeClaim and ConfigMap.

Upstream: pkg/printers/internalversion/printers.go: ``printPod`` (with the READY/STATUS/RESTARTS logic of ``printPodStatus``), ``printNode``,
``printNamespace``, ``printEvent``, ``printPersistentVolume`` and ``printPersistentVolumeClaim``
(``helper.GetAccessModesAsString``, ``GetPersistentVolume(Claim)Class``, ``<unset>``
VolumeAttributesClass and VolumeMode, ``Terminating`` once deleted) and ``printConfigMap`` (DATA
counts data and binaryData keys).
"""

from __future__ import annotations

from kubesim.printers.age import (
    human_duration,
    parse_timestamp,
    translate_timestamp_since,
)
from kubesim.printers.tables import (
    NONE,
    UNKNOWN,
    Column,
    PrintContext,
    age,
    object_meta,
)

NODE_UNREACHABLE_POD_REASON = "NodeLost"  # pkg/util/node.NodeUnreachablePodReason


NODE_LABEL_ROLE = "kubernetes.io/role"


LABEL_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"


def _has_condition_true(status: dict, ctype: str) -> bool:
    return any(c.get("type") == ctype and c.get("status") == "True"
               for c in status.get("conditions") or [])


def _condition_true(status: dict, ctype: str) -> bool:
    for cond in status.get("conditions") or []:
        if cond.get("type") == ctype:
            return cond.get("status") == "True"
    return False


def is_restartable_init_container(container: dict | None) -> bool:
    """A sidecar: an init container with ``restartPolicy: Always``."""
    return bool(container) and container.get("restartPolicy") == "Always"


def _last_termination_finished(cs: dict) -> float | None:
    terminated = (cs.get("lastState") or {}).get("terminated")
    if terminated is None:
        return None
    return parse_timestamp(terminated.get("finishedAt"))


def _later(a: float | None, b: float | None) -> float | None:
    if b is None:
        return a
    if a is None or b > a:
        return b
    return a


def pod_ready_status_restarts(pod: dict, now: float) -> tuple[str, str, str]:
    """printPod's READY, STATUS and RESTARTS cells for one pod."""
    meta, spec, status = object_meta(pod), pod.get("spec") or {}, pod.get("status") or {}
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
        object_meta(pod).get("name", ""), ready, reason, restarts, age(pod, ctx),
        pod_ip, spec.get("nodeName") or NONE, status.get("nominatedNodeName") or NONE, readiness,
    ]


# What printPod never reads, which a lister may leave out of the pods it prints (paths as
# ``Store.list``'s ``omit``; the managedFields no printer reads go too: tables.unread)
POD_UNREAD = ("metadata.annotations", "metadata.ownerReferences", "spec.volumes", "spec.tolerations",
              "spec.affinity")

POD_COLUMNS = [
    Column("Name", format="name"), Column("Ready"), Column("Status"), Column("Restarts"),
    Column("Age"), Column("IP", 1), Column("Node", 1), Column("Nominated Node", 1),
    Column("Readiness Gates", 1),
]


def find_node_roles(node: dict) -> list[str]:
    """Roles from ``node-role.kubernetes.io/<role>`` keys and a ``kubernetes.io/role`` value, sorted."""
    roles = set()
    for key, value in (object_meta(node).get("labels") or {}).items():
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
        object_meta(node).get("name", ""), node_status(node), ",".join(find_node_roles(node)) or NONE,
        age(node, ctx), info.get("kubeletVersion", ""),
        _node_address(node, "InternalIP"), _node_address(node, "ExternalIP"),
        info.get("osImage") or UNKNOWN, info.get("kernelVersion") or UNKNOWN,
        info.get("containerRuntimeVersion") or UNKNOWN,
    ]


# what printNode never reads (as POD_UNREAD)
NODE_UNREAD = ("metadata.annotations", "status.images", "status.capacity", "status.allocatable")

NODE_COLUMNS = [
    Column("Name", format="name"), Column("Status"), Column("Roles"), Column("Age"),
    Column("Version"), Column("Internal-IP", 1), Column("External-IP", 1), Column("OS-Image", 1),
    Column("Kernel-Version", 1), Column("Container-Runtime", 1),
]


def print_namespace(ns: dict, ctx: PrintContext) -> list[str]:
    return [object_meta(ns).get("name", ""), (ns.get("status") or {}).get("phase", ""), age(ns, ctx)]


NAMESPACE_COLUMNS = [Column("Name", format="name"), Column("Status"), Column("Age")]


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
        (event.get("message") or "").strip(), first, str(count), object_meta(event).get("name", ""),
    ]


EVENT_COLUMNS = [
    Column("Last Seen"), Column("Type"), Column("Reason"), Column("Object"),
    Column("Subobject", 1), Column("Source", 1), Column("Message"), Column("First Seen", 1),
    Column("Count", 1), Column("Name", 1, "name"),
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
    ann = object_meta(obj).get("annotations") or {}
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
    spec, status, meta = pv.get("spec") or {}, pv.get("status") or {}, object_meta(pv)
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
    spec, status, meta = pvc.get("spec") or {}, pvc.get("status") or {}, object_meta(pvc)
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


def print_config_map(cm: dict, ctx: PrintContext) -> list[str]:
    return [object_meta(cm).get("name", ""), str(len(cm.get("data") or {}) + len(cm.get("binaryData") or {})),
            age(cm, ctx)]


CONFIG_MAP_COLUMNS = [Column("Name", format="name"), Column("Data"), Column("Age")]


def print_secret(secret: dict, ctx: PrintContext) -> list[str]:
    """printSecret: TYPE as stored, DATA counts the data keys."""
    return [object_meta(secret).get("name", ""), str(secret.get("type") or ""), str(len(secret.get("data") or {})),
            age(secret, ctx)]


SECRET_COLUMNS = [Column("Name", format="name"), Column("Type"), Column("Data"), Column("Age")]


def print_service_account(sa: dict, ctx: PrintContext) -> list[str]:
    """printServiceAccount: v1.35 prints no SECRETS column any more."""
    return [object_meta(sa).get("name", ""), age(sa, ctx)]


SERVICE_ACCOUNT_COLUMNS = [Column("Name", format="name"), Column("Age")]


def print_limit_range(lr: dict, ctx: PrintContext) -> list[str]:
    """LimitRange has no printer in printers.go: the API server's default table convertor
    (staging/src/k8s.io/apiserver/pkg/registry/rest/table.go) prints NAME and CREATED AT."""
    meta = object_meta(lr)
    return [meta.get("name", ""), str(meta.get("creationTimestamp") or "")]


LIMIT_RANGE_COLUMNS = [Column("Name", format="name"), Column("Created At")]


def print_resource_quota(quota: dict, ctx: PrintContext) -> list[str]:
    """printResourceQuota: each ``status.hard`` resource as ``name: used/hard``, the
    ``limits.*`` ones under LIMIT and the others under REQUEST, in name order."""
    from kubesim.api.quantity import canonical

    status = quota.get("status") or {}
    hard, used = status.get("hard") or {}, status.get("used") or {}
    request, limit = [], []
    for name in sorted(hard):
        cell = f"{name}: {canonical(used[name]) if name in used else '0'}/{canonical(hard[name])}"
        pieces = name.split(".")
        (limit if len(pieces) > 1 and pieces[0] == "limits" else request).append(cell)
    return [object_meta(quota).get("name", ""), ", ".join(request), ", ".join(limit), age(quota, ctx)]


RESOURCE_QUOTA_COLUMNS = [Column("Name", format="name"), Column("Request"), Column("Limit"), Column("Age")]


# kind -> what its row function never reads (tables.unread)
UNREAD = {"Pod": POD_UNREAD, "Node": NODE_UNREAD}
