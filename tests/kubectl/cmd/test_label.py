"""kubectl label, annotate and taint: --overwrite, --list, --all, -l, --resource-version,
--dry-run and -o, as staging/src/k8s.io/kubectl/pkg/cmd/label/label_test.go,
annotate/annotate_test.go and taint/taint_test.go check them."""

from __future__ import annotations

import json

import pytest

from kubesim.testing.cli import snapshot

PODS = """apiVersion: v1
kind: Pod
metadata:
  name: a
  labels: {app: web, tier: front}
  annotations: {note: hello}
spec:
  containers: [{name: c, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata:
  name: b
  labels: {app: web}
spec:
  containers: [{name: c, image: nginx}]
"""


@pytest.fixture
def pods(kubesim):
    kubesim.ok("create -f -", stdin=PODS)  # (apply would add its last-applied annotation)
    return kubesim


def labels(h, name: str, field: str = "labels") -> dict:
    return json.loads(h.ok(f"get pod {name} -o json"))["metadata"].get(field) or {}


def rv(h, name: str) -> str:
    return json.loads(h.ok(f"get pod {name} -o json"))["metadata"]["resourceVersion"]


@pytest.mark.parametrize("args, out, after", [
    pytest.param("pod a env=prod", "pod/a labeled\n", {"app": "web", "tier": "front", "env": "prod"},
                 id="a new label: labeled"),
    pytest.param("pod a tier=back --overwrite", "pod/a labeled\n", {"app": "web", "tier": "back"},
                 id="--overwrite replaces a value"),
    pytest.param("pod a tier=back --overwrite=true", "pod/a labeled\n", {"app": "web", "tier": "back"},
                 id="--overwrite takes a bool value as pflag does"),
    pytest.param("pod a tier-", "pod/a unlabeled\n", {"app": "web"}, id="a removal: unlabeled"),
    pytest.param("pod a tier- --overwrite", "pod/a unlabeled\n", {"app": "web"},
                 id="a removal with --overwrite is still unlabeled"),
    pytest.param("pod a tier- env=prod", "pod/a modified\n", {"app": "web", "env": "prod"},
                 id="an addition and a removal: modified"),
    pytest.param("pod a tier=front", "pod/a not labeled\n", {"app": "web", "tier": "front"},
                 id="the same value: not labeled"),
    pytest.param("pod a gone-", 'label "gone" not found.\npod/a not labeled\n', {"app": "web", "tier": "front"},
                 id="removing a missing label says so"),
    pytest.param("pods --all env=prod", "pod/a labeled\npod/b labeled\n", {"app": "web", "tier": "front", "env": "prod"},
                 id="--all labels every pod of the namespace"),
    pytest.param("pods -l tier=front env=prod", "pod/a labeled\n", {"app": "web", "tier": "front", "env": "prod"},
                 id="-l labels the pods it matches"),
    pytest.param("pod a env=prod --dry-run=client", "pod/a labeled (dry run)\n", {"app": "web", "tier": "front"},
                 id="--dry-run=client changes nothing"),
    pytest.param("pod a env=prod --dry-run=server", "pod/a labeled (server dry run)\n",
                 {"app": "web", "tier": "front"}, id="--dry-run=server changes nothing"),
    pytest.param("pod a env=prod -o name", "pod/a\n", {"app": "web", "tier": "front", "env": "prod"}, id="-o name"),
])
def test_label(pods, args, out, after):
    r = pods(f"label {args}")
    assert (r.code, r.out, r.err) == (0, out, "")
    assert labels(pods, "a") == after


def test_label_resource_version_must_match(pods):
    current = rv(pods, "a")
    r = pods("label pod a env=prod --resource-version=1")
    assert (r.code, r.out) == (1, "")
    assert r.err == ('Error from server (Conflict): Operation cannot be fulfilled on pods "a": the object has been '
                     "modified; please apply your changes to the latest version and try again\n")
    assert pods.ok(f"label pod a env=prod --resource-version={current}") == "pod/a labeled\n"
    # no label changes: nothing is sent, so nothing conflicts
    assert pods.ok("label pod a env=prod --resource-version=1") == "pod/a not labeled\n"


def test_annotate_resource_version_is_always_sent(pods):
    r = pods("annotate pod a note=hello --resource-version=1")
    assert (r.code, r.err) == (1, 'Error from server (Conflict): Operation cannot be fulfilled on pods "a": the '
                                  "object has been modified; please apply your changes to the latest version and try "
                                  "again\n")
    assert pods.ok(f"annotate pod a note=bye --overwrite --resource-version={rv(pods, 'a')}") == "pod/a annotated\n"
    assert labels(pods, "a", "annotations") == {"note": "bye"}


@pytest.mark.parametrize("verb, args, out", [
    pytest.param("label", "pod a --list", "app=web\ntier=front\n", id="one object: its labels"),
    pytest.param("label", "pod a env=prod --list", "app=web\nenv=prod\ntier=front\n",
                 id="--list shows the labels with the command's changes, without saving them"),
    pytest.param("label", "pods --all --list", "Listing labels for Pod./a:\n app=web\n tier=front\n"
                                               "Listing labels for Pod./b:\n app=web\n",
                 id="several objects: a heading each"),
    pytest.param("annotate", "pod a --list", "note=hello\n", id="annotations too"),
])
def test_list(pods, verb, args, out):
    assert pods.ok(f"{verb} {args}") == out
    assert "env" not in labels(pods, "a")


@pytest.mark.parametrize("args, err", [
    # label_test.go TestLabelErrors
    ("label", "error: one or more resources must be specified as <resource> <name> or <resource>/<name>\n"),
    ("label pods", "error: at least one label update is required\n"),
    ("label pods -", "error: at least one label update is required\n"),
    ("label pods =bar", "error: at least one label update is required\n"),
    ("label pods-", "error: one or more resources must be specified as <resource> <name> or <resource>/<name>\n"),
    ("label pods=bar", "error: one or more resources must be specified as <resource> <name> or <resource>/<name>\n"),
    ("label pods app=bar", "error: resource(s) were provided, but no name was specified\n"),
    ("label pods,deployments app=bar", "error: resource(s) were provided, but no name was specified\n"),
    ("annotate", "error: one or more resources must be specified as <resource> <name> or <resource>/<name>\n"),
    ("taint", "error: one or more resources must be specified as <resource> <name>\n"),
    ("label pod a tier=back", "error: 'tier' already has a value (front), and --overwrite is false\n"),
    # several clashes: kubectl's aggregate, one unprefixed line each
    ("label pods --all app=x tier=y", "'app' already has a value (web), and --overwrite is false\n"
                                      "'tier' already has a value (front), and --overwrite is false\n"),
    ("label pods a b env=prod --resource-version=1", "error: --resource-version may only be used with a single "
                                                     "resource\n"),
    ("label pods --all env=prod --resource-version=1", "error: --resource-version may only be used with a single "
                                                       "resource\n"),
    ("annotate pod a note=bye", "error: 'note' already has a value (hello), and --overwrite is false\n"),
    ("label pod a env=prod --dry-run=maybe", 'error: Invalid dry-run value (maybe). Must be "none", "server", or '
                                             '"client".\n'),
])
def test_bad_input_changes_nothing(pods, args, err):
    before = snapshot(pods.state_dir)
    r = pods(args)
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(pods.state_dir) == before


@pytest.mark.parametrize("args, out, taints", [
    pytest.param("node01 dedicated=gpu:NoSchedule --dry-run=client", "node/node01 tainted (dry run)\n", None,
                 id="--dry-run=client changes nothing"),
    pytest.param("node01 dedicated=gpu:NoSchedule -o name", "node/node01\n",
                 [{"effect": "NoSchedule", "key": "dedicated", "value": "gpu"}], id="-o name"),
    pytest.param("--all dedicated=gpu:NoSchedule", "node/controlplane tainted\nnode/node01 tainted\n"
                                                         "node/node02 tainted\n",
                 [{"effect": "NoSchedule", "key": "dedicated", "value": "gpu"}], id="--all taints every node"),
])
def test_taint(kubesim, args, out, taints):
    assert kubesim.ok(f"taint nodes {args}") == out
    assert json.loads(kubesim.ok("get node node01 -o json"))["spec"].get("taints") == taints


def test_taint_overwrite(kubesim):
    kubesim.ok("taint nodes node01 dedicated=gpu:NoSchedule")
    r = kubesim("taint nodes node01 dedicated=cpu:NoSchedule")
    assert (r.code, r.err) == (1, "error: node node01 already has dedicated taint(s) with same effect(s) and "
                                  "--overwrite is false\n")
    assert kubesim.ok("taint nodes node01 dedicated=cpu:NoSchedule --overwrite=true") == "node/node01 modified\n"
    assert json.loads(kubesim.ok("get node node01 -o json"))["spec"]["taints"] == [
        {"effect": "NoSchedule", "key": "dedicated", "value": "cpu"}]
