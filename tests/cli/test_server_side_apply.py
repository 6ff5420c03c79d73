"""``kubesim apply --server-side`` and the managedFields every write keeps.

The managedFields are compared with what kubectl 1.36 left on a real v1.35 apiserver (the
conformance oracle) for the same commands: ``testdata/ssa/oracle-managed-fields.json``, the
entries as the oracle stored them (times reduced to whether there is one, the controller
manager's status entry left out: the oracle's pods never ran). Texts: kubectl's apply.go
(the conflict advice, ``serverside-applied``, its flag checks) and apimachinery's
managedfields/internal/conflict.go.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from kubesim.testing.cli import snapshot

ORACLE = json.loads((pathlib.Path(__file__).parent / "testdata" / "ssa" / "oracle-managed-fields.json").read_text())

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web3
  labels: {app: web}
spec:
  replicas: REPLICAS
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels: {a: \"1\", b: \"2\"}\ndata: {x: \"1\", y: \"2\"}\n"
CM2 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels: {a: \"1\"}\ndata: {x: \"1\"}\n"
ADVICE = """
Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
"""


def _deploy(replicas: int) -> str:
    return DEPLOY.replace("REPLICAS", str(replicas))


def managed_fields(kubesim, ref: str) -> list[dict]:
    obj = json.loads(kubesim.ok(f"get {ref} -o json --show-managed-fields"))
    out = []
    for e in obj["metadata"].get("managedFields") or []:
        if e["manager"] == "kube-controller-manager":
            continue
        e = dict(e)
        e["time"] = "time" in e
        out.append(e)
    return out


def test_the_managers_of_a_client_side_then_server_side_applied_deployment_are_the_apiservers(kubesim):
    """apply; apply --server-side (kubectl's migration: kubectl-last-applied, kubectl);
    --field-manager=other --force-conflicts; scale (the scale subresource, manager kubectl)."""
    assert kubesim.ok("apply -f -", stdin=_deploy(2)) == "deployment.apps/web3 created\n"
    assert managed_fields(kubesim, "deploy web3") == ORACLE["a"]
    assert kubesim.ok("apply --server-side -f -", stdin=_deploy(2)) == "deployment.apps/web3 serverside-applied\n"
    assert managed_fields(kubesim, "deploy web3") == ORACLE["b"]
    kubesim.ok("apply --server-side -f -", stdin=_deploy(3))
    kubesim.ok("apply --server-side --field-manager=other --force-conflicts -f -", stdin=_deploy(3))
    assert managed_fields(kubesim, "deploy web3") == ORACLE["d"]
    kubesim.ok("scale deploy web3 --replicas=1")
    assert managed_fields(kubesim, "deploy web3") == ORACLE["f"]


def test_fields_the_sole_owner_stops_applying_are_removed(kubesim):
    kubesim.ok("apply --server-side -f -", stdin=CM)
    assert managed_fields(kubesim, "cm cfg") == ORACLE["cm1"]
    kubesim.ok("apply --server-side -f -", stdin=CM2)
    assert managed_fields(kubesim, "cm cfg") == ORACLE["cm2"]
    obj = json.loads(kubesim.ok("get cm cfg -o json"))
    assert (obj["data"], obj["metadata"]["labels"]) == ({"x": "1"}, {"a": "1"})
    kubesim.ok("label cm cfg extra=1")
    assert managed_fields(kubesim, "cm cfg") == ORACLE["cm3"]


def test_a_conflict_is_refused_with_kubectls_advice_and_changes_nothing(kubesim):
    kubesim.ok("apply --server-side -f -", stdin=_deploy(2))
    before = snapshot(kubesim.state_dir)
    r = kubesim("apply --server-side --field-manager=other -f -", stdin=_deploy(3))
    assert (r.code, r.out) == (1, "")
    assert r.err == 'error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas' + ADVICE
    assert snapshot(kubesim.state_dir) == before


def test_a_conflict_with_client_side_apply_names_its_version(kubesim):
    kubesim.ok("apply -f -", stdin=_deploy(2))
    r = kubesim("apply --server-side --field-manager=other -f -", stdin=_deploy(3))
    assert r.err.splitlines()[0] == ('error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" '
                                     "using apps/v1: .spec.replicas")


def test_the_same_value_is_co_owned_without_conflict(kubesim):
    kubesim.ok("apply --server-side -f -", stdin=_deploy(2))
    assert kubesim.ok("apply --server-side --field-manager=other -f -", stdin=_deploy(2)).endswith("serverside-applied\n")
    owners = [e["manager"] for e in managed_fields(kubesim, "deploy web3")
              if "f:replicas" in e["fieldsV1"].get("f:spec", {})]
    assert sorted(owners) == ["kubectl", "other"]


@pytest.mark.parametrize(("command", "stdin", "err"), [
    ("apply --force-conflicts -f -", CM, "error: --force-conflicts only works with --server-side\n"),
    ("apply --server-side -f -", CM.replace("\ndata:", "\nfoo: bar\ndata:"),
     ("Error from server: failed to create typed patch object (default/cfg; /v1, Kind=ConfigMap): "
      ".foo: field not declared in schema\n")),
    ("apply --server-side -f -", CM.replace("\ndata:", "\nfoo: bar\nbar: 1\ndata:"),
     ("Error from server: failed to create typed patch object (default/cfg; /v1, Kind=ConfigMap): errors:\n"
      "  .foo: field not declared in schema\n  .bar: field not declared in schema\n")),
], ids=["--force-conflicts without --server-side", "an unknown field", "two unknown fields"])
def test_bad_input(kubesim, command, stdin, err):
    kubesim.ok("get ns default")
    before = snapshot(kubesim.state_dir)
    r = kubesim(command, stdin=stdin)
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(kubesim.state_dir) == before


def test_managed_fields_are_hidden_unless_asked(kubesim):
    kubesim.ok("apply -f -", stdin=CM)
    assert "managedFields" not in kubesim.ok("get cm cfg -o yaml")
    assert "managedFields" not in kubesim.ok("get cm cfg -o json")
    assert "managedFields:" in kubesim.ok("get cm cfg -o yaml --show-managed-fields")
    # jsonpath and custom-columns see them without the flag, as the real kubectl's do
    assert kubesim.ok("get cm cfg -o jsonpath={.metadata.managedFields[*].manager}") == "kubectl-client-side-apply"
    assert kubesim.ok("get cm cfg -o custom-columns=M:.metadata.managedFields[*].manager") == \
        "M\nkubectl-client-side-apply\n"


@pytest.mark.parametrize(("command", "manager"), [
    ("create configmap made --from-literal=a=b", "kubectl-create"),
    ("label ns default x=y", "kubectl-label"),
    ("annotate ns default x=y", "kubectl-annotate"),
], ids=["create", "label", "annotate"])
def test_each_verb_writes_as_kubectls_manager(kubesim, command, manager):
    kubesim.ok(command)
    ref = "cm made" if command.startswith("create") else "ns default"
    obj = json.loads(kubesim.ok(f"get {ref} -o json --show-managed-fields"))
    assert manager in [e["manager"] for e in obj["metadata"].get("managedFields") or []]


def test_the_controllers_kubelet_and_scheduler_write_as_themselves(kubesim):
    kubesim.ok("create deployment d --image=nginx")
    pods = json.loads(kubesim.ok("get pods -o json --show-managed-fields"))["items"]
    entries = [(e["manager"], e["operation"], e.get("subresource", "")) for e in pods[0]["metadata"]["managedFields"]]
    assert entries == [("kube-controller-manager", "Update", ""), ("kubelet", "Update", "status")]
    rs = json.loads(kubesim.ok("get rs -o json --show-managed-fields"))["items"][0]
    assert [e["manager"] for e in rs["metadata"]["managedFields"]] == ["kube-controller-manager"] * 2


def test_a_graceful_or_finalized_delete_leaves_managed_fields_as_they_were(kubesim):
    """The registry's deletion update (deletionTimestamp) writes storage directly: no entry
    for the deleting client."""
    kubesim.ok("apply -f -", stdin="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n"
                                   "  finalizers: [example.com/keep]\n")
    before = managed_fields(kubesim, "cm f")
    kubesim.ok("delete cm f --wait=false")
    obj = json.loads(kubesim.ok("get cm f -o json --show-managed-fields"))
    assert obj["metadata"]["deletionTimestamp"]
    assert managed_fields(kubesim, "cm f") == before


def test_cordon_writes_as_kubectl_its_user_agent(kubesim):
    """drain's cordon helper patches without a fieldManager: the apiserver names the write
    after kubectl's user agent (k8s.io/kubectl pkg/drain/cordon.go)."""
    kubesim.ok("cordon node01")
    node = json.loads(kubesim.ok("get node node01 -o json --show-managed-fields"))
    entries = [(e["manager"], e["fieldsV1"]) for e in node["metadata"]["managedFields"] if e["manager"] == "kubectl"]
    assert entries == [("kubectl", {"f:spec": {"f:unschedulable": {}}})]
