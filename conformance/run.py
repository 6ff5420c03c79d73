#!/usr/bin/env python3
"""Run kubectl scenarios against the conformance oracle (a real v1.35 control plane with KWOK
kubelets, started by conformance/up) and against kubesim, and diff what they print.

    python conformance/run.py conformance/scenarios/*.yaml
    python conformance/run.py --no-fail -k drain conformance/scenarios/*

A scenario is YAML (see conformance/README.md, "Writing a scenario"):

    name: short-name
    nodes:                      # fake nodes: KWOK nodes on the real side, Node manifests in kubesim
    - {name: node01, cpu: "4", memory: 8Gi, pods: 110, labels: {...}, taints: [...]}
    files:                      # optional: files written to a temp dir, same path on both sides
      bad.yaml: |
        ...
    steps:
    - kubectl get nodes                       # run on both sides and compared
    - run: kubectl apply -f -                 # the long form
      stdin: |
        apiVersion: v1 ...
      compare: false                          # setup: run on both, not compared
      sort: true                              # compare table rows sorted (order is incidental)
      tied: [node01, node02]                  # upstream draws among equal scores: these node
                                              # names become <tied-node> in this step's output
      wait: 2s                                # extra real-side wait after the step (and settle)
      settle: false                           # do not wait for the real cluster to settle
    - apply: |                                # shorthand for kubectl apply -f - (compare: false)
        ...
    - sleep: 5s                               # real side sleeps; kubesim `advance 5s`
    - advance: 30s                            # kubesim `advance 30s`; the real side only settles
                                              # (kubelet-side waits that KWOK skips, e.g. grace periods)

Python 3.11, stdlib + PyYAML.
"""

from __future__ import annotations

import argparse
import base64
import difflib
import http.client
import json
import os
import re
import shlex
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
HOME_DIR = Path(os.environ.get("KUBESIM_CONFORMANCE_HOME", Path.home() / ".cache" / "kubesim-conformance"))
KUBECONFIG = HOME_DIR / "kubeconfig"
PINNED_NOW = "2026-11-22T10:00:00Z"
SEED = "42"

# Verbs that do not change the cluster: no settling needed after them on the real side.
READ_ONLY = {"get", "describe", "events", "logs", "api-resources", "api-versions", "explain", "version",
             "top", "auth", "config", "wait"}
SYSTEM_NAMESPACES = {"default", "kube-system", "kube-public", "kube-node-lease"}

# Events that only a kubelet records (KWOK records none of them): dropped on both sides.
KUBELET_REASONS = {
    "Pulling", "Pulled", "Created", "Started", "Killing", "BackOff", "Unhealthy", "Failed",
    "ErrImagePull", "ImagePullBackOff", "SandboxChanged", "FailedMount", "FailedCreatePodSandBox",
    "Starting", "NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID",
    "NodeAllocatableEnforced", "NodeReady", "NodeNotReady", "Rebooted", "ExceededGracePeriod",
    "InvalidDiskCapacity", "ProbeWarning", "FailedPostStartHook", "FailedPreStopHook",
    "SuccessfulMountVolume", "NodeNotSchedulable", "NodeSchedulable", "OutOfcpu", "OutOfmemory",
}
# Pod conditions only a kubelet sets.
KUBELET_POD_CONDITIONS = {"PodReadyToStartContainers"}

SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand


def parse_duration(s) -> float:
    if isinstance(s, (int, float)):
        return float(s)
    total, n = 0.0, ""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    i = 0
    s = str(s).strip()
    while i < len(s):
        c = s[i]
        if c.isdigit() or c == ".":
            n += c
            i += 1
            continue
        u = "ms" if s[i:i + 2] == "ms" else c
        total += float(n) * units[u]
        n = ""
        i += len(u)
    if n:
        total += float(n)
    return total


# ----------------------------------------------------------------------------------------------
# The real cluster: kubectl + a direct HTTPS client for settling and clean-up


class Real:
    def __init__(self, kubeconfig: Path, kubectl: str):
        self.kubeconfig = kubeconfig
        self.kubectl = kubectl
        cfg = yaml.safe_load(kubeconfig.read_text())
        cluster = cfg["clusters"][0]["cluster"]
        user = cfg["users"][0]["user"]
        m = re.match(r"https://([^:/]+):(\d+)", cluster["server"])
        self.host, self.port = m.group(1), int(m.group(2))
        self._tmp = tempfile.mkdtemp(prefix="kubesim-conformance-tls-")
        ca, crt, key = (Path(self._tmp) / n for n in ("ca.crt", "client.crt", "client.key"))
        ca.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
        crt.write_bytes(base64.b64decode(user["client-certificate-data"]))
        key.write_bytes(base64.b64decode(user["client-key-data"]))
        self.ctx = ssl.create_default_context(cafile=str(ca))
        self.ctx.load_cert_chain(str(crt), str(key))
        self.conn = None

    def request(self, method: str, path: str, body=None):
        for attempt in range(3):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=30)
                data = json.dumps(body).encode() if body is not None else None
                headers = {"Accept": "application/json"}
                if data is not None:
                    headers["Content-Type"] = "application/json"
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                payload = r.read()
                try:
                    return r.status, (json.loads(payload) if payload else None)
                except ValueError:
                    return r.status, payload.decode(errors="replace")
            except (OSError, http.client.HTTPException):
                self.conn = None
                if attempt == 2:
                    raise
                time.sleep(0.5)

    def get(self, path: str):
        status, body = self.request("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body}")
        return body

    def healthy(self) -> bool:
        try:
            status, _ = self.request("GET", "/readyz")
            return status == 200
        except OSError:
            return False

    def run(self, argv: list[str], stdin: str | None, cwd: str) -> tuple[int, str, str]:
        env = dict(os.environ, KUBECONFIG=str(self.kubeconfig))
        env.pop("KUBESIM_STATE", None)
        p = subprocess.run([self.kubectl] + argv, input=stdin or "", capture_output=True, text=True, env=env,
                           cwd=cwd, timeout=600)
        return p.returncode, p.stdout, p.stderr

    # What moves while the control plane works: every object of the kinds the scenarios use.
    WATCHED = [
        "/api/v1/pods", "/api/v1/events", "/api/v1/nodes", "/api/v1/persistentvolumeclaims",
        "/api/v1/persistentvolumes", "/apis/apps/v1/deployments", "/apis/apps/v1/replicasets",
        "/apis/apps/v1/daemonsets", "/apis/apps/v1/controllerrevisions", "/apis/policy/v1/poddisruptionbudgets",
        "/api/v1/namespaces",
    ]

    def fingerprint(self) -> tuple:
        fp = []
        for path in self.WATCHED:
            items = self.get(path)["items"]
            fp.append(tuple(sorted((i["metadata"].get("namespace", ""), i["metadata"]["name"],
                                    i["metadata"]["resourceVersion"]) for i in items)))
        return tuple(fp)

    def settle(self, quiet: float = 1.2, minimum: float = 0.3, timeout: float = 60.0):
        """Wait until no watched object has changed for `quiet` seconds."""
        time.sleep(minimum)
        start = time.monotonic()
        last, since = self.fingerprint(), time.monotonic()
        while time.monotonic() - since < quiet:
            if time.monotonic() - start > timeout:
                print(f"  (real cluster still changing after {timeout:.0f}s; going on)", file=sys.stderr)
                return
            time.sleep(0.2)
            fp = self.fingerprint()
            if fp != last:
                last, since = fp, time.monotonic()

    def delete(self, path: str, body=None):
        status, resp = self.request("DELETE", path, body)
        if status not in (200, 202, 404):
            raise RuntimeError(f"DELETE {path}: {status} {resp}")

    def clean(self):
        """Delete what earlier scenarios created: user namespaces, workloads, events, nodes, volumes..."""
        old_nodes = {n["metadata"]["name"] for n in self.get("/api/v1/nodes")["items"]}
        force = {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                 "propagationPolicy": "Background"}
        for ns in self.get("/api/v1/namespaces")["items"]:
            name = ns["metadata"]["name"]
            if name not in SYSTEM_NAMESPACES:
                self.delete(f"/api/v1/namespaces/{name}")
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
            for path in (f"/apis/apps/v1/namespaces/{ns}/deployments", f"/apis/apps/v1/namespaces/{ns}/daemonsets",
                         f"/apis/apps/v1/namespaces/{ns}/replicasets", f"/apis/apps/v1/namespaces/{ns}/statefulsets",
                         f"/apis/batch/v1/namespaces/{ns}/jobs", f"/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets",
                         f"/apis/apps/v1/namespaces/{ns}/controllerrevisions"):
                self.delete(path, force)
            for pod in self.get(f"/api/v1/namespaces/{ns}/pods")["items"]:
                self.delete(f"/api/v1/namespaces/{ns}/pods/{pod['metadata']['name']}", force)
            for pvc in self.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims")["items"]:
                n = pvc["metadata"]["name"]
                self._drop_finalizers(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{n}")
                self.delete(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{n}")
        for pv in self.get("/api/v1/persistentvolumes")["items"]:
            self._drop_finalizers(f"/api/v1/persistentvolumes/{pv['metadata']['name']}")
            self.delete(f"/api/v1/persistentvolumes/{pv['metadata']['name']}")
        for path in ("/apis/storage.k8s.io/v1/storageclasses", "/apis/node.k8s.io/v1/runtimeclasses",
                     "/apis/storage.k8s.io/v1/csinodes", "/api/v1/nodes",
                     "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"):
            self.delete(path)
        for pc in self.get("/apis/scheduling.k8s.io/v1/priorityclasses")["items"]:
            if not pc["metadata"]["name"].startswith("system-"):
                self.delete(f"/apis/scheduling.k8s.io/v1/priorityclasses/{pc['metadata']['name']}")
        # Wait for the pods and namespaces to be gone, then drop every event.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            pods = self.get("/api/v1/pods")["items"]
            nss = [n for n in self.get("/api/v1/namespaces")["items"] if n["metadata"]["name"] not in SYSTEM_NAMESPACES]
            pvs = self.get("/api/v1/persistentvolumes")["items"]
            nodes = self.get("/api/v1/nodes")["items"]
            if not pods and not nss and not pvs and not nodes:
                break
            time.sleep(0.5)
        else:
            raise RuntimeError("the real cluster did not clean up in 120s")
        if old_nodes:
            # Let the node lifecycle controller (a pass every --node-monitor-period, 5 s) see the
            # nodes gone (its RemovingNode events): a node of the same name re-created before
            # that is not "registered" again (no RegisteredNode event).
            self.wait_node_events("RemovingNode", old_nodes, key="name")
        for ns in SYSTEM_NAMESPACES:
            self.delete(f"/api/v1/namespaces/{ns}/events")
        self.settle(quiet=1.0, minimum=0.2)
        for ns in SYSTEM_NAMESPACES:
            self.delete(f"/api/v1/namespaces/{ns}/events")

    def wait_node_events(self, reason: str, ids: set, key: str = "uid", timeout: float = 20.0):
        """Wait for the node lifecycle controller's event `reason` on each node (by uid or name)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            seen = {e["involvedObject"].get(key) for e in
                    self.get(f"/api/v1/namespaces/default/events?fieldSelector=reason%3D{reason}")["items"]}
            if ids <= seen:
                return
            time.sleep(0.5)
        print(f"  (no {reason} event for every node after {timeout:.0f}s; going on)", file=sys.stderr)

    def _drop_finalizers(self, path: str):
        status, obj = self.request("GET", path)
        if status == 200 and obj["metadata"].get("finalizers"):
            obj["metadata"]["finalizers"] = []
            self.request("PUT", path, obj)

    def pods(self) -> list[dict]:
        return self.get("/api/v1/pods")["items"]


# ----------------------------------------------------------------------------------------------
# kubesim: a fresh state directory per scenario, the clock pinned


class Sim:
    def __init__(self, kubesim: list[str], state: str, pythonpath: str | None = None):
        self.kubesim = kubesim
        self.state = state
        self.env = dict(os.environ, KUBESIM_NOW=PINNED_NOW, KUBESIM_SEED=SEED, KUBESIM_STATE=state)
        self.env.pop("KUBECONFIG", None)
        if pythonpath:
            self.env["PYTHONPATH"] = pythonpath

    def run(self, argv: list[str], stdin: str | None, cwd: str) -> tuple[int, str, str]:
        p = subprocess.run(self.kubesim + argv, input=stdin or "", capture_output=True, text=True,
                           env=self.env, cwd=cwd, timeout=600)
        return p.returncode, p.stdout, p.stderr

    def ok(self, argv: list[str], stdin: str | None = None) -> str:
        code, out, err = self.run(argv, stdin, os.path.dirname(self.state) or "/")
        if code != 0:
            raise RuntimeError(f"kubesim {' '.join(argv)} failed: {err}")
        return out

    def pods(self) -> list[dict]:
        return json.loads(self.ok(["get", "pods", "-A", "-o", "json"]))["items"]


# ----------------------------------------------------------------------------------------------
# Nodes


def node_manifest(spec: dict) -> dict:
    """The Node manifest both sides start from (kubesim registers it as a kubelet would)."""
    labels = {"kubernetes.io/hostname": spec["name"]}
    labels.update(spec.get("labels") or {})
    res = {"cpu": str(spec.get("cpu", "4")), "memory": str(spec.get("memory", "8Gi")),
           "pods": str(spec.get("pods", 110))}
    if spec.get("ephemeral-storage"):
        res["ephemeral-storage"] = str(spec["ephemeral-storage"])
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": spec["name"], "labels": labels,
                         "annotations": {"kwok.x-k8s.io/node": "fake"}},
            "spec": {},
            "status": {"capacity": dict(res), "allocatable": dict(spec.get("allocatable") or res)}}
    if spec.get("taints"):
        node["spec"]["taints"] = spec["taints"]
    if spec.get("unschedulable"):
        node["spec"]["unschedulable"] = True
    return node


def real_node_from_sim(n: dict, now: str) -> dict:
    """kubesim's registered Node as a KWOK node: what a kubelet registers (labels, addresses,
    capacity, nodeInfo, conditions) comes from kubesim; what the control plane adds (podCIDR,
    the ttl annotation) is left to the real controllers."""
    md = n["metadata"]
    ann = {k: v for k, v in (md.get("annotations") or {}).items()
           if not k.startswith("kubesim.io/") and k not in ("kubectl.kubernetes.io/last-applied-configuration",
                                                           "node.alpha.kubernetes.io/ttl")}
    ann["kwok.x-k8s.io/node"] = "fake"
    spec = {k: v for k, v in (n.get("spec") or {}).items() if k not in ("podCIDR", "podCIDRs", "providerID")}
    status = json.loads(json.dumps(n.get("status") or {}))
    for c in status.get("conditions") or []:
        c["lastHeartbeatTime"] = now
        c["lastTransitionTime"] = now
    status.pop("phase", None)
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": md["name"], "labels": md.get("labels") or {}, "annotations": ann},
            "spec": spec, "status": status}


# ----------------------------------------------------------------------------------------------
# Normalisation


UUID_RE = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
RFC3339_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})")
HUMAN_TIME_RE = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}")
IP_RE = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
RV_RE = re.compile(r'("?resourceVersion"?\s*:\s*)"\d+"')
DESCRIBE_RV_RE = re.compile(r"^(\s*Resource Version:\s+)\d+$", re.M)
# A node Lease's holder: the kubelet writes the node's name, KWOK its own controller id.
HOLDER_RE = re.compile(r"^(\s*HolderIdentity:\s+)\S+$", re.M)
GO_POINTER_RE = re.compile(r"\(0x[0-9a-f]{6,}\)")  # Go pointers printed by %#v in some validation errors
DURATION_RE = re.compile(r"\b\d+(?:\.\d+)?(?:y|d|h|m|s)(?:\d+(?:h|m|s))?\b|<unknown>|<invalid>")
AGE_HEADERS = {"AGE", "LAST SEEN", "FIRST SEEN", "Age", "LastSeen", "DURATION", "LAST-SEEN"}
CAPS_HEADER_RE = re.compile(r"^\s*[A-Z][A-Z0-9_./()-]*(?: [A-Z][A-Z0-9_./()-]*)*(?: {2,}[A-Z][A-Z0-9_./()-]*(?: [A-Z][A-Z0-9_./()-]*)*)+\s*$")
DASHES_RE = re.compile(r"^\s*-+(?: +-+)+\s*$")
TYPE_STATUS_RE = re.compile(r"^\s*Type\s{2,}Status\s*$")
CONTAINER_ID_RE = re.compile(r"^(\s*(?:Container ID|Image ID):)(.*)$")
# kubesim's own node annotation (its static pod directory): no real kubelet writes it.
KUBESIM_ONLY_RE = re.compile(r"^\s*\"?kubesim\.io/static-pod-path.*\n", re.M)
KUBESIM_ONLY_FIRST_RE = re.compile(r"^(Annotations:\s+)kubesim\.io/static-pod-path: [^\n]*\n\s+", re.M)


@dataclass
class Names:
    """Stable placeholders for one side's generated names (5-character suffixes, UIDs)."""
    pods: dict = field(default_factory=dict)      # full pod name -> placeholder
    counters: dict = field(default_factory=dict)  # generateName -> next index
    prefixes: set = field(default_factory=lambda: {"kube-api-access-"})
    uids: dict = field(default_factory=dict)
    others: dict = field(default_factory=dict)

    def track(self, pods: list[dict]):
        """Give each new generated pod a placeholder: per generateName, in order of
        (namespace, generateName, node, name) among the pods first seen after the same step."""
        new = [p for p in pods if p["metadata"].get("generateName")
               and p["metadata"]["name"] not in self.pods]
        new.sort(key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["generateName"],
                                p["spec"].get("nodeName") or "~", p["metadata"]["name"]))
        for p in new:
            gn = p["metadata"]["generateName"]
            self.prefixes.add(gn)
            self.counters[gn] = self.counters.get(gn, 0) + 1
            self.pods[p["metadata"]["name"]] = f"{gn}<{self.counters[gn]}>"

    def suffix(self, m: re.Match) -> str:
        name = m.group(0)
        if name in self.pods:
            return self.pods[name]
        prefix = m.group(1)
        if prefix == "kube-api-access-":
            return "kube-api-access-<xxxxx>"
        if prefix not in self.prefixes:
            return name
        key = name
        if key not in self.others:
            self.others[key] = f"{prefix}<?{len(self.others) + 1}>"
        return self.others[key]

    def uid(self, m: re.Match) -> str:
        u = m.group(0)
        if u not in self.uids:
            self.uids[u] = f"<uid-{len(self.uids) + 1}>"
        return self.uids[u]


def split_row(line: str, starts: list[int]) -> list[str]:
    cells = []
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else None
        cells.append(line[s:e].strip() if s < len(line) else "")
    return cells


def is_header(lines: list[str], i: int) -> bool:
    line = lines[i]
    if CAPS_HEADER_RE.match(line) or TYPE_STATUS_RE.match(line):
        return True
    return i + 1 < len(lines) and bool(DASHES_RE.match(lines[i + 1])) and len(line.split()) >= 2


def normalise_tables(text: str) -> str:
    """Cut every table into cells at its header's column offsets (on the raw text, before any
    substitution changes a width), blank out age columns, drop rows only a kubelet writes, and
    join the cells with two spaces (column widths follow the values, which may differ)."""
    lines = text.split("\n")
    out: list[str] = []
    starts: list[int] | None = None
    headers: list[str] = []
    indent = ""
    for i, line in enumerate(lines):
        if line.startswith("--- ") or not line.strip():
            starts = None
            out.append(line.rstrip())
            continue
        m = CONTAINER_ID_RE.match(line)
        if m:  # kubelet-side: KWOK sets no container or image IDs
            out.append(m.group(1) + " <id>")
            continue
        if is_header(lines, i):
            indent = line[: len(line) - len(line.lstrip())]
            starts = [mm.start() for mm in re.finditer(r"(?:^|(?<=\s\s))(?=\S)", line) if mm.start() >= len(indent)]
            headers = split_row(line, starts)
            out.append(indent + "  ".join(headers))
            continue
        if starts is not None and (line[: len(indent)].strip() or DASHES_RE.match(line)):
            if not DASHES_RE.match(line):
                starts = None  # text outside the table: it ended
            out.append(indent_collapse(line))
            continue
        if starts is None:
            out.append(indent_collapse(line))
            continue
        cells = split_row(line, starts)
        drop = False
        for j, h in enumerate(headers):
            if h in AGE_HEADERS:
                cells[j] = DURATION_RE.sub("<age>", cells[j])
            if h in ("REASON", "Reason") and cells[j] in KUBELET_REASONS and (
                    "From" not in headers or cells[headers.index("From")] == "kubelet"):
                drop = True
            if h == "From" and cells[j] == "kubelet":
                drop = True
            if h == "Type" and cells[j] in KUBELET_POD_CONDITIONS:
                drop = True
        if not drop:
            out.append(indent + "  ".join(cells).rstrip())
    return "\n".join(out)


def normalise(text: str, names: Names, tied: list[str] | None = None) -> str:
    if not text:
        return text
    suffix_re = re.compile(r"\b([a-z0-9][a-z0-9.-]*-)([" + SUFFIX_ALPHABET + r"]{5})\b")
    text = HOLDER_RE.sub(r"\1<kwok-or-kubelet>", text)
    text = KUBESIM_ONLY_FIRST_RE.sub(r"\1", text)
    text = KUBESIM_ONLY_RE.sub("", text)
    text = normalise_tables(text)
    text = UUID_RE.sub(names.uid, text)
    text = RFC3339_RE.sub("<time>", text)
    text = HUMAN_TIME_RE.sub("<time>", text)
    text = RV_RE.sub(r'\1"<rv>"', text)
    text = DESCRIBE_RV_RE.sub(r"\1<rv>", text)
    text = IP_RE.sub("<ip>", text)
    text = GO_POINTER_RE.sub("<ptr>", text)
    text = suffix_re.sub(lambda m: names.suffix(m), text)
    for n in tied or []:
        text = re.sub(rf"\b{re.escape(n)}\b", "<tied-node>", text)
    if tied:  # which pod got which number followed the node order: that is tied too
        text = re.sub(r"<\??\d+>", "<n>", text)
    return text


def indent_collapse(line: str) -> str:
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    return indent + re.sub(r"(?<=\S) {2,}(?=\S)", "  ", stripped).rstrip()


KUBESIM_NAME_RE = re.compile(r"(?<![\w./-])kubesim(?=[ '\"])")
NAME_LINE_RE = re.compile(r"^([a-z0-9.-]+)/\S+$")


def sort_rows(text: str) -> str:
    """Sort the rows of every table (kubectl get's and describe's), keeping headers, dashes
    and everything outside tables in place: for outputs whose row order is incidental."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if is_header(lines, i):
            out.append(lines[i])
            i += 1
            if i < len(lines) and DASHES_RE.match(lines[i]):
                out.append(lines[i])
                i += 1
            indent = len(out[-1]) - len(out[-1].lstrip())
            rows = []
            while (i < len(lines) and lines[i].strip() and not lines[i].startswith("--- ")
                   and len(lines[i]) - len(lines[i].lstrip()) >= indent and not is_header(lines, i)):
                rows.append(lines[i])
                i += 1
            out += sorted(rows)
            continue
        # outside tables: sort runs of `kind/name` lines within each kind (`-o name`), keeping
        # the order of the kinds
        m = NAME_LINE_RE.match(lines[i])
        if m:
            run_ = [lines[i]]
            i += 1
            while i < len(lines) and NAME_LINE_RE.match(lines[i]) and NAME_LINE_RE.match(lines[i]).group(1) == m.group(1):
                run_.append(lines[i])
                i += 1
            out += sorted(run_)
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


# ----------------------------------------------------------------------------------------------
# Scenarios


@dataclass
class Step:
    kind: str                 # run | sleep | advance
    argv: list = field(default_factory=list)
    line: str = ""
    stdin: str | None = None
    compare: bool = True
    sort: bool = False
    tied: list = field(default_factory=list)
    duration: float = 0.0
    duration_text: str = ""
    settle: bool = True
    wait: float = 0.0


def load_steps(raw: list) -> list[Step]:
    steps = []
    for s in raw:
        if isinstance(s, str):
            s = {"run": s}
        if "sleep" in s or "advance" in s:
            k = "sleep" if "sleep" in s else "advance"
            steps.append(Step(kind=k, duration=parse_duration(s[k]), duration_text=str(s[k])))
            continue
        if "apply" in s:
            s = {"run": "kubectl apply -f -", "stdin": s["apply"], "compare": s.get("compare", False), **s}
            s.pop("apply")
        line = s["run"].strip()
        argv = shlex.split(line)
        if not argv or argv[0] != "kubectl":
            raise ValueError(f"a step must start with kubectl: {line!r}")
        steps.append(Step(kind="run", argv=argv[1:], line=line, stdin=s.get("stdin"),
                          compare=s.get("compare", True), sort=s.get("sort", False), tied=s.get("tied") or [],
                          settle=s.get("settle", True), wait=parse_duration(s.get("wait", 0))))
    return steps


@dataclass
class Outcome:
    name: str
    compared: int = 0
    identical: int = 0
    diffs: list = field(default_factory=list)   # (command, diff text)
    error: str = ""


def transcript(code: int, out: str, err: str) -> str:
    t = out
    if err:
        t += ("" if not out or out.endswith("\n") else "\n") + "--- stderr ---\n" + err
    return t + ("" if t.endswith("\n") or not t else "\n") + f"--- exit {code} ---\n"


def verb_of(argv: list[str]) -> str:
    skip_value = {"-n", "--namespace", "--context", "--kubeconfig", "-l", "--selector", "-o", "--output"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in skip_value:
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        return a
    return ""


def run_scenario(path: Path, real: Real, kubesim: list[str], pythonpath: str | None, verbose: bool,
                 keep: bool, show: bool = False, pinned: bool = False) -> Outcome:
    sc = yaml.safe_load(path.read_text())
    name = sc.get("name") or path.stem
    outcome = Outcome(name)
    work = tempfile.mkdtemp(prefix=f"kubesim-conformance-{name}-")
    state = os.path.join(work, "state")
    files_dir = os.path.join(work, "files")
    os.makedirs(files_dir)
    for fname, content in (sc.get("files") or {}).items():
        Path(files_dir, fname).parent.mkdir(parents=True, exist_ok=True)
        Path(files_dir, fname).write_text(content)
    sim = Sim(kubesim, state, pythonpath)
    try:
        steps = load_steps(sc.get("steps") or [])
        # --- a fresh kubesim state with the scenario's nodes
        sim.ok(["cluster", "init", "--empty"])
        nodes = [node_manifest(n) for n in sc.get("nodes") or []]
        if nodes:
            sim.ok(["create", "-f", "-"], yaml.safe_dump_all(nodes))
        sim_nodes = json.loads(sim.ok(["get", "nodes", "-o", "json"]))["items"]
        sim_csinodes = json.loads(sim.ok(["get", "csinodes", "-o", "json"]))["items"]
        # --- a clean real cluster with the same nodes, as KWOK nodes
        real.clean()
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        for n in sim_nodes:
            status, body = real.request("POST", "/api/v1/nodes", real_node_from_sim(n, now))
            if status != 201:
                raise RuntimeError(f"creating node {n['metadata']['name']}: {status} {body}")
        for c in sim_csinodes:  # a kubelet registers its CSINode; KWOK does not
            node = real.get(f"/api/v1/nodes/{c['metadata']['name']}")
            owner = [{"apiVersion": "v1", "kind": "Node", "name": node["metadata"]["name"],
                      "uid": node["metadata"]["uid"]}]
            obj = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                   "metadata": {"name": c["metadata"]["name"], "ownerReferences": owner}, "spec": c.get("spec") or {}}
            status, body = real.request("POST", "/apis/storage.k8s.io/v1/csinodes", obj)
            if status != 201:
                raise RuntimeError(f"creating csinode: {status} {body}")
        real.wait_node_events("RegisteredNode", {n["metadata"]["uid"] for n in real.get("/api/v1/nodes")["items"]})
        deadline = time.monotonic() + 60
        while True:  # the node IPAM controller gives each node its podCIDR, the ttl controller its annotation
            items = real.get("/api/v1/nodes")["items"]
            if all(i["spec"].get("podCIDR") and "node.alpha.kubernetes.io/ttl" in i["metadata"].get("annotations", {})
                   for i in items):
                break
            if time.monotonic() > deadline:
                raise RuntimeError("real nodes did not get their podCIDR / ttl annotation in 60s")
            time.sleep(0.3)
        # A node re-created under the name of one deleted a moment ago can get a transient
        # CIDRAssignmentFailed from the node IPAM controller before its podCIDR (which the loop
        # above waited for): an artifact of the clean-up, not of the scenario.
        for e in real.get("/api/v1/namespaces/default/events?fieldSelector=reason%3DCIDRAssignmentFailed")["items"]:
            real.delete(f"/api/v1/namespaces/default/events/{e['metadata']['name']}")
        real.settle(quiet=1.0)

        # kubesim's clock starts pinned at PINNED_NOW and, unless --pinned-clock, follows the
        # wall-clock time the real side has spent (whole seconds) before each step, so periodic
        # work (resyncs, back-offs) has had the same time on both sides.
        t0 = time.monotonic()
        followed = 0

        def follow():
            nonlocal followed
            if pinned:
                return
            target = int(time.monotonic() - t0)
            if target > followed:
                sim.ok(["advance", f"{target - followed}s"])
                followed = target

        real_names, sim_names = Names(), Names()
        real_names.track(real.pods())
        sim_names.track(sim.pods())
        for i, st in enumerate(steps, 1):
            if st.kind == "sleep":
                time.sleep(st.duration)
                real.settle()
                if pinned:
                    sim.ok(["advance", st.duration_text])
                else:
                    follow()
                if verbose:
                    print(f"  [{i}] sleep {st.duration_text}")
                continue
            if st.kind == "advance":
                real.settle()
                sim.ok(["advance", st.duration_text])
                if verbose:
                    print(f"  [{i}] advance {st.duration_text} (kubesim only)")
                continue
            follow()
            rc, rout, rerr = real.run(st.argv, st.stdin, files_dir)
            if st.settle and verb_of(st.argv) not in READ_ONLY:
                real.settle()
            if st.wait:
                time.sleep(st.wait)
                real.settle()
            sc_, sout, serr = sim.run(st.argv, st.stdin, files_dir)
            real_names.track(real.pods())
            sim_names.track(sim.pods())
            if not st.compare:
                if verbose:
                    print(f"  [{i}] (setup) {st.line}: real exit {rc}, kubesim exit {sc_}")
                if rc != 0 or sc_ != 0:
                    print(f"  [{i}] setup step {st.line!r}: real exit {rc} {rerr.strip()[:300]!r}; "
                          f"kubesim exit {sc_} {serr.strip()[:300]!r}", file=sys.stderr)
                continue
            a = normalise(transcript(rc, rout, rerr), real_names, st.tied)
            # kubesim names itself where kubectl does in usage errors ("See 'kubesim drain -h'")
            b = normalise(KUBESIM_NAME_RE.sub("kubectl", transcript(sc_, sout, serr)), sim_names, st.tied)
            if st.sort:
                a, b = sort_rows(a), sort_rows(b)
            outcome.compared += 1
            if a == b:
                outcome.identical += 1
                if verbose:
                    print(f"  [{i}] = {st.line}")
                if show:
                    print("    " + a.rstrip("\n").replace("\n", "\n    "))
            else:
                d = "".join(difflib.unified_diff(a.splitlines(True), b.splitlines(True),
                                                 fromfile=f"real: {st.line}", tofile=f"kubesim: {st.line}"))
                outcome.diffs.append((f"[{i}] {st.line}", d))
                if verbose:
                    print(f"  [{i}] ≠ {st.line}")
    except Exception as e:  # noqa: BLE001 - reported per scenario
        outcome.error = f"{type(e).__name__}: {e}"
    finally:
        if keep:
            print(f"  kubesim state kept in {state}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return outcome


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="+", help="scenario YAML files (or directories)")
    ap.add_argument("--no-fail", action="store_true", help="exit 0 even when the sides disagree")
    ap.add_argument("-k", dest="filter", help="only scenarios whose name contains this")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each step as it runs")
    ap.add_argument("--keep", action="store_true", help="keep kubesim's state directories")
    ap.add_argument("--pinned-clock", action="store_true",
                    help="kubesim's clock moves only at sleep/advance steps (default: it follows the real side's "
                         "elapsed wall-clock time)")
    ap.add_argument("-s", "--show", action="store_true", help="also print each identical step's (normalised) output")
    ap.add_argument("--kubeconfig", default=str(KUBECONFIG))
    ap.add_argument("--kubectl", default=os.environ.get("KUBECTL") or str(REPO / ".venv" / "bin" / "kubectl"))
    ap.add_argument("--kubesim", default=os.environ.get("KUBESIM") or str(REPO / ".venv" / "bin" / "kubesim"),
                    help="the kubesim command (default: the venv's)")
    ap.add_argument("--kubesim-rev", metavar="REV",
                    help="run kubesim as committed at REV (git archive of the repo into the cache, run with "
                         "the venv's python), not the working tree: for a tree that is being edited")
    args = ap.parse_args(argv)

    pythonpath = None
    if args.kubesim_rev:
        sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", args.kubesim_rev], capture_output=True, text=True,
                             check=True).stdout.strip()
        snap = HOME_DIR / "kubesim-src" / sha
        if not (snap / "kubesim").is_dir():
            snap.mkdir(parents=True, exist_ok=True)
            archive = subprocess.run(["git", "-C", str(REPO), "archive", sha, "kubesim"], capture_output=True,
                                     check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(snap)], input=archive, check=True)
        pythonpath = str(snap)
        py = REPO / ".venv" / "bin" / "python"
        args.kubesim = f"{py if py.exists() else sys.executable} -m kubesim"
        print(f"kubesim: {sha[:12]} ({args.kubesim_rev}) from {snap}")
    kubesim = shlex.split(args.kubesim)
    if len(kubesim) == 1 and not os.path.exists(kubesim[0]):
        found = shutil.which(kubesim[0]) or shutil.which("kubesim")
        if not found:
            print("kubesim not found", file=sys.stderr)
            return 2
        kubesim = [found]
    for tool in ("kubectl",):
        p = getattr(args, tool)
        if not os.path.exists(p):
            p = shutil.which(tool)
            if not p:
                print(f"{tool} not found", file=sys.stderr)
                return 2
            setattr(args, tool, p)
    if not Path(args.kubeconfig).exists():
        print(f"no kubeconfig at {args.kubeconfig}: run conformance/up first", file=sys.stderr)
        return 2
    real = Real(Path(args.kubeconfig), args.kubectl)
    if not real.healthy():
        print("the real cluster is not ready (/readyz): run conformance/up", file=sys.stderr)
        return 2

    paths: list[Path] = []
    for s in args.scenarios:
        p = Path(s)
        paths += sorted(p.glob("*.yaml")) if p.is_dir() else [p]
    outcomes = []
    for p in paths:
        if args.filter and args.filter not in p.stem:
            continue
        print(f"=== {p.stem}", flush=True)
        t0 = time.monotonic()
        o = run_scenario(p, real, kubesim, pythonpath, args.verbose or args.show, args.keep, args.show,
                         args.pinned_clock)
        outcomes.append(o)
        for cmd, d in o.diffs:
            print(f"--- {cmd}")
            print(d, end="" if d.endswith("\n") else "\n")
        if o.error:
            print(f"ERROR: {o.error}")
        verdict = "agree" if not o.diffs and not o.error else ("error" if o.error else "disagree")
        print(f"=== {o.name}: {verdict} ({o.identical}/{o.compared} identical, {time.monotonic() - t0:.0f}s)\n",
              flush=True)

    w = max([len("scenario")] + [len(o.name) for o in outcomes])
    print(f"{'scenario':<{w}}  compared  identical  verdict")
    for o in outcomes:
        verdict = "error" if o.error else ("agree" if not o.diffs else "disagree")
        print(f"{o.name:<{w}}  {o.compared:>8}  {o.identical:>9}  {verdict}")
    total_c = sum(o.compared for o in outcomes)
    total_i = sum(o.identical for o in outcomes)
    print(f"{'total':<{w}}  {total_c:>8}  {total_i:>9}")
    bad = any(o.diffs or o.error for o in outcomes)
    return 1 if bad and not args.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
