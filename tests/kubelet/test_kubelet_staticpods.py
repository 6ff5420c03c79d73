"""Static pods and mirror pods (kubesim.kubelet.staticpods)."""

from __future__ import annotations

import os

import pytest

from kubesim.kubelet import staticpods as SP
from kubesim.testing.kubelet import T0, node

MANIFEST = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nginx", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}


def test_a_static_pod_is_named_after_its_node_and_hashed():
    sp = SP.static_pod_from_manifest(MANIFEST, "/state/nodes/node01/manifests/nginx.yaml", "node01")
    md = sp["metadata"]
    assert (md["name"], md["namespace"]) == ("nginx-node01", "default")
    assert md["uid"] == md["annotations"]["kubernetes.io/config.hash"] and len(md["uid"]) == 32
    assert sp["spec"]["nodeName"] == "node01"
    assert {"operator": "Exists", "effect": "NoExecute"} in sp["spec"]["tolerations"]
    # decoded with the API's defaults, as the kubelet's decoder applies them
    assert sp["spec"]["restartPolicy"] == "Always" and sp["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"


def test_the_hash_changes_with_the_file_and_the_node():
    a = SP.static_pod_from_manifest(MANIFEST, "/m/nginx.yaml", "node01")["metadata"]["uid"]
    assert a == SP.static_pod_from_manifest(MANIFEST, "/m/nginx.yaml", "node01")["metadata"]["uid"]
    assert a != SP.static_pod_from_manifest(MANIFEST, "/m/nginx.yaml", "node02")["metadata"]["uid"]
    edited = {**MANIFEST, "spec": {"containers": [{"name": "nginx", "image": "nginx:1.28"}]}}
    assert a != SP.static_pod_from_manifest(edited, "/m/nginx.yaml", "node01")["metadata"]["uid"]


def test_the_mirror_pod_carries_the_config_annotations_and_the_node_as_owner():
    n = node()
    sp = SP.static_pod_from_manifest(MANIFEST, "/m/nginx.yaml", "node01")
    mp = SP.mirror_pod(sp, n, T0 + 0.25)
    ann = mp["metadata"]["annotations"]
    assert ann["kubernetes.io/config.mirror"] == ann["kubernetes.io/config.hash"]
    assert ann["kubernetes.io/config.source"] == "file"
    assert ann["kubernetes.io/config.seen"] == "2026-11-22T10:00:00.25Z"
    assert mp["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "controller": True, "kind": "Node", "name": "node01", "uid": "uid-node-node01"}]
    assert "uid" not in mp["metadata"]  # the API server gives the mirror pod its own


def test_a_critical_priority_class_gives_the_priority():
    m = {**MANIFEST, "spec": {**MANIFEST["spec"], "priorityClassName": "system-node-critical"}}
    mp = SP.mirror_pod(SP.static_pod_from_manifest(m, "/m/x.yaml", "node01"), node(), T0)
    assert mp["spec"]["priority"] == 2000001000


REFUSALS = [
    ("a service account", {"serviceAccountName": "default"}, "static pods may not reference serviceaccounts"),
    ("a secret in an env var", {"containers": [{"name": "c", "image": "nginx", "env": [
        {"name": "P", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}]}]},
     "static pods may not reference secrets"),
    ("a secret volume", {"volumes": [{"name": "v", "secret": {"secretName": "tls"}}]}, "static pods may not reference secrets"),
    ("a configmap envFrom", {"containers": [{"name": "c", "image": "nginx", "envFrom": [{"configMapRef": {"name": "cfg"}}]}]},
     "static pods may not reference configmaps"),
    ("a configmap volume", {"volumes": [{"name": "v", "configMap": {"name": "cfg"}}]}, "static pods may not reference configmaps"),
    ("a projected service account token", {"volumes": [{"name": "t", "projected": {"sources": [
        {"serviceAccountToken": {"path": "token"}}]}}]},
     # ValidatePodCreate runs before HasAPIObjectReference (config/common.go), and it already
     # forbids a token projection without a service account
     "invalid pod: [spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified "
     "when serviceAccountName is not set]"),
    ("a persistent volume claim", {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]},
     "static pods may not reference persistentvolumeclaims"),
    ("image pull secrets", {"imagePullSecrets": [{"name": "regcred"}]}, "static pods may not reference secrets"),
]


@pytest.mark.parametrize("spec,message", [c[1:] for c in REFUSALS], ids=["a static pod that references " + c[0] + " is refused" for c in REFUSALS])
def test_static_pods_may_not_reference_api_objects(spec, message):
    m = {**MANIFEST, "spec": {**MANIFEST["spec"], **spec}}
    with pytest.raises(SP.StaticPodError) as err:
        SP.static_pod_from_manifest(m, "/m/x.yaml", "node01")
    assert str(err.value) == message


def test_host_path_and_empty_dir_volumes_are_fine():
    m = {**MANIFEST, "spec": {**MANIFEST["spec"], "volumes": [{"name": "h", "hostPath": {"path": "/etc"}},
                                                              {"name": "e", "emptyDir": {}}]}}
    assert SP.static_pod_from_manifest(m, "/m/x.yaml", "node01")


def test_reading_a_manifest_directory(tmp_path):
    d = tmp_path / "manifests"
    d.mkdir()
    (d / "web.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: c\n    image: nginx\n")
    (d / ".web.yaml.swp").write_text("junk")
    (d / "broken.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata;\n  name: x\n")
    (d / "secret.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: s\nspec:\n  serviceAccountName: default\n"
                                   "  containers:\n  - name: c\n    image: nginx\n")
    (d / "sub").mkdir()
    got = SP.read_manifest_dir(str(d), "node01")
    assert [p["metadata"]["name"] for p in got.pods] == ["web-node01"]
    assert got.errors == [
        (str(d / "broken.yaml"), f"{d / 'broken.yaml'}: couldn't parse as pod(yaml: line 4: could not find expected ':'), please check config file"),
        (str(d / "secret.yaml"), "static pods may not reference serviceaccounts"),
    ]
    assert got.log_lines()[1] == ("file.go:187", "Could not process manifest file",
                                  {"err": "static pods may not reference serviceaccounts", "path": str(d / "secret.yaml")})


POD_YAML = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n  - name: c\n    image: nginx\n"
BOMB = "\n".join(['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'] +
                 [f"{chr(97 + i)}: &{chr(97 + i)} [" + ",".join([f"*{chr(96 + i)}"] * 9) + "]" for i in range(1, 9)]) + "\n"


@pytest.mark.parametrize("text, names, error", [
    pytest.param(BOMB, [], "couldn't parse as pod(yaml: document contains excessive aliasing)",
                 id="an alias bomb is refused as kubectl refuses it"),
    pytest.param(POD_YAML.format(name="a").replace("metadata:\n  name: a\n", "metadata:\n  name: a\n  name: b\n"),
                 ["b-node01"], None, id="of duplicate keys the last wins, as the kubelet's YAMLToJSON decodes them"),
    pytest.param(POD_YAML.format(name="a") + "---\n" + POD_YAML.format(name="b"), ["a-node01"], None,
                 id="only the first document is a pod"),
    pytest.param("? [a]\n: b\n", [], 'couldn\'t parse as pod(yaml: invalid map key: []interface {}{"a"})',
                 id="a list as a key is refused"),
])
def test_manifests_are_decoded_through_codec(tmp_path, text, names, error):
    (tmp_path / "pod.yaml").write_text(text)
    got = SP.read_manifest_dir(str(tmp_path), "node01")
    assert [p["metadata"]["name"] for p in got.pods] == names
    assert [e for _, e in got.errors] == ([f"{tmp_path / 'pod.yaml'}: {error}, please check config file"] if error else [])


QTY = ('    resources:\n      requests:\n        cpu: "1.5.5"\n')
RFC1123 = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
           "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


@pytest.mark.parametrize("text, error", [
    pytest.param(POD_YAML.format(name="Bad_Name"),
                 'invalid pod: [metadata.name: Invalid value: "Bad_Name-node01": ' + RFC1123 + "]",
                 id="an invalid name fails ValidatePodCreate after the node suffix"),
    pytest.param(POD_YAML.format(name="q") + QTY,
                 "{path}: couldn't parse as pod(quantities must match the regular expression "
                 "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'), please check config file",
                 id="a bad quantity fails the decode"),
    pytest.param("apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\nspec:\n  containers: x\n",
                 "{path}: couldn't parse as pod(json: cannot unmarshal string into Go struct field "
                 "PodSpec.spec.containers of type []v1.Container), please check config file",
                 id="a type mismatch fails the decode"),
    pytest.param(POD_YAML.format(name="c").replace("- name: c", "- name: C_1"),
                 'invalid pod: [spec.containers[0].name: Invalid value: "C_1": a lowercase RFC 1123 label must '
                 "consist of lower case alphanumeric characters or '-', and must start and end with an "
                 "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                 "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')]",
                 id="an invalid container name"),
    pytest.param(POD_YAML.format(name="u").replace("spec:\n", "spec:\n  foo: 1\n"), None,
                 id="an unknown field is dropped, as the kubelet's decoder is not strict"),
])
def test_the_kubelet_validates_a_static_pod_as_the_api_server_would(tmp_path, text, error):
    # config/common.go tryDecodeSinglePod: decode, default, ValidatePodCreate; "invalid pod: %v"
    (tmp_path / "pod.yaml").write_text(text)
    got = SP.read_manifest_dir(str(tmp_path), "node01")
    path = str(tmp_path / "pod.yaml")
    assert [e for _, e in got.errors] == ([error.format(path=path)] if error else [])
    assert len(got.pods) == (0 if error else 1)


def test_a_missing_directory_has_no_static_pods(tmp_path):
    assert SP.read_manifest_dir(str(tmp_path / "nope"), "node01").pods == []


def test_mirror_pods_are_created_replaced_and_removed():
    n = node()
    a = SP.mirror_pod(SP.static_pod_from_manifest(MANIFEST, "/m/nginx.yaml", "node01"), n, T0)
    edited = {**MANIFEST, "spec": {"containers": [{"name": "nginx", "image": "nginx:1.28"}]}}
    b = SP.mirror_pod(SP.static_pod_from_manifest(edited, "/m/nginx.yaml", "node01"), n, T0)
    orphan = SP.mirror_pod(SP.static_pod_from_manifest({**MANIFEST, "metadata": {"name": "gone"}}, "/m/gone.yaml", "node01"), n, T0)
    plain = {"metadata": {"name": "x", "namespace": "default"}, "spec": {"nodeName": "node01"}}
    # nothing stored yet: create
    assert SP.reconcile_mirror_pods([a], [plain]).create == [a]
    # stored and current: nothing to do
    assert SP.reconcile_mirror_pods([a], [a]).create == [] and SP.reconcile_mirror_pods([a], [a]).delete == []
    # the file was edited, another removed: their mirror pods are replaced once the old static
    # pods are killed (nothing is created for the edited one meanwhile)
    ch = SP.reconcile_mirror_pods([b], [a, orphan, plain])
    assert (ch.replace, ch.delete, ch.create) == ([(a, b), (orphan, None)], [], [])


KILLS = [
    ("the old pod exits at SIGTERM: the new one starts at its first retry, 10 s on", 0, 10),
    ("the old pod takes 4 s to stop", 4, 10),
    ("SIGTERM ignored, 30 s grace: the new pod's retry at 30 s finds it gone", 30, 30),
    ("a 31 s kill: the retry after it", 31, 40),
]


@pytest.mark.parametrize("took,starts", [c[1:] for c in KILLS], ids=[c[0] for c in KILLS])
def test_an_edited_static_pod_starts_at_the_first_retry_after_the_old_one_terminated(took, starts):
    """pod_workers.go allowStaticPodStart, retried every backOffPeriod (10 s)."""
    assert SP.replacement_start(T0, T0 + took) == T0 + starts


@pytest.mark.parametrize("grace,seconds", [(None, 30), (5, 5), (0, 1)],
                         ids=["the default 30 s", "the pod's own", "at least 1 s"])
def test_a_removed_static_pod_is_killed_with_its_grace_period(grace, seconds):
    pod = {"spec": {} if grace is None else {"terminationGracePeriodSeconds": grace}}
    assert SP.kill_grace_period(pod) == seconds


def test_a_deleted_mirror_pod_comes_back():
    n = node()
    a = SP.mirror_pod(SP.static_pod_from_manifest(MANIFEST, "/m/nginx.yaml", "node01"), n, T0)
    deleted = {**a, "metadata": {**a["metadata"], "deletionTimestamp": "2026-11-22T10:00:30Z"}}
    ch = SP.reconcile_mirror_pods([a], [deleted])
    assert (ch.delete, ch.create, ch.replace) == ([deleted], [a], [])


CONTROL_PLANE = [
    ("kube-apiserver", "kube-apiserver.yaml", "registry.k8s.io/kube-apiserver:v1.35.0", {"cpu": "250m"}),
    ("kube-controller-manager", "kube-controller-manager.yaml", "registry.k8s.io/kube-controller-manager:v1.35.0", {"cpu": "200m"}),
    ("kube-scheduler", "kube-scheduler.yaml", "registry.k8s.io/kube-scheduler:v1.35.0", {"cpu": "100m"}),
    ("etcd", "etcd.yaml", "registry.k8s.io/etcd:3.6.6-0", {"cpu": "100m", "memory": "100Mi"}),
]


@pytest.mark.parametrize("name,fname,image,requests", CONTROL_PLANE, ids=[c[0] for c in CONTROL_PLANE])
def test_kubeadm_control_plane_manifests(name, fname, image, requests):
    pods = SP.control_plane_manifests("172.30.1.2", "controlplane")
    p = pods[fname]
    c = p["spec"]["containers"][0]
    assert (p["metadata"]["name"], p["metadata"]["namespace"], p["metadata"]["labels"]) == \
        (name, "kube-system", {"component": name, "tier": "control-plane"})
    assert (c["image"], c["resources"]["requests"], c["command"][0]) == (image, requests, name)
    assert c["command"][1:] == sorted(c["command"][1:])
    assert p["spec"]["hostNetwork"] is True and p["spec"]["priorityClassName"] == "system-node-critical"
    assert c["livenessProbe"]["failureThreshold"] == 8 and c["startupProbe"]["failureThreshold"] == 24
    # and the kubelet accepts them: hostPath volumes only
    sp = SP.static_pod_from_manifest(p, f"/etc/kubernetes/manifests/{fname}", "controlplane")
    assert sp["metadata"]["name"] == f"{name}-controlplane"


def test_the_apiserver_advertises_the_node_address():
    p = SP.control_plane_manifests("172.30.1.2", "controlplane")["kube-apiserver.yaml"]
    cmd = p["spec"]["containers"][0]["command"]
    assert "--advertise-address=172.30.1.2" in cmd and "--secure-port=6443" in cmd
    assert p["metadata"]["annotations"] == {"kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint": "172.30.1.2:6443"}


def test_writing_and_reading_back_the_control_plane(tmp_path):
    SP.write_control_plane(str(tmp_path), "172.30.1.2", "controlplane")
    got = SP.read_manifest_dir(str(tmp_path), "controlplane")
    assert got.errors == []
    assert [p["metadata"]["name"] for p in got.pods] == [
        "etcd-controlplane", "kube-apiserver-controlplane", "kube-controller-manager-controlplane", "kube-scheduler-controlplane"]
    assert (tmp_path / "kube-scheduler.yaml").read_text().startswith("apiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: null\n")


@pytest.mark.parametrize("change, parsed_again, names", [
    pytest.param(None, [], ["a-node01", "b-node01"], id="files read with the same text are not parsed again"),
    pytest.param(("a.yaml", POD_YAML.format(name="a2")), ["a.yaml"], ["a2-node01", "b-node01"],
                 id="an edited file is parsed again"),
    pytest.param(("c.yaml", POD_YAML.format(name="c")), ["c.yaml"], ["a-node01", "b-node01", "c-node01"],
                 id="a new file is parsed"),
    pytest.param(("b.yaml", None), [], ["a-node01"], id="a removed file is forgotten"),
    pytest.param(("b.yaml", "metadata;\n"), ["b.yaml"], ["a-node01"], id="a broken file is parsed and refused"),
])
def test_what_was_made_of_a_file_is_kept_while_its_text_is_the_same(tmp_path, change, parsed_again, names):
    """The kubelet keeps what it made of each file by the hash of its text (kubelet/steps.py
    keeps it in the state), so a directory read by every command is parsed only when a file
    changed; the pods are the same as reading it afresh."""
    for n in ("a", "b"):
        (tmp_path / f"{n}.yaml").write_text(POD_YAML.format(name=n))
    made: dict = {}
    SP.read_manifest_dir(str(tmp_path), "node01", made=made)
    assert sorted(made) == [str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")]
    if change is not None:
        name, text = change
        if text is None:
            (tmp_path / name).unlink()
        else:
            (tmp_path / name).write_text(text)
    parsed = []

    def parse(text):
        parsed.append(text)
        return SP.decode_manifest(text)

    got = SP.read_manifest_dir(str(tmp_path), "node01", parse=parse, made=made)
    fresh = SP.read_manifest_dir(str(tmp_path), "node01")
    assert len(parsed) == len(parsed_again)
    assert [p["metadata"]["name"] for p in got.pods] == names
    assert got.pods == fresh.pods and got.errors == fresh.errors
    assert sorted(made) == sorted(str(tmp_path / f"{n.split('-')[0][0]}.yaml") for n in names)


@pytest.mark.parametrize("moved", [False, True], ids=["the state where it was made", "a state copied elsewhere"])
def test_a_command_parses_each_static_pod_file_at_most_once(tmp_path, monkeypatch, moved):
    """What the kubelet made of the control plane's files is kept in the state for its own
    directory; in a state copied elsewhere it is neither used nor rewritten, and the files
    are parsed once a command (not once each settle round), the mirror pods unchanged."""
    import io
    import shutil

    from kubesim.cli.main import Environment, main

    def run(state, *argv):
        out = io.StringIO()
        env = Environment(stdin=io.StringIO(POD_YAML.format(name="web")), stdout=out, stderr=out,
                          vars={"KUBESIM_NOW": "2026-01-01T00:00:00Z", "KUBESIM_SEED": "1"})
        assert main(["--state", str(state), *argv], env) == 0, out.getvalue()
        return out.getvalue()

    made = tmp_path / "made"
    run(made, "cluster", "init")
    state = made
    if moved:
        state = tmp_path / "copy"
        shutil.copytree(made, state)
    mirrors = run(state, "get", "pods", "-n", "kube-system", "-o", "name")
    parsed = []
    real = SP.static_pod_from_manifest
    monkeypatch.setattr(SP, "static_pod_from_manifest", lambda *a: parsed.append(a[1]) or real(*a))
    run(state, "apply", "-f", "-")  # (a pod to schedule and run: several settle rounds)
    files = sorted(p.name for p in (made / "nodes" / "controlplane" / "manifests").iterdir())
    assert sorted(os.path.basename(p) for p in parsed) == (files if moved else [])
    assert run(state, "get", "pods", "-n", "kube-system", "-o", "name") == mirrors


def test_a_static_pods_copy_is_deepcopys_shared_parts_and_all():
    """Static pods are copied through marshal (``objcopy.deep_copy``, as staticpods imports it):
    equal to ``copy.deepcopy``'s copy,
    a part the manifest names twice (a YAML alias) still one object, nothing shared with the
    original; what marshal cannot write is deep-copied."""
    import copy

    from kubesim.kubelet.staticpods import deep_copy as _copied

    labels = {"tier": "control-plane"}
    pod = {"metadata": {"name": "etcd", "labels": labels}, "spec": {"selector": labels,
                                                                   "containers": [{"args": ["a", 1, 2.5, None, True]}]}}
    got = _copied(pod)
    assert got == copy.deepcopy(pod)
    assert got["metadata"]["labels"] is got["spec"]["selector"] and got["metadata"]["labels"] is not labels
    assert got["spec"]["containers"][0] is not pod["spec"]["containers"][0]
    from fractions import Fraction

    odd = {"metadata": {"name": "x"}, "spec": {"at": Fraction(1, 3)}}  # (marshal refuses a Fraction)
    assert _copied(odd) == copy.deepcopy(odd) and _copied(odd)["spec"] is not odd["spec"]
