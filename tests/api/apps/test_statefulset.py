"""StatefulSet defaults and validation (pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet,
pkg/apis/apps/validation ValidateStatefulSet[Update]); the expected texts are a real v1.35 API
server's (``kubectl create --dry-run=server`` / ``apply`` against the oracle). The cases follow
upstream's validation_test.go TestValidateStatefulSet / TestValidateStatefulSetUpdate tables.
"""

import copy

import pytest

from kubesim.api.apps.defaults import set_defaults_statefulset
from kubesim.api.apps.validation import STATEFULSET_SPEC_FORBIDDEN, validate_statefulset
from kubesim.apiserver.registry.apps.statefulset import strategy


def web() -> dict:
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"serviceName": "nginx", "replicas": 3, "selector": {"matchLabels": {"app": "nginx"}},
                    "template": {"metadata": {"labels": {"app": "nginx"}},
                                 "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25",
                                                          "volumeMounts": [{"name": "data", "mountPath": "/d"}]}]}},
                    "volumeClaimTemplates": [{"metadata": {"name": "data"},
                                              "spec": {"accessModes": ["ReadWriteOnce"],
                                                       "resources": {"requests": {"storage": "1Gi"}}}}]}}
    set_defaults_statefulset(sts)
    return sts


def test_defaults_are_the_api_servers():
    sts = web()
    spec = sts["spec"]
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert spec["revisionHistoryLimit"] == 10
    claim = spec["volumeClaimTemplates"][0]
    assert (claim["apiVersion"], claim["kind"], claim["spec"]["volumeMode"], claim["status"]) == \
        ("v1", "PersistentVolumeClaim", "Filesystem", {"phase": "Pending"})


def test_an_ondelete_strategy_gets_no_rolling_update():
    sts = {"spec": {"updateStrategy": {"type": "OnDelete"}, "template": {}}}
    set_defaults_statefulset(sts)
    assert sts["spec"]["updateStrategy"] == {"type": "OnDelete"}
    assert sts["spec"]["replicas"] == 1


def test_max_unavailable_is_dropped_while_its_gate_is_off():
    sts = web()
    sts["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] = 0
    strategy.prepare_for_create(sts, None)
    assert sts["spec"]["updateStrategy"]["rollingUpdate"] == {"partition": 0}
    assert validate_statefulset(sts) == []


def _set(path, value):
    def mutate(s):
        *head, last = path
        o = s
        for k in head:
            o = o[k]
        if value is _POP:
            o.pop(last)
        else:
            o[last] = value
    return mutate


_POP = object()


@pytest.mark.parametrize("mutate,messages", [
    (_set(["spec", "template", "metadata", "labels"], {"app": "other"}),
     ['spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`']),
    (_set(["spec", "podManagementPolicy"], "Sometimes"),
     ['spec.podManagementPolicy: Invalid value: "Sometimes": must be \'OrderedReady\' or \'Parallel\'']),
    (_set(["spec", "updateStrategy"], {"type": "Blue"}),
     ['spec.updateStrategy: Invalid value: {"Type":"Blue","RollingUpdate":null}: must be \'RollingUpdate\' or \'OnDelete\'']),
    (_set(["spec", "updateStrategy"], {"type": "OnDelete", "rollingUpdate": {"partition": 1}}),
     [('spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":1,"MaxUnavailable":null}: '
      "only allowed for updateStrategy 'RollingUpdate'")]),
    (lambda s: (s["spec"].update(replicas=-1, ordinals={"start": -1}),
                s["spec"]["updateStrategy"]["rollingUpdate"].update(partition=-2)),
     ["spec.updateStrategy.rollingUpdate.partition: Invalid value: -2: must be greater than or equal to 0",
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
      "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"]),
    (_set(["spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted"], "Keep"),
     [('spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": '
      'supported values: "Retain", "Delete"')]),
    (_set(["metadata", "name"], "bad.name"),
     ['metadata.name: Invalid value: "bad.name": must not contain dots']),
    (lambda s: s["spec"]["volumeClaimTemplates"][0]["spec"].pop("resources"),
     ["spec.volumeClaimTemplates[0].spec.resources[storage]: Required value"]),
    (_set(["spec", "template", "spec", "restartPolicy"], "Never"),
     ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']),
    (_set(["spec", "serviceName"], "Bad_Svc"),
     [('spec.serviceName: Invalid value: "Bad_Svc": a lowercase RFC 1123 label must consist of lower case '
      "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
      "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")]),
    (_set(["spec", "selector"], _POP),
     ["spec.selector: Required value",
      'spec.template.metadata.labels: Invalid value: {"app":"nginx"}: `selector` does not match template `labels`']),
    (_set(["spec", "selector"], {}),
     ["spec.selector: Invalid value: {}: empty selector is invalid for statefulset"]),
    (_set(["spec", "volumeClaimTemplates"], _POP),
     ['spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data"']),
    (_set(["spec", "template", "spec", "activeDeadlineSeconds"], 5),
     ["spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported"]),
], ids=["a selector that does not match the template labels", "an unknown pod management policy",
        "an unknown update strategy", "OnDelete with a rolling update", "negative replicas, partition and start ordinal",
        "an unknown claim retention policy", "a name that is not a DNS label", "a claim template without storage",
        "a restart policy other than Always", "a service name that is not a DNS label", "no selector",
        "an empty selector", "a mount of a claim that has no template", "an active deadline"])
def test_create_validation_messages(mutate, messages):
    sts = web()
    mutate(sts)
    assert [str(e) for e in validate_statefulset(sts)] == messages


def test_a_valid_statefulset_passes():
    assert validate_statefulset(web()) == []


@pytest.mark.parametrize("mutate,ok", [
    (lambda s: s["spec"].update(replicas=5), True),
    (lambda s: s["spec"]["template"]["spec"]["containers"][0].update(image="nginx:1.26"), True),
    (lambda s: s["spec"].update(updateStrategy={"type": "OnDelete"}), True),
    (lambda s: s["spec"].update(minReadySeconds=3, revisionHistoryLimit=2, ordinals={"start": 3}), True),
    (lambda s: s["spec"]["persistentVolumeClaimRetentionPolicy"].update(whenScaled="Delete"), True),
    (lambda s: s["spec"].update(serviceName="other"), False),
    (lambda s: s["spec"].update(podManagementPolicy="Parallel"), False),
    (lambda s: s["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"].update(storage="2Gi"), False),
    (lambda s: s["spec"].update(selector={"matchLabels": {"app": "nginx", "x": "y"}}), False),
], ids=["replicas", "the template", "the update strategy", "minReadySeconds, history limit and ordinals",
        "the claim retention policy", "the service name", "the pod management policy", "a claim template",
        "the selector"])
def test_update_allows_only_the_mutable_fields(mutate, ok):
    old = web()
    new = copy.deepcopy(old)
    mutate(new)
    if "x" in (new["spec"]["selector"].get("matchLabels") or {}):
        new["spec"]["template"]["metadata"]["labels"]["x"] = "y"
    errs = [str(e) for e in validate_statefulset(new, old)]
    assert errs == ([] if ok else [f"spec: Forbidden: {STATEFULSET_SPEC_FORBIDDEN}"])


def test_generation_moves_with_the_spec_only():
    old = web()
    old["metadata"]["generation"] = 4
    old["status"] = {"replicas": 3}
    new = copy.deepcopy(old)
    new["metadata"]["labels"] = {"a": "b"}
    strategy.prepare_for_update(new, old)
    assert new["metadata"]["generation"] == 4
    new["spec"]["replicas"] = 1
    new["status"] = {}
    strategy.prepare_for_update(new, old)
    assert (new["metadata"]["generation"], new["status"]) == (5, {"replicas": 3})
