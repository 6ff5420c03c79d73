"""kubectl cluster-info dump (staging/src/k8s.io/kubectl/pkg/cmd/clusterinfo/clusterinfo_dump.go;
its upstream test, clusterinfo_dump_test.go, checks only setupOutputWriter's file names).

``testdata/cluster_info_dump_v1.35.json`` is the skeleton of what kubectl 1.36 printed against the
v1.35 oracle for SCENARIO (namespace k16-d: a pod, a one-replica Deployment, a ClusterIP
Service): each document's kind, apiVersion, envelope keys and item field paths (two levels),
the log section lines (the pod hash masked) and the files ``--output-directory`` wrote. Times,
uids, IPs and names of the shared cluster's other nodes are not in it. kubesim's dump of the same
scenario must have the same skeleton, but for the fields KWOK's fake kubelet and kubesim's
simulated one write differently (listed below)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kubesim.kubectl.cmd.cluster_info_dump import typed_list
from kubesim.testing.cli import snapshot

GOLDEN = json.loads((Path(__file__).parent / "testdata" / "cluster_info_dump_v1.35.json").read_text())

SCENARIO = """apiVersion: v1
kind: Namespace
metadata:
  name: k16-d
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: k16-d
  labels: {app: web}
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      nodeSelector: {kubernetes.io/hostname: node01}
      containers:
      - name: nginx
        image: nginx
"""

POD = """apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: k16-d
  labels: {run: p1}
spec:
  nodeName: node01
  containers:
  - name: p1
    image: nginx
"""

# item fields one side has and the other not, and why (neither is cluster-info dump's doing)
ONLY_REAL = {"NodeList": {"status.phase"}}  # KWOK sets a node's phase; a kubelet leaves it unset
ONLY_KUBESIM = {
    # the kubeadm control-plane node's taint and the images a kubelet lists (the oracle's nodes are KWOK's)
    "NodeList": {"spec.taints", "status.images"},
    "EventList": {"involvedObject.fieldPath", "source.host"},  # the kubelet's Pulling/Started events
    "PodList": {"status.hostIP", "status.hostIPs", "status.observedGeneration"},  # what a kubelet reports
}


def parse(text: str) -> tuple[list[dict], list[str]]:
    """The dump's JSON documents and its log sections' lines (a log line may start with ``{``)."""
    decoder, docs, logs, i, in_logs = json.JSONDecoder(), [], [], 0, False
    while i < len(text):
        if text[i] == "{" and not in_logs:
            obj, i = decoder.raw_decode(text, i)
            docs.append(obj)
            i += 1  # the newline after the closing brace
            continue
        end = text.index("\n", i)
        line = text[i:end]
        in_logs = line.startswith("==== START ") or (in_logs and not line.startswith("==== END "))
        logs.append(line)
        i = end + 1
    return docs, logs


def item_paths(items: list[dict] | None) -> set[str]:
    out = set()
    for item in items or []:
        for key, value in item.items():
            out.add(key)
            if isinstance(value, dict):
                out.update(f"{key}.{sub}" for sub in value)
    return out


def mask(s: str) -> str:
    return re.sub(r"web-[0-9a-z]+-[0-9a-z]+", "web-<hash>-<id>", s)


@pytest.fixture
def cluster(kubesim):
    kubesim.apply(SCENARIO)
    # made as on the oracle (there: ``run p1 --overrides``, the pod bound to a KWOK node by name)
    kubesim.ok("create -f -", stdin=POD)
    kubesim.ok("-n k16-d create service clusterip svc --tcp=80:80")
    kubesim.ok("advance 10s")
    return kubesim


def test_the_dump_has_the_shape_kubectl_printed_against_a_v1_35_cluster(cluster):
    docs, lines = parse(cluster.ok("cluster-info dump --namespaces k16-d"))
    assert [(d["kind"], d["apiVersion"]) for d in docs] == [(g["kind"], g["apiVersion"]) for g in GOLDEN["documents"]]
    for doc, want in zip(docs, GOLDEN["documents"]):
        kind = doc["kind"]
        # kubesim's JSON printer sorts keys; kubectl prints a typed list in Go struct order
        assert sorted(doc) == sorted(want["envelope"]), kind
        assert sorted(doc["metadata"]) == want["metadata"], kind
        assert int(doc["metadata"]["resourceVersion"]) > 0, kind
        assert (doc["items"] is None) == want["itemsNull"], kind
        assert any("kind" in i for i in doc["items"] or []) == want["itemsHaveKind"], kind
        have, real = item_paths(doc["items"]), set(want["itemPaths"])
        assert real - have == ONLY_REAL.get(kind, set()), kind
        assert have - real == ONLY_KUBESIM.get(kind, set()), kind
    # the logs themselves are the simulated containers' (the oracle's KWOK pods have none)
    assert [mask(line) for line in lines if line.startswith("====")] == GOLDEN["logLines"]


def test_output_directory_writes_the_files_kubectl_writes(cluster, tmp_path):
    out = tmp_path / "dump"
    assert cluster.ok(f"cluster-info dump --namespaces k16-d --output-directory {out}") == \
        f"Cluster info dumped to {out}\n"
    files = sorted("./" + str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert [mask(f) for f in files] == GOLDEN["files"]
    assert json.loads((out / "nodes.json").read_text())["kind"] == "NodeList"
    assert json.loads((out / "k16-d" / "replication-controllers.json").read_text())["items"] is None
    logs = (out / "k16-d" / "p1" / "logs.txt").read_text()
    assert logs.startswith("==== START logs for container p1 of pod k16-d/p1 ====\n")
    assert logs.endswith("==== END logs for container p1 of pod k16-d/p1 ====\n")


@pytest.mark.parametrize("args, namespaces", [
    pytest.param("", ["kube-system", "default"], id="kube-system and the current namespace by default"),
    pytest.param("-n k16-d", ["kube-system", "k16-d"], id="the current namespace is -n's"),
    pytest.param("--namespaces k16-d,default", ["k16-d", "default"], id="--namespaces, comma separated"),
    pytest.param("--namespaces k16-d --namespaces nope", ["k16-d", "nope"],
                 id="--namespaces repeated; a namespace that does not exist has empty lists"),
    pytest.param("-A --namespaces nope", ["default", "k16-d", "kube-node-lease", "kube-public", "kube-system"],
                 id="-A dumps every namespace and ignores --namespaces"),
])
def test_which_namespaces_are_dumped(cluster, args, namespaces):
    docs, _ = parse(cluster.ok(f"cluster-info dump {args}"))
    assert docs[0]["kind"] == "NodeList"
    events = [d for d in docs if d["kind"] == "EventList"]
    assert len(docs) == 1 + 7 * len(namespaces) and len(events) == len(namespaces)
    for ns, doc in zip(namespaces, docs[1::7]):
        assert all(e["metadata"]["namespace"] == ns for e in doc["items"] or [])


def test_yaml_separates_the_lists_as_kubectl_s_yaml_printer(cluster):
    out = cluster.ok("cluster-info dump --namespaces k16-d -o yaml")
    heads = [mask(line) for line in out.splitlines() if re.match(r"(---|====|[a-z])", line)]
    kinds = [d["kind"] for d in GOLDEN["documents"]]
    expected = []
    for i, kind in enumerate(kinds):
        expected += (["---"] if i else []) + ["apiVersion: " + GOLDEN["documents"][i]["apiVersion"],
                                              "items: null" if GOLDEN["documents"][i]["itemsNull"] else "items:",
                                              f"kind: {kind}", "metadata:"]
    assert heads == expected + GOLDEN["logLines"]


def test_a_container_whose_logs_cannot_be_read_says_why_between_its_lines(kubesim):
    kubesim.apply("apiVersion: v1\nkind: Pod\nmetadata: {name: stuck}\nspec:\n  nodeSelector: {nope: x}\n"
                  "  initContainers: [{name: init, image: busybox}]\n  containers: [{name: app, image: nginx}]\n")
    _, lines = parse(kubesim.ok("cluster-info dump --namespaces default"))
    assert [line.split(":")[0] for line in lines] == [
        "==== START logs for container init of pod default/stuck ====", "Request log error",
        "==== END logs for container init of pod default/stuck ====",
        "==== START logs for container app of pod default/stuck ====", "Request log error",
        "==== END logs for container app of pod default/stuck ===="]


def test_typed_list_drops_the_items_type_and_is_null_when_empty():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}
    assert typed_list("Pod", "v1", [pod], "7") == {"kind": "PodList", "apiVersion": "v1",
                                                   "metadata": {"resourceVersion": "7"},
                                                   "items": [{"metadata": {"name": "a"}}]}
    assert typed_list("ReplicationController", "v1", [], "7")["items"] is None


# texts kubectl 1.36 printed for the same flags
@pytest.mark.parametrize("args, err", [
    pytest.param("cluster-info dump -o name", "error: list types are not supported by name printing: *v1.NodeList\n",
                 id="the name printer refuses lists"),
    pytest.param("cluster-info dump -o wide",
                 'error: unable to match a printer suitable for the output format "wide", allowed formats are: '
                 "go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,template,"
                 "templatefile,yaml\n", id="a table format"),
    pytest.param("cluster-info dump --pod-running-timeout=x",
                 'error: invalid argument "x" for "--pod-running-timeout" flag: time: invalid duration "x"\n'
                 "See 'kubesim cluster-info dump --help' for usage.\n", id="a bad duration"),
    pytest.param("cluster-info dump --pod-running-timeout=0", "error: --pod-running-timeout must be higher than zero\n",
                 id="a zero timeout"),
    pytest.param("cluster-info --output-directory=x", "error: unknown flag: --output-directory\n"
                                                      "See 'kubesim cluster-info --help' for usage.\n",
                 id="dump's flags are dump's"),
])
def test_bad_input_fails_as_kubectl_does(kubesim, args, err):
    before = snapshot(kubesim.state_dir)
    r = kubesim(args)
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(kubesim.state_dir) == before


def test_an_output_directory_under_a_file_is_refused(kubesim, tmp_path):
    (tmp_path / "f").write_text("")
    r = kubesim(f"cluster-info dump --output-directory {tmp_path / 'f' / 'd'}")
    assert (r.code, r.out, r.err) == (1, "", f"error: mkdir {tmp_path / 'f'}: not a directory\n")
