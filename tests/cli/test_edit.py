"""patch, replace and edit, end to end through the CLI (pinned clock and seed).

The strategic merge, JSON merge and JSON patch results are compared byte for byte with the real
kubectl's ``patch --local -o yaml`` (the same apimachinery code the API server runs) when the
kubectl binary is installed."""

import json
import os
import re
import stat
import subprocess
import sys

import pytest

from kubesim.testing import real_kubectl
from kubesim.testing.cli import snapshot

WEB = """apiVersion: apps/v1
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
        image: nginx:1.27
        ports:
        - containerPort: 80
"""


@pytest.fixture
def web(kubesim, tmp_path):
    f = tmp_path / "web.yaml"
    f.write_text(WEB)
    kubesim.ok(f"apply -f {f}")
    kubesim.ok("advance 5s")  # the image pulls: the pods run
    return kubesim


def obj(kubesim, what="deployment/web"):
    return json.loads(kubesim.ok(f"get {what} -o json"))


def fails_cleanly(kubesim, command, stderr, stdout=""):
    before = snapshot(kubesim.state_dir)
    r = kubesim(command)
    assert (r.code, r.out, r.err) == (1, stdout, stderr)
    assert snapshot(kubesim.state_dir) == before


# -- patch ------------------------------------------------------------------------------------

def containers(kubesim):
    return obj(kubesim)["spec"]["template"]["spec"]["containers"]


@pytest.mark.parametrize("args, line, check", [
    (["-p", '{"spec":{"replicas":5}}'], "patched", lambda d: d["spec"]["replicas"] == 5),
    (["-p", "spec:\n  replicas: 2\n"], "patched", lambda d: d["spec"]["replicas"] == 2),
    (["-p", '{"spec":{"replicas":3}}'], "patched (no change)", lambda d: d["spec"]["replicas"] == 3),
    (["-p", '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox:1.36"}]}}}}'], "patched",
     lambda d: [c["name"] for c in d["spec"]["template"]["spec"]["containers"]] == ["side", "nginx"]),
    (["-p", '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}'], "patched",
     lambda d: [(c["name"], c["image"], c["ports"][0]["containerPort"])
                for c in d["spec"]["template"]["spec"]["containers"]] == [("nginx", "nginx:1.28", 80)]),
    (["--type", "merge", "-p", '{"metadata":{"labels":{"tier":"frontend"}}}'], "patched",
     lambda d: d["metadata"]["labels"] == {"tier": "frontend"}),
    (["--type=merge", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"redis"}]}}}}'],
     "patched", lambda d: [c["name"] for c in d["spec"]["template"]["spec"]["containers"]] == ["only"]),
    (["--type", "json", "-p", '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.29"}]'],
     "patched", lambda d: d["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.29"),
    (["--type", "json", "-p", '[{"op":"add","path":"/metadata/labels","value":{"a":"b"}},'
                              '{"op":"test","path":"/spec/replicas","value":3}]'],
     "patched", lambda d: d["metadata"]["labels"] == {"a": "b"}),
    (["-p", '{"spec":{"foo":1}}'], "patched (no change)", lambda d: "foo" not in d["spec"]),
    (["-p", '{"spec":{"replicas":4}}', "-o", "name"], None, lambda d: d["spec"]["replicas"] == 4),
], ids=["strategic: a scalar", "strategic, written as YAML", "strategic: nothing to change",
        "strategic: a new container goes first, as upstream orders it", "strategic: containers merge by name",
        "merge: labels", "merge: lists are replaced", "json: replace", "json: add and test",
        "an unknown field is dropped with a warning", "-o name"])
def test_patch(web, args, line, check):
    r = web(["patch", "deployment", "web"] + args)
    assert r.code == 0, r.err
    assert r.out == (f"deployment.apps/web {line}\n" if line else "deployment.apps/web\n")
    assert check(obj(web))
    assert r.err == ('Warning: unknown field "spec.foo"\n' if "foo" in args[-1] else "")


def test_patch_delete_directive_and_patch_file(web, tmp_path):
    web.ok(["patch", "deploy", "web", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"b"}]}}}}'])
    f = tmp_path / "patch.yaml"
    f.write_text("spec:\n  template:\n    spec:\n      containers:\n      - name: side\n        $patch: delete\n")
    assert web.ok(f"patch deploy/web --patch-file {f}") == "deployment.apps/web patched\n"
    assert [c["name"] for c in containers(web)] == ["nginx"]


@pytest.mark.parametrize("args, stderr", [
    (["-p", '{"spec":{"replicas":-1}}'],
     'The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'),
    (["-p", '{"spec":{"selector":{"matchLabels":{"app":"other"}}}}'],
     'The Deployment "web" is invalid: \n'
     '* spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match '
     "template `labels`\n"
     '* spec.selector: Invalid value: {"matchLabels":{"app":"other"}}: field is immutable'),
    (["-p", '{"spec":{"replicas":"many"}}'],
     'The request is invalid: patch: Invalid value: "map[spec:map[replicas:many]]": json: cannot unmarshal '
     "string into Go struct field DeploymentSpec.spec.replicas of type int32"),
    (["-p", '{"metadata":{"name":"other"}}'],
     "Error from server (BadRequest): the name of the object (other) does not match the name on the URL (web)"),
    (["--type", "json", "-p", '{"op":"remove","path":"/spec/replicas"}'],
     "Error from server (BadRequest): json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
    (["--type", "json", "-p", '[{"op":"replace","path":"/spec/nope/x","value":1}]'], "The request is invalid"),
    (["--type", "json", "-p", '[{"op":"test","path":"/spec/replicas","value":9}]'], "The request is invalid"),
    (["--type", "yaml", "-p", "{}"], 'error: --type must be one of [json merge strategic], not "yaml"'),
    ([], "error: must specify --patch or --patch-file containing the contents of the patch"),
    (["-p", "{}", "--patch-file", "x"], "error: cannot specify --patch and --patch-file together"),
    (["--patch-file", "/nonexistent/p.json"],
     "error: unable to read patch file: open /nonexistent/p.json: no such file or directory"),
    (["-p", "spec: [replicas"], 'error: unable to parse "spec: [replicas": yaml: line 2: did not find expected '
                                "',' or ']'"),
], ids=["a patched object that fails validation", "an immutable selector", "a value of the wrong type",
        "a renamed object", "a JSON patch that is not a list", "a JSON patch on a missing path",
        "a JSON patch test that fails", "an unknown patch type", "no patch", "two patches",
        "a patch file that does not exist", "a patch that does not parse"])
def test_patch_refuses_bad_input_and_changes_nothing(web, args, stderr):
    fails_cleanly(web, ["patch", "deployment", "web"] + args, stderr + "\n")


def test_patch_of_a_missing_object(web):
    fails_cleanly(web, ["patch", "deployment", "nope", "-p", "{}"],
                  'Error from server (NotFound): deployments.apps "nope" not found\n')


def test_patch_locally_prints_the_result_and_stores_nothing(web, tmp_path):
    f = tmp_path / "web.yaml"
    before = snapshot(web.state_dir)
    out = web.ok(["patch", "--local", "-f", str(f), "-p", '{"spec":{"replicas":7}}', "-o", "json"])
    assert json.loads(out)["spec"]["replicas"] == 7
    assert web.ok(["patch", "--local", "-f", str(f), "-p", '{"spec":{"replicas":7}}']) == "deployment.apps/web patched\n"
    assert snapshot(web.state_dir) == before


def _kubectl():
    return real_kubectl()


LOCAL = WEB.replace("metadata:\n  name: web\n", "metadata:\n  name: web\n  namespace: default\n  finalizers: [f1, b]\n"
                    ).replace("        - containerPort: 80\n",
                              "        - containerPort: 80\n      - name: log\n        image: busybox\n")

ORACLE = [
    ("strategic", '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"b"},{"name":"nginx","image":"n"}]}}}}'),
    ("strategic", '{"spec":{"template":{"spec":{"containers":[{"name":"log","$patch":"delete"}]}}}}'),
    ("strategic", '{"spec":{"template":{"spec":{"containers":[{"name":"x","image":"y"},{"$patch":"replace"}]}}}}'),
    ("strategic", '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","ports":[{"containerPort":443}]}]}}}}'),
    ("strategic", '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","ports":[{"containerPort":80,'
                  '"$patch":"delete"}]}]}}}}'),
    ("strategic", '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"A","value":"1"}]}]}}}}'),
    ("strategic", '{"metadata":{"finalizers":["b","a"]}}'),
    ("strategic", '{"metadata":{"$deleteFromPrimitiveList/finalizers":["f1"]}}'),
    ("strategic", '{"spec":{"template":{"metadata":{"labels":{"$patch":"replace","app":"web","x":"y"}}}}}'),
    ("strategic", '{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}'),
    ("strategic", '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"log"},{"name":"nginx"}],'
                  '"containers":[{"name":"nginx","image":"n2"}]}}}}'),
    ("strategic", '{"spec":{"template":{"spec":{"tolerations":[{"key":"a","operator":"Exists"}]}}}}'),
    ("strategic", '{"spec":{"replicas":null,"selector":{"matchLabels":{"app":null}}}}'),
    ("merge", '{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"z"}]}}}}'),
    ("merge", '{"metadata":{"labels":{"a":"b"},"namespace":null}}'),
    ("json", '[{"op":"add","path":"/spec/template/spec/containers/-","value":{"name":"z","image":"z"}}]'),
    ("json", '[{"op":"remove","path":"/spec/template/spec/containers/0/ports"},'
             '{"op":"copy","from":"/spec/replicas","path":"/metadata/labels"}]'),
    ("json", '[{"op":"move","from":"/spec/template/spec/containers/1","path":"/spec/template/spec/containers/0"}]'),
    ("json", '[{"op":"test","path":"/spec/replicas","value":3},{"op":"replace","path":"/spec/replicas","value":5}]'),
]


@pytest.mark.skipif(_kubectl() is None, reason="the real kubectl is not installed")
@pytest.mark.parametrize("patch_type, patch", ORACLE, ids=[f"{t}: {p}" for t, p in ORACLE])
def test_patches_match_the_real_kubectl_byte_for_byte(kubesim, tmp_path, patch_type, patch):
    f = tmp_path / "local.yaml"
    f.write_text(LOCAL)
    argv = ["patch", "--local", "-f", str(f), "--type", patch_type, "-p", patch, "-o", "yaml"]
    real = subprocess.run([_kubectl()] + argv, capture_output=True, text=True, check=True,
                          env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "KUBECONFIG": "/dev/null"})
    assert kubesim.ok(argv) == real.stdout


NODE = """apiVersion: v1
kind: Node
metadata:
  name: node01
spec:
  podCIDRs: [10.0.0.0/24]
  taints:
  - {key: a, value: "1", effect: NoSchedule}
  - {key: b, effect: NoExecute}
"""

NODE_ORACLE = [
    # NodeSpec.taints has no patch strategy: the list is replaced, not merged by key
    '{"spec":{"taints":[{"key":"a","value":"2","effect":"NoSchedule"}]}}',
    '{"spec":{"podCIDRs":["10.0.1.0/24"]}}',
]


@pytest.mark.skipif(_kubectl() is None, reason="the real kubectl is not installed")
@pytest.mark.parametrize("patch", NODE_ORACLE)
def test_node_patches_match_the_real_kubectl(kubesim, tmp_path, patch):
    f = tmp_path / "node.yaml"
    f.write_text(NODE)
    argv = ["patch", "--local", "-f", str(f), "-p", patch, "-o", "yaml"]
    real = subprocess.run([_kubectl()] + argv, capture_output=True, text=True, check=True,
                          env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "KUBECONFIG": "/dev/null"})
    assert kubesim.ok(argv) == real.stdout


@pytest.mark.skipif(_kubectl() is None, reason="the real kubectl is not installed")
def test_a_local_patch_error_is_the_patch_librarys_message(kubesim, tmp_path):
    """kubectl patch --local prints strategicpatch's own error (no "Internal error occurred"),
    with the patch's values as Go's %v prints them (floats in %g form)."""
    f = tmp_path / "node.yaml"
    f.write_text(NODE)
    argv = ["patch", "--local", "-f", str(f), "-o", "name",
            "-p", '{"metadata":{"$patch":"bogus","x":12345678.5,"y":1e-7,"z":1234567.0,"w":[1.5,2]}}']
    real = subprocess.run([_kubectl()] + argv, capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent", "KUBECONFIG": "/dev/null"})
    r = kubesim(argv)
    assert (r.code, r.out, r.err) == (real.returncode, real.stdout, real.stderr)
    assert "map[$patch:bogus w:[1.5 2] x:1.23456785e+07 y:1e-07 z:1.234567e+06]" in r.err


def test_the_patch_strategies_are_the_schemas():
    """PATCH_MERGE_KEYS and friends agree with the x-kubernetes-patch-* extensions of the v1.35
    definitions for the types of the kinds kubesim serves (patch and apply both use them)."""
    from kubesim.api import patch as wl
    from kubesim.codec.schema import schema_dir

    with open(os.path.join(schema_dir(), "_definitions.json")) as f:
        defs = json.load(f)["$defs"]
    keys, primitive, retain = {}, set(), set()
    for name, d in defs.items():
        if not name.startswith(("io.k8s.api.core.v1.", "io.k8s.api.apps.v1.", "io.k8s.apimachinery.pkg.apis.meta.v1.")):
            continue
        if name.split(".")[-1] in ("ServiceSpec", "ServiceAccount", "EndpointSubset"):
            continue  # kinds kubesim does not serve (their "ports"/"secrets" keys differ)
        for prop, s in (d.get("properties") or {}).items():
            strategy = s.get("x-kubernetes-patch-strategy", "")
            if "merge" in strategy:
                if "x-kubernetes-patch-merge-key" in s:
                    assert keys.setdefault(prop, s["x-kubernetes-patch-merge-key"]) == s["x-kubernetes-patch-merge-key"]
                else:
                    primitive.add(prop)
            if "retainKeys" in strategy:
                retain.add(prop)
    assert keys == wl.PATCH_MERGE_KEYS
    assert primitive == {field for _, field in wl.PATCH_MERGE_PRIMITIVE}
    assert retain == wl.PATCH_RETAIN_KEYS


# -- replace ----------------------------------------------------------------------------------

def manifest(tmp_path, text, name="replace.yaml"):
    f = tmp_path / name
    f.write_text(text)
    return f


def test_replace_updates_the_whole_object(web, tmp_path):
    f = manifest(tmp_path, WEB.replace("replicas: 3", "replicas: 1").replace("nginx:1.27", "nginx:1.28"))
    uid = obj(web)["metadata"]["uid"]
    assert web.ok(f"replace -f {f}") == "deployment.apps/web replaced\n"
    d = obj(web)
    assert (d["spec"]["replicas"], d["metadata"]["uid"]) == (1, uid)
    assert "kubectl.kubernetes.io/last-applied-configuration" not in d["metadata"].get("annotations", {})
    assert containers(web)[0]["image"] == "nginx:1.28"
    web.ok("advance 5s")  # the new pod pulls nginx:1.28 before the rollout can finish
    assert len(json.loads(web.ok("get pods -o json"))["items"]) == 1


def test_replace_force_deletes_and_recreates(web, tmp_path):
    f = manifest(tmp_path, WEB)
    uid = obj(web)["metadata"]["uid"]
    assert web.ok(f"replace --force -f {f}") == \
        'deployment.apps "web" deleted from default namespace\ndeployment.apps/web replaced\n'
    assert obj(web)["metadata"]["uid"] != uid
    rss = json.loads(web.ok("get rs -o json"))["items"]
    assert len(rss) == 1 and rss[0]["status"]["replicas"] == 3


def test_replace_force_creates_what_is_missing(web, tmp_path):
    f = manifest(tmp_path, WEB.replace("name: web", "name: other"))
    assert web.ok(f"replace --force -f {f}") == "deployment.apps/other replaced\n"


@pytest.mark.parametrize("text, stderr", [
    (WEB.replace("name: web", "name: nope"),
     'Error from server (NotFound): error when replacing "{f}": deployments.apps "nope" not found'),
    (WEB.replace("app: web", "app: x"),
     'The Deployment "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"x"}}: field is immutable'),
    (WEB.replace("replicas: 3", "replicas: -2"),
     'The Deployment "web" is invalid: spec.replicas: Invalid value: -2: must be greater than or equal to 0'),
    (WEB.replace("  name: web\n", '  name: web\n  resourceVersion: "1"\n'),
     'Error from server (Conflict): error when replacing "{f}": Operation cannot be fulfilled on deployments.apps '
     '"web": the object has been modified; please apply your changes to the latest version and try again'),
    (WEB.replace("  replicas: 3\n", "  replicas: 3\n  foo: bar\n"),
     'Error from server (BadRequest): error when replacing "{f}": Deployment in version "v1" cannot be handled as '
     'a Deployment: strict decoding error: unknown field "spec.foo"'),
], ids=["an object that does not exist", "an immutable selector", "negative replicas", "a stale resourceVersion",
        "an unknown field"])
def test_replace_refuses_bad_input_and_changes_nothing(web, tmp_path, text, stderr):
    f = manifest(tmp_path, text)
    fails_cleanly(web, f"replace -f {f}", stderr.replace("{f}", str(f)) + "\n")


def test_replace_needs_a_file(web):
    fails_cleanly(web, "replace", "error: Must specify --filename to replace\n"
                                  "See 'kubesim replace -h' for help and examples\n")


# -- edit -------------------------------------------------------------------------------------

@pytest.fixture
def editor(web, tmp_path):
    """``editor(body)``: an $EDITOR script running ``body`` on ``text`` (the file's content); every
    version it was shown is kept in ``shown`` (a list of texts)."""
    log = tmp_path / "shown.jsonl"
    web.vars["TMPDIR"] = str(tmp_path)

    def make(body: str, var: str = "EDITOR"):
        script = tmp_path / f"editor{len(list(tmp_path.glob('editor*')))}.py"
        script.write_text(
            f"#!{sys.executable}\n"
            "import json, pathlib, re, sys\n"
            "p = pathlib.Path(sys.argv[1])\n"
            "text = p.read_text()\n"
            f"with open({str(log)!r}, 'a') as f:\n"
            "    f.write(json.dumps(text) + '\\n')\n"
            f"{body}\n"
            "p.write_text(text)\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        web.vars[var] = str(script)
        return script

    def shown():
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    make.shown = shown
    return make


def test_edit_applies_what_the_editor_saved(web, editor):
    editor("text = text.replace('\\n  replicas: 3\\n', '\\n  replicas: 5\\n')")
    r = web("edit deployment web")
    assert (r.code, r.out, r.err) == (0, "deployment.apps/web edited\n", "")
    assert obj(web)["spec"]["replicas"] == 5
    [shown] = editor.shown()
    assert shown.startswith(
        "# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
        "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
        "# reopened with the relevant failures.\n"
        "#\n"
        "apiVersion: apps/v1\n"
        "kind: Deployment\n")
    assert "\nstatus:\n" in shown and "managedFields" not in shown


def test_edit_prefers_kube_editor_and_takes_type_slash_name(web, editor):
    editor("text = text.replace('nginx:1.27', 'nginx:1.28')", var="KUBE_EDITOR")
    web.vars["EDITOR"] = "/nonexistent/editor"
    assert web.ok("edit deploy/web") == "deployment.apps/web edited\n"
    assert containers(web)[0]["image"] == "nginx:1.28"
    assert {rs["spec"]["template"]["spec"]["containers"][0]["image"]
            for rs in json.loads(web.ok("get rs -o json"))["items"]} == {"nginx:1.27", "nginx:1.28"}


@pytest.mark.parametrize("body, stderr", [
    ("pass", "Edit cancelled, no changes made.\n"),
    ("text = '# ' + text.replace('\\n', '\\n# ')", "Edit cancelled, saved file was empty.\n"),
    ("text = text.replace('\\n  replicas: 3\\n', '\\n  # a comment\\n  replicas: 3\\n')",
     "Edit cancelled, no changes made.\n"),
], ids=["an editor that changes nothing", "an emptied file", "only a comment added"])
def test_edit_cancelled(web, editor, body, stderr):
    editor(body)
    before = snapshot(web.state_dir)
    r = web("edit deployment web")
    assert (r.code, r.out, r.err) == (0, "", stderr)
    assert snapshot(web.state_dir) == before


def test_an_invalid_edit_reopens_with_the_errors_then_gives_up_unchanged(web, editor, tmp_path):
    editor("text = re.sub(r'(?m)^  replicas: 3$', '  replicas: -3', text)")
    before = snapshot(web.state_dir)
    r = web("edit deployment web")
    saved = sorted(tmp_path.glob("kubesim-edit-*.yaml"))
    assert len(saved) == 1
    assert (r.code, r.out) == (1, "")
    assert r.err == ('error: deployments.apps "web" is invalid\n'
                     f'A copy of your changes has been stored to "{saved[0]}"\n'
                     "error: Edit cancelled, no valid changes were saved.\n")
    assert snapshot(web.state_dir) == before
    first, second = editor.shown()
    assert second.startswith(
        "# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
        "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
        "# reopened with the relevant failures.\n"
        "#\n"
        '# deployments.apps "web" was not valid:\n'
        "# * spec.replicas: Invalid value: -3: must be greater than or equal to 0\n"
        "#\n"
        "apiVersion: apps/v1\n")
    assert "\n  replicas: -3\n" in second


def test_an_edit_fixed_on_the_second_try_is_applied(web, editor, tmp_path):
    editor("text = re.sub(r'(?m)^  replicas: -3$', '  replicas: 2', text)\n"
           "text = re.sub(r'(?m)^  replicas: 3$', '  replicas: -3', text)")
    r = web("edit deployment web")
    assert (r.code, r.out, r.err) == (0, "deployment.apps/web edited\n", 'error: deployments.apps "web" is invalid\n')
    assert obj(web)["spec"]["replicas"] == 2
    assert not list(tmp_path.glob("kubesim-edit-*"))


@pytest.mark.parametrize("body, stderr", [
    ("text = text.replace('\\n  name: web\\n', '\\n  name: other\\n')",
     "error: At least one of apiVersion, kind and name was changed"),
    ("text = text.replace('\\nspec:\\n', '\\nspec: [\\n')", "error: Edit cancelled, no valid changes were saved."),
], ids=["a renamed object", "a file that no longer parses (re-opened, then given up)"])
def test_edit_refuses_and_keeps_a_copy(web, editor, tmp_path, body, stderr):
    editor(body)
    before = snapshot(web.state_dir)
    r = web("edit deployment web")
    [saved] = sorted(tmp_path.glob("kubesim-edit-*.yaml"))
    assert (r.code, r.out) == (1, "")
    assert r.err == f'A copy of your changes has been stored to "{saved}"\n{stderr}\n'
    assert snapshot(web.state_dir) == before


def test_a_syntax_error_is_explained_in_the_reopened_file(web, editor):
    editor("text = text.replace('\\nspec:\\n', '\\nspec: [\\n')")
    web("edit deployment web")
    assert editor.shown()[1].splitlines()[4].startswith("# The edited file had a syntax error: ")


def test_an_edit_with_an_unknown_field_is_refused_as_kubectl_does(web, editor, tmp_path):
    editor("text = text.replace('\\nspec:\\n', '\\nspec:\\n  foo: bar\\n')")
    before = snapshot(web.state_dir)
    r = web("edit deployment web")
    [saved] = sorted(tmp_path.glob("kubesim-edit-*.yaml"))
    assert (r.code, r.out) == (1, "")
    assert r.err == ('error: deployments.apps "web" could not be patched: strict decoding error: '
                     'unknown field "spec.foo"\n'
                     f"You can run `kubesim replace -f {saved}` to try this update again.\n")
    assert snapshot(web.state_dir) == before


def test_edit_of_a_missing_object(web, editor):
    editor("pass")
    fails_cleanly(web, "edit deployment nope", 'Error from server (NotFound): deployments.apps "nope" not found\n')
    assert editor.shown() == []


def test_an_editor_that_cannot_start_leaves_no_temp_file(web, tmp_path):
    web.vars["TMPDIR"] = str(tmp_path)
    web.vars["EDITOR"] = "/nonexistent/editor"
    before = snapshot(web.state_dir)
    r = web("edit deployment web")
    assert (r.code, r.err) == (1, 'error: unable to launch the editor "/nonexistent/editor"\n')
    assert list(tmp_path.glob("kubesim-edit-*")) == []
    assert snapshot(web.state_dir) == before


def test_an_editor_that_deletes_the_file_is_os_readfiles_error(web, editor, tmp_path):
    # editor.go LaunchTempFile reads the file back after the editor exits
    editor("p.unlink(); sys.exit(0)")
    before = snapshot(web.state_dir)
    r = web("edit deployment web")
    assert r.code == 1 and r.out == ""
    assert re.fullmatch(r"error: open .*/kubesim-edit-\w+\.yaml: no such file or directory\n", r.err), r.err
    assert snapshot(web.state_dir) == before
