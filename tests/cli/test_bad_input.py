"""Every bad input the foundation issue lists: a clear kubectl-style error, exit 1, and a state
exactly as it was (compared row for row)."""

import os

import pytest

from kubesim.testing.cli import snapshot

GOOD = """apiVersion: v1
kind: Pod
metadata:
  name: good
spec:
  containers:
  - name: c
    image: nginx
"""

BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'] +
    [f"{chr(97 + i)}: &{chr(97 + i)} [" + ",".join([f"*{chr(96 + i)}"] * 9) + "]" for i in range(1, 9)]
) + "\n"

CASES = [
    ("malformed YAML", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   bad: indent\n",
     "error: error parsing {f}: error converting YAML to JSON: yaml: line"),
    ("a document without kind", "apiVersion: v1\nmetadata:\n  name: x\n",
     'error: error validating "{f}": error validating data: kind not set'),
    ("a document without apiVersion", "kind: Pod\nmetadata:\n  name: x\n",
     'error: error validating "{f}": error validating data: apiVersion not set'),
    ("a document without metadata.name", "apiVersion: v1\nkind: Pod\nmetadata: {}\nspec:\n  containers:\n  - name: c\n    image: nginx\n",
     'error: error when retrieving current configuration of:\nResource: "/v1, Resource=pods", GroupVersionKind: '
     '"/v1, Kind=Pod"\nName: "", Namespace: "default"\nfrom server for: "{f}": resource name may not be empty'),
    ("a document with only generateName", "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\n",
     "error: from web-: cannot use generate name with apply"),
    ("an unknown kind", "apiVersion: v1\nkind: Widget\nmetadata:\n  name: x\n",
     'error: resource mapping not found for name: "x" namespace: "" from "{f}": no matches for kind "Widget" in version "v1"'),
    ("an unknown apiVersion", "apiVersion: v7\nkind: Pod\nmetadata:\n  name: x\n",
     'no matches for kind "Pod" in version "v7"'),
    ("an unknown field", GOOD.replace("  containers:", "  colour: blue\n  containers:"),
     'Error from server (BadRequest): error when creating "{f}": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.colour"'),
    ("a field of the wrong type", GOOD.replace("  containers:\n  - name: c\n    image: nginx\n", "  containers: nginx\n"),
     'Error from server (BadRequest): error when creating "{f}": Pod in version "v1" cannot be handled as a Pod:'),
    ("an invalid name", GOOD.replace("name: good", "name: Not_Valid"),
     'The Pod "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain'),
    ("a quantity that does not parse", GOOD + "    resources:\n      requests:\n        cpu: lots\n",
     "quantities must match the regular expression"),
    ("a YAML alias bomb", BOMB, "excessive aliasing"),
    ("a namespace that does not exist", GOOD.replace("name: good", "name: good\n  namespace: nowhere"),
     'Error from server (NotFound): error when creating "{f}": namespaces "nowhere" not found'),
]


@pytest.mark.parametrize("what, text, message", [pytest.param(*c, id=c[0] + " is refused") for c in CASES])
def test_bad_manifest_is_refused_and_changes_nothing(kubesim, tmp_path, what, text, message):
    kubesim.ok("get nodes")  # the default cluster exists
    f = tmp_path / "bad.yaml"
    # a valid document first: it must not be written either
    multi = what not in ("a YAML alias bomb", "malformed YAML")
    f.write_text(GOOD + "---\n" + text if multi else text)
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"apply -f {f}")
    assert r.code == 1
    assert r.out == ""
    expected = message.format(f=f)
    if multi and "resource mapping not found" not in expected:  # kubectl names only the file there
        expected = expected.replace(f'"{f}"', f'"{f}" (document 2)')
    assert expected in r.err, r.err
    assert snapshot(kubesim.state_dir) == before


def test_binary_junk_is_refused(kubesim, tmp_path):
    kubesim.ok("get nodes")
    f = tmp_path / "junk.yaml"
    f.write_bytes(os.urandom(4096) + b"\x00")
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"apply -f {f}")
    assert (r.code, r.out) == (1, "")
    assert r.err.startswith(f"error: error parsing {f}:")
    assert snapshot(kubesim.state_dir) == before


def test_a_file_that_does_not_exist_is_refused(kubesim, tmp_path):
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"apply -f {tmp_path}/missing.yaml")
    assert (r.code, r.err) == (1, f'error: the path "{tmp_path}/missing.yaml" does not exist\n')
    assert snapshot(kubesim.state_dir) == before


def test_a_directory_with_no_manifests_is_refused(kubesim, tmp_path):
    kubesim.ok("get nodes")
    d = tmp_path / "empty"
    d.mkdir()
    (d / "notes.txt").write_text("hello")
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"apply -f {d}")
    assert (r.code, r.err) == (1, "error: no objects passed to apply\n")
    assert snapshot(kubesim.state_dir) == before


def test_a_50MB_file_is_refused_with_the_size_limit(kubesim, tmp_path):
    kubesim.ok("get nodes")
    f = tmp_path / "big.yaml"
    with open(f, "wb") as fh:
        fh.write(GOOD.encode())
        fh.truncate(50 * 1024 * 1024)
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"apply -f {f}")
    assert r.code == 1
    assert "larger than kubesim's limit" in r.err
    assert snapshot(kubesim.state_dir) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_a_state_directory_that_is_not_writable_is_refused(kubesim, tmp_path):
    kubesim.ok("get nodes")
    os.chmod(kubesim.state_dir, 0o500)
    try:
        r = kubesim("get pods")
        assert r.code == 1 and "not writable" in r.err
    finally:
        os.chmod(kubesim.state_dir, 0o700)


def test_a_state_path_that_cannot_be_a_directory_is_refused(tmp_path):
    from kubesim.testing.cli import Harness

    f = tmp_path / "a-file"
    f.write_text("")
    h = Harness(f / "state")
    r = h("get pods")
    assert r.code == 1
    assert r.err.startswith("error: cannot create state directory")


def test_create_refuses_an_existing_object_and_changes_nothing(kubesim, tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(GOOD)
    kubesim.ok(f"create -f {f}")
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"create -f {f}")
    assert (r.code, r.err) == (1, f'Error from server (AlreadyExists): error when creating "{f}": pods "good" already exists\n')
    assert snapshot(kubesim.state_dir) == before


def test_every_invalid_document_of_a_multi_document_apply_is_reported(kubesim, tmp_path):
    f = tmp_path / "multi.yaml"
    f.write_text(GOOD + "---\n" + GOOD.replace("name: good", "name: Bad_1") + "---\n" +
                 GOOD.replace("  containers:", "  colour: blue\n  containers:"))
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"apply -f {f}")
    assert r.code == 1
    assert f'"{f}" (document 3)' in r.err and 'unknown field "spec.colour"' in r.err
    assert snapshot(kubesim.state_dir) == before


DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx
"""


@pytest.mark.parametrize("change, message", [
    pytest.param(("matchLabels: {app: web}", "matchLabels: {app: other}"),
                 'The Deployment "web" is invalid: spec.template.metadata.labels: Invalid value: '
                 '{"app":"web"}: `selector` does not match template `labels`',
                 id="a deployment whose selector does not match its labels"),
    pytest.param(("replicas: 3", "replicas: -1"),
                 'The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
                 id="negative replicas"),
])
def test_bad_deployments_are_refused_and_change_nothing(kubesim, tmp_path, change, message):
    kubesim.ok("get nodes")
    f = tmp_path / "d.yaml"
    f.write_text(DEPLOY.replace(*change))
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"apply -f {f}")
    assert (r.code, r.out, r.err) == (1, "", message + "\n")
    assert snapshot(kubesim.state_dir) == before


NAMELESS = "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n"
GENERATED = "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: x-}\n"


# each verb meets a document without a name as kubectl 1.36 does against a real v1.35 cluster
@pytest.mark.parametrize("verb, text, code, out, err", [
    ("create", NAMELESS, 1, "",
     'The ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required\n'),
    ("replace", NAMELESS, 1, "", 'error: error when replacing "{f}": resource name may not be empty\n'),
    ("delete", GENERATED, 1, "", 'error: error when deleting "{f}": resource name may not be empty\n'),
    # RetrieveLatest leaves a nameless object as the file has it: the generic table, no error
    ("get", NAMELESS + "---\n" + GENERATED, 0, "NAME   AGE\n       <unknown>\n       <unknown>\n", ""),
    ("get -o name", NAMELESS, 0, "configmap/<unknown>\n", ""),
], ids=["create", "replace", "delete", "get", "get -o name"])
def test_a_document_without_a_name(kubesim, tmp_path, verb, text, code, out, err):
    f = tmp_path / "cm.yaml"
    f.write_text(text)
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"{verb} -f {f}")
    assert (r.code, r.out, r.err) == (code, out, err.format(f=f))
    assert snapshot(kubesim.state_dir) == before


def test_create_names_a_generate_name_document(kubesim, tmp_path):
    f = tmp_path / "cm.yaml"
    f.write_text(GENERATED)
    assert kubesim.ok(f"create -f {f} -o name").startswith("configmap/x-")


def test_explain_schedule_of_a_generate_name_pod(kubesim, tmp_path):
    f = tmp_path / "pod.yaml"
    f.write_text("apiVersion: v1\nkind: Pod\nmetadata: {generateName: p-}\nspec:\n  containers:\n  - name: c\n"
                 "    image: nginx\n")
    out = kubesim.ok(f"explain-schedule -f {f}")
    assert out.startswith("Pod default/p-") and "outcome: Scheduled" in out.splitlines()[0]


POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: good\nspec:\n  containers:\n  - name: c\n    image: nginx\n"


def test_a_refused_pod_update_prints_the_spec_diff_and_a_blank_line(kubesim, tmp_path):
    """kubectl writes an Invalid error with MultilineError, which adds a newline after the cause:
    after a pod-update diff, which ends in one, that is a blank line (a real v1.35 cluster and
    kubectl 1.36, conformance bad-manifests step 29; the diff's line numbers follow the stored
    pod, with its service account volume and the default tolerations)."""
    kubesim.ok("get nodes")
    f = tmp_path / "pod.yaml"
    f.write_text(POD)
    kubesim.ok(f"apply -f {f}")
    f.write_text(POD + "    ports:\n    - containerPort: 8080\n")
    r = kubesim(f"apply -f {f}")
    assert (r.code, r.out) == (1, "")
    assert r.err.endswith('''\
@@ -96,7 +96,15 @@
    "Command": null,
    "Args": null,
    "WorkingDir": "",
-   "Ports": null,
+   "Ports": [
+    {
+     "Name": "",
+     "HostPort": 0,
+     "ContainerPort": 8080,
+     "Protocol": "TCP",
+     "HostIP": ""
+    }
+   ],
    "EnvFrom": null,
    "Env": null,
    "Resources": {

''')
