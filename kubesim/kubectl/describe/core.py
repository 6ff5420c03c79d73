"""describe for the core group's Pod, Node, Namespace and ConfigMap.

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go: ``describePod`` and its helpers
(``describeContainers``, ``describeStatus``, ``DescribeProbe``, ``describeVolumes``,
``describeTopologySpreadConstraints``), ``describeNode`` (``describeNodeLease``,
``describeNodeResource`` with its "Non-terminated Pods" and "Allocated resources" tables,
``getPodsTotalRequestsAndLimits``), ``describeNamespace`` (``DescribeResourceQuotas``,
``DescribeLimitRanges``), ``ConfigMapDescriber``; staging/src/k8s.io/kubectl/pkg/util/qos/qos.go (QoS Class when
``status.qosClass`` is empty), staging/src/k8s.io/component-helpers/resource/helpers.go
(``PodRequests``/``PodLimits``: ``kubesim.api.pods``) and staging/src/k8s.io/kubectl/pkg/util/
fieldpath (which ``fieldRef`` env values describe resolves: only ``metadata.name`` and
``metadata.namespace``, as the run against the real kubectl settled).

Simplifications, said here rather than hidden: volume kinds other than hostPath, emptyDir,
secret, configMap, projected, persistentVolumeClaim, downwardAPI, nfs and image print
``<unknown>``; in-place resize status resources are not considered in the node's request sums;
probes missing the API server's defaults (timeout 1s, period 10s, thresholds 1 and 3) print
those defaults; a LimitRange's resources print sorted (kubectl walks a Go map).
"""

from __future__ import annotations

import math

from kubesim.api.resource import add_resource_list, pod_limits, pod_requests
from kubesim.printers.age import translate_timestamp_since
from kubesim.printers.core import find_node_roles

TYPE_CHECKING = False  # (typing costs ~3 ms to import)
if TYPE_CHECKING:
    from kubesim.api.quantity import Quantity
from kubesim.kubectl.describe.writer import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    LEVEL_3,
    DescribeContext,
    PrefixWriter,
    describe_events,
    describe_resources,
    format_label_selector,
    format_rfc1123z,
    go_bool,
    object_meta,
    parse_list,
    parse_quantity,
    print_annotations_multiline,
    print_bool,
    print_labels_multiline,
    print_taints_multiline,
    print_tolerations_multiline,
    quantity_string,
    string_or_none,
    zero_quantity,
)


def describe_pod(pod: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(pod), pod.get("spec") or {}, pod.get("status") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    if spec.get("priority") is not None:
        w.write(LEVEL_0, f"Priority:\t{int(spec['priority'])}\n")
    if spec.get("priorityClassName"):
        w.write(LEVEL_0, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    if spec.get("runtimeClassName"):
        w.write(LEVEL_0, f"Runtime Class Name:\t{spec['runtimeClassName']}\n")
    if spec.get("serviceAccountName"):
        w.write(LEVEL_0, f"Service Account:\t{spec['serviceAccountName']}\n")
    if not spec.get("nodeName"):
        w.write(LEVEL_0, "Node:\t<none>\n")
    else:
        w.write(LEVEL_0, f"Node:\t{spec['nodeName']}/{status.get('hostIP', '')}\n")
    if status.get("startTime"):
        w.write(LEVEL_0, f"Start Time:\t{format_rfc1123z(status['startTime'])}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    phase = status.get("phase", "")
    if meta.get("deletionTimestamp") and phase not in ("Failed", "Succeeded"):
        lasts = translate_timestamp_since(meta["deletionTimestamp"], ctx.now)
        w.write(LEVEL_0, f"Status:\tTerminating (lasts {lasts})\n")
        w.write(LEVEL_0, f"Termination Grace Period:\t{int(meta.get('deletionGracePeriodSeconds') or 0)}s\n")
    else:
        w.write(LEVEL_0, f"Status:\t{phase}\n")
    if status.get("reason"):
        w.write(LEVEL_0, f"Reason:\t{status['reason']}\n")
    if status.get("message"):
        w.write(LEVEL_0, f"Message:\t{status['message']}\n")
    seccomp = (spec.get("securityContext") or {}).get("seccompProfile")
    if seccomp is not None:
        w.write(LEVEL_0, f"SeccompProfile:\t{seccomp.get('type', '')}\n")
        if seccomp.get("type") == "Localhost":
            w.write(LEVEL_0, f"LocalhostProfile:\t{seccomp.get('localhostProfile', '')}\n")
    w.write(LEVEL_0, f"IP:\t{status.get('podIP', '')}\n")
    pod_ips = status.get("podIPs") or []
    if not pod_ips:
        w.write(LEVEL_0, "IPs:\t<none>\n")
    else:
        w.write(LEVEL_0, "IPs:\n")
        for ip in pod_ips:
            w.write(LEVEL_1, f"IP:\t{ip.get('ip', '')}\n")
    controller = controlled_by(pod)
    if controller:
        w.write(LEVEL_0, f"Controlled By:\t{controller}\n")
    if status.get("nominatedNodeName"):
        w.write(LEVEL_0, f"NominatedNodeName:\t{status['nominatedNodeName']}\n")
    if spec.get("resources") is not None:
        w.write(LEVEL_0, "Resources:\n")
        describe_resources(spec["resources"], w, LEVEL_1)

    if spec.get("initContainers"):
        describe_containers("Init Containers", spec["initContainers"],
                             status.get("initContainerStatuses"), pod, w)
    describe_containers("Containers", spec.get("containers") or [],
                         status.get("containerStatuses"), pod, w)
    if spec.get("ephemeralContainers"):
        describe_containers("Ephemeral Containers", spec["ephemeralContainers"],
                             status.get("ephemeralContainerStatuses"), pod, w)
    if spec.get("readinessGates"):
        w.write(LEVEL_0, "Readiness Gates:\n  Type\tStatus\n")
        for gate in spec["readinessGates"]:
            gate_status = "<none>"
            for cond in status.get("conditions") or []:
                if cond.get("type") == gate.get("conditionType"):
                    gate_status = cond.get("status", "")
                    break
            w.write(LEVEL_1, f"{gate.get('conditionType', '')} \t{gate_status} \n")
    if status.get("conditions"):
        w.write(LEVEL_0, "Conditions:\n  Type\tStatus\n")
        for cond in status["conditions"]:
            w.write(LEVEL_1, f"{cond.get('type', '')} \t{cond.get('status', '')} \n")
    describe_volumes(spec.get("volumes"), w)
    w.write(LEVEL_0, f"QoS Class:\t{status.get('qosClass') or _qos_class(pod)}\n")
    print_labels_multiline(w, "Node-Selectors", spec.get("nodeSelector"))
    print_tolerations_multiline(w, "Tolerations", spec.get("tolerations"))
    describe_topology_spread(spec.get("topologySpreadConstraints"), w)
    if spec.get("schedulingGroup") is not None:
        w.write(LEVEL_0, "SchedulingGroup:\n")
        w.write(LEVEL_1, f"PodGroupName:\t{spec['schedulingGroup'].get('podGroupName', '')}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def controlled_by(obj: dict) -> str:
    for ref in object_meta(obj).get("ownerReferences") or []:
        if ref.get("controller"):
            return f"{ref.get('kind', '')}/{ref.get('name', '')}"
    return ""


def describe_containers(label: str, containers: list[dict], statuses: list[dict] | None,
                         pod: dict | None, w: PrefixWriter, space: str = "") -> None:
    """describeContainers. ``pod`` resolves ``fieldRef`` env values (EnvValueRetriever); a pod
    template has none (its values print empty). ``space`` indents a pod template's labels."""
    by_name = {s.get("name"): s for s in statuses or []}
    w.write(LEVEL_0, f"{space}{label}:{'' if containers else ' <none>'}\n")
    for c in containers:
        status = by_name.get(c.get("name"))
        ok = status is not None
        status = status or {}
        w.write(LEVEL_1, f"{' ' if space else ''}{c.get('name', '')}:\n")
        if ok:
            w.write(LEVEL_2, f"Container ID:\t{status.get('containerID', '')}\n")
        w.write(LEVEL_2, f"Image:\t{c.get('image', '')}\n")
        if ok:
            w.write(LEVEL_2, f"Image ID:\t{status.get('imageID', '')}\n")
        ports = c.get("ports") or []
        port_string = _container_ports(ports, "containerPort")
        if "," in port_string:
            w.write(LEVEL_2, f"Ports:\t{port_string}\n")
        else:
            w.write(LEVEL_2, f"Port:\t{string_or_none(port_string)}\n")
        host_port_string = _container_ports(ports, "hostPort")
        if "," in host_port_string:
            w.write(LEVEL_2, f"Host Ports:\t{host_port_string}\n")
        else:
            w.write(LEVEL_2, f"Host Port:\t{string_or_none(host_port_string)}\n")
        seccomp = (c.get("securityContext") or {}).get("seccompProfile")
        if seccomp is not None:
            w.write(LEVEL_2, f"SeccompProfile:\t{seccomp.get('type', '')}\n")
            if seccomp.get("type") == "Localhost":
                w.write(LEVEL_3, f"LocalhostProfile:\t{seccomp.get('localhostProfile', '')}\n")
        for title, key in (("Command", "command"), ("Args", "args")):
            if c.get(key):
                w.write(LEVEL_2, f"{title}:\n")
                for arg in c[key]:
                    for s in str(arg).split("\n"):
                        w.write(LEVEL_3, f"{s}\n")
        if ok:
            _describe_state("State", status.get("state") or {}, w)
            if (status.get("lastState") or {}).get("terminated") is not None:
                _describe_state("Last State", status["lastState"], w)
            w.write(LEVEL_2, f"Ready:\t{print_bool(status.get('ready'))}\n")
            w.write(LEVEL_2, f"Restart Count:\t{int(status.get('restartCount') or 0)}\n")
        describe_resources(c.get("resources") or {}, w, LEVEL_2)
        for title, key in (("Liveness", "livenessProbe"), ("Readiness", "readinessProbe"),
                           ("Startup", "startupProbe")):
            if c.get(key) is not None:
                w.write(LEVEL_2, f"{title}:\t{describe_probe(c[key])}\n")
        if c.get("envFrom"):
            _describe_env_from(c, w)
        _describe_env(c, pod, w)
        _describe_mounts(c, w)


def _container_ports(ports: list[dict], key: str) -> str:
    out = []
    for p in ports:
        s = f"{int(p.get(key) or 0)}/{p.get('protocol', 'TCP')}"
        if p.get("name"):
            s = f"{s} ({p['name']})"
        out.append(s)
    return ", ".join(out)


def _describe_state(state_name: str, state: dict, w: PrefixWriter) -> None:
    if state.get("running") is not None:
        w.write(LEVEL_2, f"{state_name}:\tRunning\n")
        w.write(LEVEL_3, f"Started:\t{format_rfc1123z(state['running'].get('startedAt'))}\n")
    elif state.get("waiting") is not None:
        w.write(LEVEL_2, f"{state_name}:\tWaiting\n")
        if state["waiting"].get("reason"):
            w.write(LEVEL_3, f"Reason:\t{state['waiting']['reason']}\n")
    elif state.get("terminated") is not None:
        t = state["terminated"]
        w.write(LEVEL_2, f"{state_name}:\tTerminated\n")
        if t.get("reason"):
            w.write(LEVEL_3, f"Reason:\t{t['reason']}\n")
        if t.get("message"):
            w.write(LEVEL_3, f"Message:\t{t['message']}\n")
        w.write(LEVEL_3, f"Exit Code:\t{int(t.get('exitCode') or 0)}\n")
        if int(t.get("signal") or 0) > 0:
            w.write(LEVEL_3, f"Signal:\t{int(t['signal'])}\n")
        w.write(LEVEL_3, f"Started:\t{format_rfc1123z(t.get('startedAt'))}\n")
        w.write(LEVEL_3, f"Finished:\t{format_rfc1123z(t.get('finishedAt'))}\n")
    else:
        w.write(LEVEL_2, f"{state_name}:\tWaiting\n")


def _int_or_string(v: object) -> str:
    return "" if v is None else str(v)


def describe_probe(probe: dict) -> str:
    """DescribeProbe, with the API server's probe defaults for fields left out."""
    attrs = (f"delay={int(probe.get('initialDelaySeconds') or 0)}s "
             f"timeout={int(probe.get('timeoutSeconds') or 1)}s "
             f"period={int(probe.get('periodSeconds') or 10)}s "
             f"#success={int(probe.get('successThreshold') or 1)} "
             f"#failure={int(probe.get('failureThreshold') or 3)}")
    if probe.get("exec") is not None:
        command = " ".join(str(x) for x in probe["exec"].get("command") or [])
        return f"exec [{command}] {attrs}"
    if probe.get("httpGet") is not None:
        h = probe["httpGet"]
        scheme = str(h.get("scheme") or "HTTP").lower()
        host, port = h.get("host", ""), _int_or_string(h.get("port"))
        if port:
            hostport = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        else:
            hostport = host
        return f"http-get {scheme}://{hostport}{h.get('path', '')} {attrs}"
    if probe.get("tcpSocket") is not None:
        t = probe["tcpSocket"]
        return f"tcp-socket {t.get('host', '')}:{_int_or_string(t.get('port'))} {attrs}"
    if probe.get("grpc") is not None:
        g = probe["grpc"]
        return f"grpc <pod>:{int(g.get('port') or 0)} {g.get('service', '')} {attrs}"
    return f"unknown {attrs}"


def _describe_env_from(c: dict, w: PrefixWriter) -> None:
    w.write(LEVEL_2, "Environment Variables from:\n")
    for e in c["envFrom"]:
        source, name, optional = "", "", False
        if e.get("configMapRef") is not None:
            source, name = "ConfigMap", e["configMapRef"].get("name", "")
            optional = bool(e["configMapRef"].get("optional"))
        elif e.get("secretRef") is not None:
            source, name = "Secret", e["secretRef"].get("name", "")
            optional = bool(e["secretRef"].get("optional"))
        if not e.get("prefix"):
            w.write(LEVEL_3, f"{name}\t{source}\tOptional: {go_bool(optional)}\n")
        else:
            w.write(LEVEL_3, f"{name}\t{source} with prefix '{e['prefix']}'\t"
                             f"Optional: {go_bool(optional)}\n")


def _field_path_value(pod: dict, api_version: str, path: str) -> str:
    """EnvValueRetriever: kubectl's scheme only converts the ``metadata.name`` and
    ``metadata.namespace`` field labels (the default conversion), so every other fieldRef
    (``spec.nodeName``, ``metadata.labels['x']``, ...) describes with an empty value."""
    if api_version != "v1" or path not in ("metadata.name", "metadata.namespace"):
        return ""
    return str(object_meta(pod).get(path.split(".")[1], ""))


def _container_resource_value(ref: dict, c: dict) -> str:
    """kubectl's ExtractContainerResourceValue for a ``resourceFieldRef``."""
    resource = ref.get("resource", "")
    divisor = parse_quantity(ref.get("divisor") or "0")
    if divisor.value == 0:
        divisor = parse_quantity("1")
    which, _, name = resource.partition(".")
    if which not in ("limits", "requests") or not (
            name in ("cpu", "memory", "ephemeral-storage") or name.startswith("hugepages-")):
        return ""
    raw = ((c.get("resources") or {}).get(which) or {}).get(name)
    q = parse_quantity(raw) if raw is not None else zero_quantity()
    if name == "cpu":
        return str(math.ceil(q.milli_value() / divisor.milli_value()))
    return str(math.ceil(q.int_value() / divisor.int_value()))


def _describe_env(c: dict, pod: dict | None, w: PrefixWriter) -> None:
    env = c.get("env") or []
    w.write(LEVEL_2, f"Environment:{'' if env else chr(9) + '<none>'}\n")
    for e in env:
        name = e.get("name", "")
        value_from = e.get("valueFrom")
        if value_from is None:
            for i, s in enumerate(str(e.get("value", "")).split("\n")):
                w.write(LEVEL_3, f"{name}:\t{s}\n" if i == 0 else f"\t{s}\n")
            continue
        if value_from.get("fieldRef") is not None:
            ref = value_from["fieldRef"]
            api_version = ref.get("apiVersion", "v1")
            value = "" if pod is None else _field_path_value(pod, api_version, ref.get("fieldPath", ""))
            w.write(LEVEL_3, f"{name}:\t{value} ({api_version}:{ref.get('fieldPath', '')})\n")
        elif value_from.get("resourceFieldRef") is not None:
            ref = value_from["resourceFieldRef"]
            value = _container_resource_value(ref, c)
            resource = ref.get("resource", "")
            if value == "0" and resource in ("limits.cpu", "limits.memory"):
                value = "node allocatable"
            w.write(LEVEL_3, f"{name}:\t{value} ({resource})\n")
        elif value_from.get("secretKeyRef") is not None:
            ref = value_from["secretKeyRef"]
            w.write(LEVEL_3, f"{name}:\t<set to the key '{ref.get('key', '')}' in secret "
                             f"'{ref.get('name', '')}'>\tOptional: {go_bool(ref.get('optional'))}\n")
        elif value_from.get("configMapKeyRef") is not None:
            ref = value_from["configMapKeyRef"]
            w.write(LEVEL_3, f"{name}:\t<set to the key '{ref.get('key', '')}' of config map "
                             f"'{ref.get('name', '')}'>\tOptional: {go_bool(ref.get('optional'))}\n")


def _describe_mounts(c: dict, w: PrefixWriter) -> None:
    mounts = c.get("volumeMounts") or []
    none = "" if mounts else "\t<none>"
    w.write(LEVEL_2, f"Mounts:{none}\n")
    for m in sorted(mounts, key=lambda m: m.get("mountPath", "")):
        flags = ["ro" if m.get("readOnly") else "rw"]
        if m.get("subPath"):
            flags.append(f'path="{m["subPath"]}"')
        w.write(LEVEL_3, f"{m.get('mountPath', '')} from {m.get('name', '')} ({','.join(flags)})\n")
    devices = c.get("volumeDevices") or []
    if devices:
        w.write(LEVEL_2, f"Devices:{none}\n")
        for d in sorted(devices, key=lambda d: d.get("devicePath", "")):
            w.write(LEVEL_3, f"{d.get('devicePath', '')} from {d.get('name', '')}\n")


def describe_volumes(volumes: list[dict] | None, w: PrefixWriter, space: str = "") -> None:
    if not volumes:
        w.write(LEVEL_0, f"{space}Volumes:\t<none>\n")
        return
    w.write(LEVEL_0, f"{space}Volumes:\n")
    for v in volumes:
        w.write(LEVEL_1, f"{' ' if space else ''}{v.get('name', '')}:\n")
        if v.get("hostPath") is not None:
            hp = v["hostPath"]
            w.write(LEVEL_2, "Type:\tHostPath (bare host directory volume)\n"
                             f"    Path:\t{hp.get('path', '')}\n"
                             f"    HostPathType:\t{hp.get('type') if hp.get('type') is not None else '<none>'}\n")
        elif v.get("emptyDir") is not None:
            ed = v["emptyDir"]
            size = ed.get("sizeLimit")
            size_s = quantity_string(size) if size and parse_quantity(size).value > 0 else "<unset>"
            w.write(LEVEL_2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"
                             f"    Medium:\t{ed.get('medium', '')}\n"
                             f"    SizeLimit:\t{size_s}\n")
        elif v.get("secret") is not None:
            s = v["secret"]
            w.write(LEVEL_2, "Type:\tSecret (a volume populated by a Secret)\n"
                             f"    SecretName:\t{s.get('secretName', '')}\n"
                             f"    Optional:\t{go_bool(s.get('optional'))}\n")
        elif v.get("configMap") is not None:
            cm = v["configMap"]
            w.write(LEVEL_2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n"
                             f"    Name:\t{cm.get('name', '')}\n"
                             f"    Optional:\t{go_bool(cm.get('optional'))}\n")
        elif v.get("nfs") is not None:
            n = v["nfs"]
            w.write(LEVEL_2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n"
                             f"    Server:\t{n.get('server', '')}\n"
                             f"    Path:\t{n.get('path', '')}\n"
                             f"    ReadOnly:\t{go_bool(n.get('readOnly'))}\n")
        elif v.get("persistentVolumeClaim") is not None:
            p = v["persistentVolumeClaim"]
            w.write(LEVEL_2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim "
                             "in the same namespace)\n"
                             f"    ClaimName:\t{p.get('claimName', '')}\n"
                             f"    ReadOnly:\t{go_bool(p.get('readOnly'))}\n")
        elif v.get("downwardAPI") is not None:
            w.write(LEVEL_2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n"
                             "    Items:\n")
            for item in v["downwardAPI"].get("items") or []:
                if item.get("fieldRef") is not None:
                    w.write(LEVEL_3, f"{item['fieldRef'].get('fieldPath', '')} -> {item.get('path', '')}\n")
                if item.get("resourceFieldRef") is not None:
                    w.write(LEVEL_3, f"{item['resourceFieldRef'].get('resource', '')} -> "
                                     f"{item.get('path', '')}\n")
        elif v.get("projected") is not None:
            w.write(LEVEL_2, "Type:\tProjected (a volume that contains injected data from multiple "
                             "sources)\n")
            for source in v["projected"].get("sources") or []:
                if source.get("secret") is not None:
                    w.write(LEVEL_2, f"SecretName:\t{source['secret'].get('name', '')}\n"
                                     f"    Optional:\t{go_bool(source['secret'].get('optional'))}\n")
                elif source.get("downwardAPI") is not None:
                    w.write(LEVEL_2, "DownwardAPI:\ttrue\n")
                elif source.get("configMap") is not None:
                    w.write(LEVEL_2, f"ConfigMapName:\t{source['configMap'].get('name', '')}\n"
                                     f"    Optional:\t{go_bool(source['configMap'].get('optional'))}\n")
                elif source.get("serviceAccountToken") is not None:
                    seconds = int(source["serviceAccountToken"].get("expirationSeconds") or 3600)
                    w.write(LEVEL_2, f"TokenExpirationSeconds:\t{seconds}\n")
        elif v.get("image") is not None:
            im = v["image"]
            w.write(LEVEL_2, "Type:\tImage (a container image or OCI artifact)\n"
                             f"    Reference:\t{im.get('reference', '')}\n"
                             f"    PullPolicy:\t{im.get('pullPolicy', '')}\n")
        else:
            w.write(LEVEL_1, "<unknown>\n")


def describe_topology_spread(constraints: list[dict] | None, w: PrefixWriter,
                              space: str = "") -> None:
    if not constraints:
        return
    w.write(LEVEL_0, f"{space}Topology Spread Constraints:\t")
    for i, tsc in enumerate(sorted(constraints, key=lambda t: t.get("topologyKey", ""))):
        if i != 0:
            w.write(LEVEL_0, space)
            w.write(LEVEL_0, "\t")
        w.write(LEVEL_0, f"{tsc.get('topologyKey', '')}:")
        w.write(LEVEL_0, str(tsc.get("whenUnsatisfiable", "")))
        w.write(LEVEL_0, f" when max skew {int(tsc.get('maxSkew') or 0)} is exceeded")
        if tsc.get("labelSelector") is not None:
            w.write(LEVEL_0, f" for selector {format_label_selector(tsc['labelSelector'])}")
        w.write(LEVEL_0, "\n")


def describe_node(node: dict, ctx: DescribeContext) -> str:
    meta, spec, status = object_meta(node), node.get("spec") or {}, node.get("status") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Roles:\t{','.join(find_node_roles(node)) or '<none>'}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"CreationTimestamp:\t{format_rfc1123z(meta.get('creationTimestamp'))}\n")
    print_taints_multiline(w, "Taints", spec.get("taints"))
    w.write(LEVEL_0, f"Unschedulable:\t{go_bool(spec.get('unschedulable'))}\n")

    if "lease" in ctx.extra and ctx.extra["lease"] is not None:
        lease_spec = ctx.extra["lease"].get("spec") or {}
        w.write(LEVEL_0, "Lease:\n")
        holder = lease_spec.get("holderIdentity")
        w.write(LEVEL_1, f"HolderIdentity:\t{'<unset>' if holder is None else holder}\n")
        for title, key in (("AcquireTime", "acquireTime"), ("RenewTime", "renewTime")):
            value = format_rfc1123z(lease_spec[key]) if lease_spec.get(key) else "<unset>"
            w.write(LEVEL_1, f"{title}:\t{value}\n")
    else:
        w.write(LEVEL_0, f'Lease:\tFailed to get lease: leases.coordination.k8s.io '
                         f'"{meta.get("name", "")}" not found\n')

    conditions = status.get("conditions") or []
    if conditions:
        w.write(LEVEL_0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\t"
                         "Reason\tMessage\n")
        w.write(LEVEL_1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in conditions:
            w.write(LEVEL_1, f"{c.get('type', '')} \t{c.get('status', '')} \t"
                             f"{format_rfc1123z(c.get('lastHeartbeatTime'))} \t"
                             f"{format_rfc1123z(c.get('lastTransitionTime'))} \t"
                             f"{c.get('reason', '')} \t{c.get('message', '')}\n")
    w.write(LEVEL_0, "Addresses:\n")
    for address in status.get("addresses") or []:
        w.write(LEVEL_1, f"{address.get('type', '')}:\t{address.get('address', '')}\n")
    for title, key in (("Capacity", "capacity"), ("Allocatable", "allocatable")):
        values = status.get(key) or {}
        if values:
            w.write(LEVEL_0, f"{title}:\n")
            for name in sorted(values):
                w.write(LEVEL_0, f"  {name}:\t{quantity_string(values[name])}\n")
    info = status.get("nodeInfo") or {}
    w.write(LEVEL_0, "System Info:\n")
    for title, key in (("Machine ID", "machineID"), ("System UUID", "systemUUID"),
                       ("Boot ID", "bootID"), ("Kernel Version", "kernelVersion"),
                       ("OS Image", "osImage"), ("Operating System", "operatingSystem"),
                       ("Architecture", "architecture"),
                       ("Container Runtime Version", "containerRuntimeVersion"),
                       ("Kubelet Version", "kubeletVersion")):
        w.write(LEVEL_0, f"  {title}:\t{info.get(key, '')}\n")
    if spec.get("podCIDR"):
        w.write(LEVEL_0, f"PodCIDR:\t{spec['podCIDR']}\n")
    if spec.get("podCIDRs"):
        w.write(LEVEL_0, f"PodCIDRs:\t{','.join(spec['podCIDRs'])}\n")
    if spec.get("providerID"):
        w.write(LEVEL_0, f"ProviderID:\t{spec['providerID']}\n")
    pods = [p for p in ctx.pods
            if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    pods.sort(key=lambda p: (object_meta(p).get("namespace", ""), object_meta(p).get("name", "")))
    _describe_node_resource(pods, node, w, ctx.now)
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def _go_int64(x: float) -> int:
    """Go's int64(float64) on amd64: truncation; NaN and ±Inf become math.MinInt64."""
    if math.isnan(x) or math.isinf(x):
        return -(2 ** 63)
    return int(x)


def _percent(part: int, whole: int) -> int:
    try:
        return _go_int64(float(part) / float(whole) * 100)
    except ZeroDivisionError:
        return _go_int64(math.nan if part == 0 else math.copysign(math.inf, part))


def _describe_node_resource(pods: list[dict], node: dict, w: PrefixWriter, now: float) -> None:
    status = node.get("status") or {}
    w.write(LEVEL_0, f"Non-terminated Pods:\t({len(pods)} in total)\n")
    w.write(LEVEL_1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n")
    w.write(LEVEL_1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n")
    allocatable = parse_list(status.get("allocatable") or status.get("capacity"))
    zero = zero_quantity()
    alloc_cpu = allocatable.get("cpu", zero).milli_value()
    alloc_mem = allocatable.get("memory", zero).int_value()
    for pod in pods:
        req, lim = pod_requests(pod), pod_limits(pod)
        cpu_req, cpu_lim = req.get("cpu", zero), lim.get("cpu", zero)
        mem_req, mem_lim = req.get("memory", zero), lim.get("memory", zero)
        meta = object_meta(pod)
        w.write(LEVEL_1, f"{meta.get('namespace', '')}\t{meta.get('name', '')}\t\t"
                         f"{cpu_req} ({_percent(cpu_req.milli_value(), alloc_cpu)}%)\t"
                         f"{cpu_lim} ({_percent(cpu_lim.milli_value(), alloc_cpu)}%)\t"
                         f"{mem_req} ({_percent(mem_req.int_value(), alloc_mem)}%)\t"
                         f"{mem_lim} ({_percent(mem_lim.int_value(), alloc_mem)}%)\t"
                         f"{translate_timestamp_since(meta.get('creationTimestamp'), now)}\n")

    w.write(LEVEL_0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., "
                     "overcommitted.)\n")
    w.write(LEVEL_1, "Resource\tRequests\tLimits\n")
    w.write(LEVEL_1, "--------\t--------\t------\n")
    reqs: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    for pod in pods:
        add_resource_list(reqs, pod_requests(pod))
        add_resource_list(limits, pod_limits(pod))

    def row(name: str, scale: str) -> None:
        r, l, a = reqs.get(name, zero), limits.get(name, zero), allocatable.get(name, zero)
        value = (lambda q: q.milli_value()) if scale == "milli" else (lambda q: q.int_value())
        whole = value(a)
        rp = _percent(value(r), whole) if whole != 0 else 0
        lp = _percent(value(l), whole) if whole != 0 else 0
        w.write(LEVEL_1, f"{name}\t{r} ({rp}%)\t{l} ({lp}%)\n")

    row("cpu", "milli")
    row("memory", "value")
    row("ephemeral-storage", "value")
    huge = sorted(n for n in allocatable if n.startswith("hugepages-"))
    extended = sorted(n for n in allocatable
                      if not n.startswith("hugepages-")
                      and n not in ("cpu", "memory", "ephemeral-storage", "pods"))
    for name in huge:
        row(name, "value")
    for name in extended:
        w.write(LEVEL_1, f"{name}\t{reqs.get(name, zero)}\t{limits.get(name, zero)}\n")


_QUOTA_SCOPE_HELP = {
    "Terminating": "Matches all pods that have an active deadline. These pods have a limited "
                   "lifespan on a node before being actively terminated by the system.",
    "NotTerminating": "Matches all pods that do not have an active deadline. These pods usually "
                      "include long running pods whose container command is not expected to "
                      "terminate.",
    "BestEffort": "Matches all pods that do not have resource requirements set. These pods have "
                  "a best effort quality of service.",
    "NotBestEffort": "Matches all pods that have at least one resource requirement set. These "
                     "pods have a burstable or guaranteed quality of service.",
}


def describe_namespace(ns: dict, ctx: DescribeContext) -> str:
    meta, status = object_meta(ns), ns.get("status") or {}
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"Status:\t{status.get('phase', '')}\n")
    if status.get("conditions"):
        w.write(LEVEL_0, "Conditions:\n")
        w.write(LEVEL_1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n")
        w.write(LEVEL_1, "----\t------\t------------------\t------\t-------\n")
        for c in status["conditions"]:
            w.write(LEVEL_1, f"{c.get('type', '')}\t{c.get('status', '')}\t"
                             f"{format_rfc1123z(c.get('lastTransitionTime'))}\t"
                             f"{c.get('reason', '')}\t{c.get('message', '')}\n")
    w.write(LEVEL_0, "\n")
    _describe_resource_quotas(ctx.extra.get("resource_quotas") or [], w)
    w.write(LEVEL_0, "\n")
    _describe_limit_ranges(ctx.extra.get("limit_ranges") or [], w)
    return w.text()


def _describe_resource_quotas(quotas: list[dict], w: PrefixWriter) -> None:
    if not quotas:
        w.write(LEVEL_0, "No resource quota.\n")
        return
    w.write(LEVEL_0, "Resource Quotas\n")
    for q in sorted(quotas, key=lambda q: object_meta(q).get("name", "")):
        w.write(LEVEL_1, f"Name:\t{object_meta(q).get('name', '')}\n")
        scopes = sorted((q.get("spec") or {}).get("scopes") or [])
        if scopes:
            w.write(LEVEL_1, f"Scopes:\t{', '.join(scopes)}\n")
            for scope in scopes:
                if scope in _QUOTA_SCOPE_HELP:
                    w.write(LEVEL_1, f"* {_QUOTA_SCOPE_HELP[scope]}\n")
        w.write(LEVEL_1, "Resource\tUsed\tHard\n")
        w.write(LEVEL_1, "--------\t---\t---\n")
        hard = (q.get("status") or {}).get("hard") or {}
        used = (q.get("status") or {}).get("used") or {}
        for name in sorted(hard):
            used_s = quantity_string(used[name]) if name in used else "0"
            w.write(LEVEL_1, f"{name}\t{used_s}\t{quantity_string(hard[name])}\n")


def _describe_limit_ranges(limit_ranges: list[dict], w: PrefixWriter) -> None:
    if not limit_ranges:
        w.write(LEVEL_0, "No LimitRange resource.\n")
        return
    w.write(LEVEL_0, "Resource Limits\n Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\t"
                     "Max Limit/Request Ratio\n")
    w.write(LEVEL_0, " ----\t--------\t---\t---\t---------------\t-------------\t"
                     "-----------------------\n")
    for lr in limit_ranges:
        _describe_limit_range_spec(lr.get("spec") or {}, " ", w)


def _describe_limit_range_spec(spec: dict, prefix: str, w: PrefixWriter) -> None:
    """describeLimitRangeSpec: a row per item and resource, ``-`` where the item sets no value."""
    for item in spec.get("limits") or []:
        fields = ("min", "max", "defaultRequest", "default", "maxLimitRequestRatio")
        # kubectl walks a Go map here (random order); kubesim sorts the resource names
        names = sorted({n for f in fields for n in (item.get(f) or {})})
        for name in names:
            cells = [quantity_string(item[f][name]) if name in (item.get(f) or {}) else "-"
                     for f in fields]
            w.write(LEVEL_0, f"{prefix}{item.get('type', '')}\t{name}\t" + "\t".join(cells) + "\n")


def describe_limit_range(lr: dict, ctx: DescribeContext) -> str:
    """describeLimitRange: name, namespace and the limits table (no labels, no events)."""
    meta = object_meta(lr)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    w.write(LEVEL_0, "Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n")
    w.write(LEVEL_0, "----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n")
    _describe_limit_range_spec(lr.get("spec") or {}, "", w)
    return w.text()


def describe_resource_quota(quota: dict, ctx: DescribeContext) -> str:
    """describeQuota: name, namespace, the scopes with their help, and each ``status.hard``
    resource with its use (printed in the hard value's format when the two differ)."""
    from kubesim.api.quantity import format_quantity, parse

    meta = object_meta(quota)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    scopes = sorted((quota.get("spec") or {}).get("scopes") or [])
    if scopes:
        w.write(LEVEL_0, f"Scopes:\t{', '.join(scopes)}\n")
        for scope in scopes:
            if scope in _QUOTA_SCOPE_HELP:
                w.write(LEVEL_0, f" * {_QUOTA_SCOPE_HELP[scope]}\n")
    w.write(LEVEL_0, "Resource\tUsed\tHard\n")
    w.write(LEVEL_0, "--------\t----\t----\n")
    status = quota.get("status") or {}
    hard, used = status.get("hard") or {}, status.get("used") or {}
    for name in sorted(hard):
        h = parse(hard[name])
        u = parse(used[name]) if name in used else None
        if u is None:
            used_s = format_quantity(0, h.format)
        elif u.format != h.format:
            used_s = format_quantity(u.int_value(), h.format)
        else:
            used_s = str(u)
        w.write(LEVEL_0, f"{name}\t{used_s}\t{h}\n")
    return w.text()


def _qos_class(pod: dict) -> str:
    from kubesim.api.pods import qos_class

    return qos_class(pod)


def describe_config_map(cm: dict, ctx: DescribeContext) -> str:
    """ConfigMapDescriber: each data key and its value, each binary key and its size, in key order."""
    meta = object_meta(cm)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, "\nData\n====\n")
    data = cm.get("data") or {}
    for key in sorted(data):
        w.write(LEVEL_0, f"{key}:\n----\n")
        w.write(LEVEL_0, f"{data[key]}\n")
        w.write(LEVEL_0, "\n")
    w.write(LEVEL_0, "\nBinaryData\n====\n")
    binary = cm.get("binaryData") or {}
    for key in sorted(binary):
        w.write(LEVEL_0, f"{key}: {_decoded_length(binary[key])} bytes\n")
    w.write(LEVEL_0, "\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()


def _decoded_length(b64: str) -> int:
    import base64
    import binascii

    try:
        return len(base64.b64decode(b64, validate=True))
    except (binascii.Error, ValueError):
        return 0


def describe_secret(secret: dict, ctx: DescribeContext) -> str:
    """describeSecret: the type, then each data key with its size in bytes (a
    service-account-token Secret's ``token`` is shown); never other values, and no events."""
    from kubesim.api.core.secret_validation import (
        SECRET_TYPE_SERVICE_ACCOUNT_TOKEN,
        SERVICE_ACCOUNT_TOKEN_KEY,
        decoded,
    )

    meta = object_meta(secret)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    w.write(LEVEL_0, f"\nType:\t{secret.get('type') or ''}\n")
    w.write(LEVEL_0, "\nData\n====\n")
    data = secret.get("data") or {}
    for key in sorted(data):
        value = decoded(data[key])
        if key == SERVICE_ACCOUNT_TOKEN_KEY and secret.get("type") == SECRET_TYPE_SERVICE_ACCOUNT_TOKEN:
            w.write(LEVEL_0, f"{key}:\t{value.decode('utf-8', 'replace')}\n")
        else:
            w.write(LEVEL_0, f"{key}:\t{len(value)} bytes\n")
    return w.text()


def describe_service_account(sa: dict, ctx: DescribeContext) -> str:
    """describeServiceAccount: its image pull secrets, then its events."""
    meta = object_meta(sa)
    w = PrefixWriter()
    w.write(LEVEL_0, f"Name:\t{meta.get('name', '')}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.get('namespace', '')}\n")
    print_labels_multiline(w, "Labels", meta.get("labels"))
    print_annotations_multiline(w, "Annotations", meta.get("annotations"))
    header, empty = "Image pull secrets:", "                   "
    names = [str((s or {}).get("name") or "") for s in sa.get("imagePullSecrets") or () if isinstance(s, dict)]
    if not names:
        w.write(LEVEL_0, f"{header}\t<none>\n")
    for i, name in enumerate(names):
        w.write(LEVEL_0, f"{header if i == 0 else empty}\t{name}\n")
    describe_events(ctx.events, w, ctx.now)
    return w.text()
