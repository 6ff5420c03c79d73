"""apps/v1 validation (pkg/apis/apps/validation), with the API server's messages.

Bad values that are not scalars print as json.Marshal writes the internal Go value (template
labels, the selector, the strategies); those texts are a real v1.35 API server's
(``kubectl apply --dry-run=server``)."""

import copy

import pytest

from kubesim.api.apps.defaults import set_defaults_daemonset, set_defaults_deployment
from kubesim.api.apps.validation import validate_daemonset, validate_deployment
from kubesim.errors import Invalid
from tests.api.builders import deploy


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["spec"].update(replicas=-1),
     "spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
    (lambda d: d["spec"]["selector"].update(matchLabels={"app": "other"}),
     'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'),
    (lambda d: d["spec"].pop("selector"), "spec.selector: Required value"),
    (lambda d: d["spec"].update(selector={}),
     "spec.selector: Invalid value: {}: empty selector is invalid for deployment"),
    (lambda d: d["spec"].update(selector={"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "In"}]}),
     'spec.selector: Invalid value: {"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In"}]}: '
     "invalid label selector"),
    (lambda d: d["spec"].update(selector={"matchExpressions": [{"key": "tier", "operator": "In", "values": ["x", "y<"]}]}),
     'spec.selector: Invalid value: {"matchExpressions":[{"key":"tier","operator":"In","values":["x","y\\u003c"]}]}: '
     "invalid label selector"),
    (lambda d: d["spec"].update(strategy={"type": "Foo"}),
     'spec.strategy: Unsupported value: {"Type":"Foo","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"'),
    (lambda d: d["spec"].update(strategy={"type": "Foo", "rollingUpdate": {"maxSurge": 2, "maxUnavailable": "10%"}}),
     'spec.strategy: Unsupported value: {"Type":"Foo","RollingUpdate":{"MaxUnavailable":"10%","MaxSurge":2}}: '
     'supported values: "Recreate", "RollingUpdate"'),
    (lambda d: d["spec"]["strategy"]["rollingUpdate"].update(maxSurge=0, maxUnavailable=0),
     "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"),
    (lambda d: d["spec"]["strategy"]["rollingUpdate"].update(maxUnavailable="110%"),
     'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%'),
    (lambda d: d["spec"]["strategy"]["rollingUpdate"].update(maxSurge="x"),
     "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"x\": must be an integer or percentage (e.g '5%')"),
    (lambda d: d["spec"]["template"]["spec"].update(restartPolicy="Never"),
     'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'),
    (lambda d: d["spec"].update(progressDeadlineSeconds=5, minReadySeconds=10),
     "spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds"),
], ids=["negative replicas", "a selector that does not match the template labels", "no selector",
        "an empty selector", "an In requirement without values", "a selector value that needs escaping",
        "an unknown strategy", "an unknown strategy with a rolling update", "maxSurge and maxUnavailable both zero", "maxUnavailable over 100%",
        "a maxSurge that is neither integer nor percentage", "a restart policy other than Always",
        "a progress deadline not above minReadySeconds"])
def test_deployment_validation_messages(mutate, message):
    d = deploy()
    set_defaults_deployment(d)
    mutate(d)
    errs = validate_deployment(d)
    assert message in [str(e) for e in errs]


def test_the_selector_is_immutable_on_update():
    old = deploy()
    set_defaults_deployment(old)
    new = copy.deepcopy(old)
    new["spec"]["selector"] = {"matchLabels": {"app": "web2"}}
    new["spec"]["template"]["metadata"]["labels"] = {"app": "web2"}
    err = Invalid("Deployment", "web", validate_deployment(new, old))
    assert str(err) == ('The Deployment "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web2"}}: '
                        'field is immutable')


def test_the_invalid_deployment_reads_as_kubectl_prints_it():
    d = deploy(replicas=-1)
    set_defaults_deployment(d)
    d["spec"]["selector"]["matchLabels"] = {"app": "x"}
    assert str(Invalid("Deployment", "web", validate_deployment(d))) == (
        'The Deployment "web" is invalid: \n'
        "* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n"
        '* spec.template.metadata.labels: Invalid value: {"app":"web"}: '
        "`selector` does not match template `labels`")


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d["spec"]["updateStrategy"]["rollingUpdate"].update(maxSurge=1),
     "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"),
    (lambda d: d["spec"]["updateStrategy"]["rollingUpdate"].update(maxUnavailable=0),
     "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"),
    (lambda d: d["spec"]["selector"].update(matchLabels={"app": "x"}),
     'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'),
    (lambda d: d["spec"].update(updateStrategy={"type": "Foo"}),
     'spec.updateStrategy: Unsupported value: {"Type":"Foo","RollingUpdate":null}: supported values: "RollingUpdate", '
     '"OnDelete"'),
], ids=["surge and unavailable both set", "both zero", "selector mismatch", "an unknown update strategy"])
def test_daemonset_validation_messages(mutate, message):
    ds = deploy()
    ds["kind"] = "DaemonSet"
    del ds["spec"]["replicas"]
    set_defaults_daemonset(ds)
    mutate(ds)
    assert message in [str(e) for e in validate_daemonset(ds)]


# -- ControllerRevision (TestValidateControllerRevision; texts from a real v1.35 API server) ------

from kubesim.api.apps.validation import validate_controller_revision, validate_controller_revision_update  # noqa: E402


def _revision(revision=1, data=None) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision",
            "metadata": {"name": "web-1", "namespace": "default"}, "revision": revision,
            "data": {"spec": {"template": {}}} if data is None else data}


@pytest.mark.parametrize("obj, errors", [
    (_revision(), []),
    (_revision(0), []),
    (_revision(-1), ["revision: Invalid value: -1: must be greater than or equal to 0"]),
    ({**_revision(), "data": None}, ["data: Required value: data is mandatory"]),
], ids=["a revision with data", "revision zero", "a negative revision", "no data"])
def test_controller_revision_validation(obj, errors):
    assert [str(e) for e in validate_controller_revision(obj)] == errors


def test_a_controller_revisions_data_is_immutable():
    assert [str(e) for e in validate_controller_revision_update(_revision(data={"a": 2}), _revision(data={"a": 1}))] == [
        'data: Invalid value: {"a":2}: field is immutable']
