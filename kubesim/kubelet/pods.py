"""The simulated kubelet's pod sync: a pod bound to a node is started there.

This is the foundation's kubelet: it admits a bound pod, gives it an IP from the node's podCIDR
(host-network pods take the node's address), and reports it Running with its containers started,
writing the status and events a real kubelet writes for a pod whose images are present
(pkg/kubelet/kubelet.go syncPod, pkg/kubelet/status/generate.go for the conditions,
pkg/kubelet/kuberuntime/kuberuntime_container.go for the Pulled/Created/Started events).
Container behaviour (commands that exit, probes, restarts, termination) belongs to the kubelet
issue; until then every container runs.
"""

from __future__ import annotations

import hashlib
import ipaddress

from kubesim.kubelet.node import internal_ip


def _container_id(pod_uid: str, name: str) -> str:
    return "containerd://" + hashlib.sha256(f"{pod_uid}/{name}".encode()).hexdigest()


def _image_ref(image: str) -> tuple[str, str]:
    """(status.image, status.imageID) as containerd reports them for a reference."""
    name = image
    if "@" not in name:
        last = name.rsplit("/", 1)[-1]
        if ":" not in last:
            name += ":latest"
    first = name.split("/", 1)[0]
    if "/" not in name or ("." not in first and ":" not in first and first != "localhost"):
        name = "docker.io/" + ("library/" + name if "/" not in name else name)
    repo = name.split("@")[0].rsplit(":", 1)[0] if "@" not in name else name.split("@")[0]
    digest = hashlib.sha256(name.encode()).hexdigest()
    return name, f"{repo}@sha256:{digest}"


def allocate_ip(node: dict, pods_on_node: list[dict]) -> str:
    cidr = (node.get("spec") or {}).get("podCIDR")
    if not cidr:
        return ""
    net = ipaddress.ip_network(cidr, strict=False)
    used = {(p.get("status") or {}).get("podIP") for p in pods_on_node}
    for i in range(2, net.num_addresses - 1):
        ip = str(net.network_address + i)
        if ip not in used:
            return ip
    return ""


def needs_start(pod: dict) -> bool:
    st = pod.get("status") or {}
    return bool((pod.get("spec") or {}).get("nodeName")) and not st.get("startTime") \
        and not (pod.get("metadata") or {}).get("deletionTimestamp")


def start(pod: dict, node: dict, pods_on_node: list[dict], ctx) -> None:
    """Admit and start ``pod`` on ``node``: status, conditions, container statuses, events."""
    now = ctx.stamp()
    spec = pod["spec"]
    st = pod.setdefault("status", {})
    host_ip = internal_ip(node)
    pod_ip = host_ip if spec.get("hostNetwork") else allocate_ip(node, pods_on_node)
    uid = pod["metadata"].get("uid", "")

    def cond(type_: str) -> dict:
        return {"lastProbeTime": None, "lastTransitionTime": now, "status": "True", "type": type_}

    scheduled = next((c for c in st.get("conditions") or [] if c.get("type") == "PodScheduled"), None)
    st["conditions"] = [cond("PodReadyToStartContainers"), cond("Initialized"), cond("Ready"),
                        cond("ContainersReady"), scheduled or cond("PodScheduled")]
    st["hostIP"] = host_ip
    st["hostIPs"] = [{"ip": host_ip}]
    st["phase"] = "Running"
    st["podIP"] = pod_ip
    st["podIPs"] = [{"ip": pod_ip}] if pod_ip else []
    st["startTime"] = now
    from kubesim.api.pods import qos_class

    st["qosClass"] = qos_class(pod)
    statuses = []
    init_statuses = []  # init containers complete at once until the kubelet issue runs them
    for c in spec.get("initContainers") or []:
        image, image_id = _image_ref(c.get("image", ""))
        init_statuses.append({
            "containerID": _container_id(uid, c["name"]), "image": image, "imageID": image_id,
            "lastState": {}, "name": c["name"], "ready": True, "restartCount": 0, "started": False,
            "state": {"terminated": {"containerID": _container_id(uid, c["name"]), "exitCode": 0,
                                     "finishedAt": now, "reason": "Completed", "startedAt": now}},
        })
    for c in spec.get("containers") or []:
        image, image_id = _image_ref(c.get("image", ""))
        statuses.append({
            "containerID": _container_id(uid, c["name"]), "image": image, "imageID": image_id,
            "lastState": {}, "name": c["name"], "ready": True, "restartCount": 0, "started": True,
            "state": {"running": {"startedAt": now}},
        })
    if init_statuses:
        st["initContainerStatuses"] = init_statuses
    st["containerStatuses"] = statuses
    host = node["metadata"]["name"]
    for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        path = f"spec.{'initContainers' if c in (spec.get('initContainers') or []) else 'containers'}{{{c['name']}}}"
        ctx.record(pod, "Normal", "Pulled",
                   f'Container image "{c.get("image", "")}" already present on machine', "kubelet", host, path)
        ctx.record(pod, "Normal", "Created", f"Created container: {c['name']}", "kubelet", host, path)
        ctx.record(pod, "Normal", "Started", f"Started container {c['name']}", "kubelet", host, path)
