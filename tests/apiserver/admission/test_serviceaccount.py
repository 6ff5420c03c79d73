"""ServiceAccount admission (plugin/pkg/admission/serviceaccount): the account, the token volume
and its mounts, and mirror pods, on pods as the API server prepares them for create."""

from __future__ import annotations

import copy
import random

import pytest

from kubesim.apiserver.objects import prepare_for_create, validate
from kubesim.errors import Forbidden


def make_pod(*containers, **spec) -> dict:
    containers = containers or ({"name": "nginx", "image": "nginx"},)
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nginx", "namespace": "default"},
         "spec": {"containers": [copy.deepcopy(c) for c in containers]}}
    p["spec"].update(copy.deepcopy(spec))
    return p


def defaulted(obj: dict, seed: int = 0, **kw) -> dict:
    out = copy.deepcopy(obj)
    prepare_for_create(out, rng=random.Random(seed), **kw)
    return out


def token_volume_name(seed: int = 0) -> str:
    rng = random.Random(seed)
    return "kube-api-access-" + "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))

def test_the_token_volume_suffix_comes_from_the_rng():
    a, b, c = defaulted(make_pod(), seed=1), defaulted(make_pod(), seed=1), defaulted(make_pod(), seed=2)
    name_a = a["spec"]["volumes"][0]["name"]
    assert name_a == b["spec"]["volumes"][0]["name"] == token_volume_name(1)
    assert name_a != c["spec"]["volumes"][0]["name"]
    asslen = len("kube-api-access-") + 5
    assert len(name_a) == asslen and set(name_a[-5:]) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_every_container_mounts_the_token():
    pod = defaulted(make_pod({"name": "a", "image": "x"}, {"name": "b", "image": "y",
                                                            "volumeMounts": [{"name": "d", "mountPath": "/d"}]},
                             volumes=[{"name": "d", "emptyDir": {}}]))
    name = pod["spec"]["volumes"][1]["name"]
    assert [m["name"] for m in pod["spec"]["containers"][0]["volumeMounts"]] == [name]
    assert [m["name"] for m in pod["spec"]["containers"][1]["volumeMounts"]] == ["d", name]
    assert validate(pod) == []


def test_a_container_already_mounting_the_token_path_is_left_alone():
    c = {"name": "a", "image": "x", "volumeMounts": [{"name": "mine", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}
    pod = defaulted(make_pod(c, volumes=[{"name": "mine", "emptyDir": {}}]))
    assert pod["spec"]["containers"][0]["volumeMounts"] == c["volumeMounts"]
    assert [v["name"] for v in pod["spec"]["volumes"]] == ["mine"]


def test_an_existing_token_volume_is_reused():
    pod = defaulted(make_pod(volumes=[{"name": "kube-api-access-abcde", "projected": {"sources": []}}]))
    assert [v["name"] for v in pod["spec"]["volumes"]] == ["kube-api-access-abcde"]
    assert pod["spec"]["containers"][0]["volumeMounts"][0]["name"] == "kube-api-access-abcde"


def test_automount_false_mounts_nothing_but_names_the_account():
    pod = defaulted(make_pod(automountServiceAccountToken=False))
    assert "volumes" not in pod["spec"] and "volumeMounts" not in pod["spec"]["containers"][0]
    assert pod["spec"]["serviceAccountName"] == "default"


def test_mirror_pods_get_no_service_account():
    pod = make_pod(nodeName="node01")
    pod["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "hash"}
    got = defaulted(pod)
    assert "serviceAccountName" not in got["spec"] and "volumes" not in got["spec"]
    assert got["spec"]["tolerations"][0]["key"] == "node.kubernetes.io/not-ready"


MIRROR_REFUSALS = [
    ("a service account", {"serviceAccountName": "default"}, "a mirror pod may not reference service accounts"),
    ("a secret volume", {"volumes": [{"name": "s", "secret": {"secretName": "x"}}]}, "a mirror pod may not reference secrets"),
    ("a configMap volume", {"volumes": [{"name": "c", "configMap": {"name": "x"}}]},
     "a mirror pod may not reference configmaps"),
]


@pytest.mark.parametrize("spec,detail", [c[1:] for c in MIRROR_REFUSALS], ids=[c[0] for c in MIRROR_REFUSALS])
def test_mirror_pods_may_not_reference_credentials(spec, detail):
    pod = make_pod(nodeName="node01", **spec)
    pod["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "hash"}
    with pytest.raises(Forbidden) as e:
        defaulted(pod)
    assert str(e.value) == f'Error from server (Forbidden): pods "nginx" is forbidden: {detail}'


def test_init_containers_mount_the_token_too():
    pod = defaulted(make_pod(initContainers=[{"name": "i", "image": "x", "resources": {"limits": {"cpu": "1"}}}]))
    init = pod["spec"]["initContainers"][0]
    assert init["volumeMounts"][0]["mountPath"] == "/var/run/secrets/kubernetes.io/serviceaccount"


# -- the pod's account, looked up (getServiceAccount, shouldAutomount, imagePullSecrets) ----------

def _lister(*objs):
    def lister(kind):
        return [o for o in objs if o["kind"] == kind]
    return lister


def _ns(name, phase="Active"):
    return {"kind": "Namespace", "metadata": {"name": name}, "status": {"phase": phase}}


def _sa(name, ns="default", **fields):
    return {"kind": "ServiceAccount", "metadata": {"name": name, "namespace": ns}, **fields}


@pytest.mark.parametrize("spec, objs, err", [
    ({"serviceAccountName": "nobody"}, [_ns("default"), _sa("default")],
     'pods "nginx" is forbidden: error looking up service account default/nobody: serviceaccount "nobody" not found'),
    ({}, [_ns("default", "Terminating")],
     'pods "nginx" is forbidden: error looking up service account default/default: serviceaccount "default" not '
     "found"),
], ids=["a pod naming a missing account is refused",
        "the default account of a terminating namespace will not come: refused"])
def test_a_missing_service_account_is_refused_with_upstreams_text(spec, objs, err):
    with pytest.raises(Forbidden) as e:
        defaulted(make_pod(**spec), lister=_lister(*objs))
    assert e.value.message == err


@pytest.mark.parametrize("spec, objs, want", [
    ({}, [_ns("default")], ("default", True, None)),
    ({"serviceAccountName": "bot"}, [_ns("default"), _sa("bot", automountServiceAccountToken=False)],
     ("bot", False, None)),
    ({"serviceAccountName": "bot", "automountServiceAccountToken": True},
     [_ns("default"), _sa("bot", automountServiceAccountToken=False)], ("bot", True, None)),
    ({"serviceAccountName": "bot"}, [_ns("default"), _sa("bot", imagePullSecrets=[{"name": "regcred"}])],
     ("bot", True, [{"name": "regcred"}])),
    ({"serviceAccountName": "bot", "imagePullSecrets": [{"name": "mine"}]},
     [_ns("default"), _sa("bot", imagePullSecrets=[{"name": "regcred"}])], ("bot", True, [{"name": "mine"}])),
], ids=["default in an active namespace is about to be created by its controller: admitted",
        "the account's automountServiceAccountToken: false mounts no token",
        "the pod's own automountServiceAccountToken wins over the account's",
        "the account's imagePullSecrets are copied to a pod that has none",
        "a pod's own imagePullSecrets are kept"])
def test_the_pods_account_decides_the_token_and_pull_secrets(spec, objs, want):
    pod = defaulted(make_pod(**spec), lister=_lister(*objs))
    s = pod["spec"]
    mounted = any(v["name"].startswith("kube-api-access-") for v in s.get("volumes") or ())
    assert (s["serviceAccountName"], mounted, s.get("imagePullSecrets")) == want
