"""The real cluster: the real kubectl, and a small HTTPS client to settle and clean up."""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

SYSTEM_NAMESPACES = {"default", "kube-system", "kube-public", "kube-node-lease"}


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
        # a discovery cache of this run's own: one in ~/.kube/cache keeps the kinds of a CRD an
        # earlier scenario deleted (for its 6-hour TTL), and `get all` then asks for them
        env = dict(os.environ, KUBECONFIG=str(self.kubeconfig), KUBECACHEDIR=str(Path(self._tmp) / "cache"))
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
        import shutil

        shutil.rmtree(Path(self._tmp) / "cache", ignore_errors=True)  # and what kubectl learnt of them
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
        # kubeadm's add-ons are made afresh per scenario (prepare), after its nodes, as kubesim's
        # are made with its cluster: their ConfigMaps, Service, ServiceAccounts and RBAC go too
        # (the Deployment and DaemonSet went with the workloads above)
        for obj in reversed(addon_objects()):
            self.delete(addon_path(obj))
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


def prepare(real: Real, sim_nodes: list[dict], sim_csinodes: list[dict]):
    """A clean real cluster with kubesim's nodes as KWOK nodes (and kubesim's CSINodes), once the
    control plane has registered them."""
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
    install_addons(real, sim_nodes)
    real.settle(quiet=1.0)


def addon_objects(sim_nodes: list[dict] | None = None) -> list[dict]:
    """What kubesim's ``cluster init`` created as ``kubeadm init`` would (kubesim/controlplane/addons.py:
    CoreDNS, kube-proxy, kubeadm-config, kubelet-config, cluster-info and their RBAC), as kubeadm
    POSTs them, naming the same advertise address."""
    from kubesim.controlplane import addons

    cp = next((n for n in sim_nodes or [] if n["metadata"]["name"] == "controlplane"), None)
    return addons.addon_objects(addons.advertise_address(cp))


def addon_path(obj: dict, collection: bool = False) -> str:
    from kubesim.controlplane import addons

    return addons.api_path(obj, collection)


def install_addons(real: Real, sim_nodes: list[dict], timeout: float = 90.0):
    """Create kubeadm's add-ons after the nodes, wait for the CoreDNS Deployment and the
    kube-proxy DaemonSet to be ready on them (pods stay Pending without nodes, on both sides),
    then drop kube-system's events, as SimSide.setup drops kubesim's: a scenario starts from a
    cluster whose add-ons are up, not from their start-up."""
    for obj in addon_objects(sim_nodes):
        deadline = time.monotonic() + 30
        while True:  # a Service's IP or a name just released by clean() can take a moment
            status, body = real.request("POST", addon_path(obj, collection=True), obj)
            if status == 201:
                break
            if time.monotonic() > deadline or status not in (409, 422, 500):
                raise RuntimeError(f"creating {obj['kind']} {obj['metadata']['name']}: {status} {body}")
            time.sleep(0.5)
    if sim_nodes:
        deadline = time.monotonic() + timeout
        while True:
            dep = real.get("/apis/apps/v1/namespaces/kube-system/deployments/coredns")
            ds = real.get("/apis/apps/v1/namespaces/kube-system/daemonsets/kube-proxy")
            dst = ds.get("status") or {}
            if ((dep.get("status") or {}).get("readyReplicas") == dep["spec"]["replicas"]
                    and dst.get("desiredNumberScheduled") is not None
                    and dst.get("numberReady") == dst["desiredNumberScheduled"]):
                break
            if time.monotonic() > deadline:
                print(f"  (kubeadm's add-ons not ready after {timeout:.0f}s; going on)", file=sys.stderr)
                break
            time.sleep(0.5)
    real.settle(quiet=1.0)
    real.delete("/api/v1/namespaces/kube-system/events")
