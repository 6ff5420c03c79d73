"""Priority admission (plugin/pkg/admission/priority): a pod's class resolved to its priority,
from the classes given or stored, and one global default among PriorityClasses."""

from __future__ import annotations

import copy
import random

import pytest

from kubesim.api.core.defaults import set_object_defaults_pod
from kubesim.apiserver.admission import CREATE, Attributes, priority
from kubesim.apiserver.objects import prepare_for_create, validating_admission
from kubesim.errors import Forbidden
from tests.api.builders import created, pc


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


def admitted(pod: dict, classes) -> dict:
    """The plugin on a decoded pod, with ``classes`` (name -> PriorityClass, or a bare value)."""
    out = copy.deepcopy(pod)
    set_object_defaults_pod(out)
    priority.admit_pod(Attributes(CREATE, out), classes)
    return out


PRIORITY_CASES = [
    ("no class and no global default means priority 0", {}, None, (None, 0, "PreemptLowerPriority")),
    ("a named class sets its value", {"priorityClassName": "high"}, {"high": {"value": 1000}},
     ("high", 1000, "PreemptLowerPriority")),
    ("a class's preemption policy is copied", {"priorityClassName": "batch"},
     {"batch": {"value": 10, "preemptionPolicy": "Never"}}, ("batch", 10, "Never")),
    ("system classes are always known", {"priorityClassName": "system-node-critical"}, None,
     ("system-node-critical", 2000001000, "PreemptLowerPriority")),
    ("the global default class applies to pods without a class", {},
     {"low": {"value": 1, "globalDefault": True}, "high": {"value": 1000}}, ("low", 1, "PreemptLowerPriority")),
    ("with two global defaults the lower value wins", {},
     {"a": {"value": 5, "globalDefault": True}, "b": {"value": 3, "globalDefault": True}}, ("b", 3, "PreemptLowerPriority")),
    ("a class may be given as a bare value", {"priorityClassName": "high"}, {"high": 7}, ("high", 7, "PreemptLowerPriority")),
    ("a matching explicit priority is accepted", {"priorityClassName": "high", "priority": 1000}, {"high": {"value": 1000}},
     ("high", 1000, "PreemptLowerPriority")),
]


@pytest.mark.parametrize("spec,classes,expected", [c[1:] for c in PRIORITY_CASES], ids=[c[0] for c in PRIORITY_CASES])
def test_priority_admission(spec, classes, expected):
    s = admitted(make_pod(**spec), classes)["spec"]
    assert (s.get("priorityClassName"), s["priority"], s["preemptionPolicy"]) == expected


PRIORITY_ERRORS = [
    ("an unknown class is forbidden", {"priorityClassName": "gold"}, None,
     'Error from server (Forbidden): pods "nginx" is forbidden: no PriorityClass with name gold was found'),
    ("a priority that contradicts the class", {"priorityClassName": "high", "priority": 5}, {"high": {"value": 1000}},
     'Error from server (Forbidden): pods "nginx" is forbidden: the integer value of priority (5) must not be provided '
     "in pod spec; priority admission controller computed 1000 from the given PriorityClass name"),
    ("a priority without a class", {"priority": 5}, None,
     'Error from server (Forbidden): pods "nginx" is forbidden: the integer value of priority (5) must not be provided '
     "in pod spec; priority admission controller computed 0 from the given PriorityClass name"),
    ("a preemption policy that contradicts the class", {"priorityClassName": "high", "preemptionPolicy": "Never"},
     {"high": {"value": 1}},
     'Error from server (Forbidden): pods "nginx" is forbidden: the string value of PreemptionPolicy (Never) must not be '
     "provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name"),
]


@pytest.mark.parametrize("spec,classes,message", [c[1:] for c in PRIORITY_ERRORS], ids=[c[0] for c in PRIORITY_ERRORS])
def test_priority_admission_refusals(spec, classes, message):
    with pytest.raises(Forbidden) as e:
        admitted(make_pod(**spec), classes)
    assert str(e.value) == message


def test_a_generated_name_is_not_known_to_admission():
    pod = make_pod(priorityClassName="gold")
    pod["metadata"] = {"generateName": "web-", "namespace": "default"}
    with pytest.raises(Forbidden) as e:
        defaulted(pod)
    assert str(e.value) == "Error from server (Forbidden): pods is forbidden: no PriorityClass with name gold was found"


def _pod(**spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec}}


STORED = [created(pc("high", value=1000)), created(pc("low", value=10, globalDefault=True, preemptionPolicy="Never"))]


@pytest.mark.parametrize("spec, expected", [
    ({}, ("low", 10, "Never")),
    ({"priorityClassName": "high"}, ("high", 1000, "PreemptLowerPriority")),
    ({"priorityClassName": "system-node-critical"}, ("system-node-critical", 2000001000, "PreemptLowerPriority")),
], ids=["a pod without a class gets the global default one",
        "a pod naming a stored class gets its value and policy",
        "a system class resolves without the store"])
def test_priority_admission_uses_stored_classes(spec, expected):
    calls = []

    def lister(kind):
        if kind == "PriorityClass":  # (the ServiceAccount plugin reads accounts and namespaces)
            calls.append(kind)
            return STORED
        return []

    pod = _pod(**spec)
    prepare_for_create(pod, lister=lister)
    assert (pod["spec"].get("priorityClassName"), pod["spec"]["priority"], pod["spec"]["preemptionPolicy"]) == expected
    assert calls == ([] if spec.get("priorityClassName", "").startswith("system-") else ["PriorityClass"])


def test_priority_admission_refuses_an_unknown_class():
    with pytest.raises(Forbidden) as e:
        prepare_for_create(_pod(priorityClassName="nope"), lister=lambda kind: STORED)
    assert str(e.value) == 'Error from server (Forbidden): pods "p" is forbidden: no PriorityClass with name nope was found'


@pytest.mark.parametrize("obj, old, stored, message", [
    (pc("b", globalDefault=True), None, [pc("a", globalDefault=True)],
     'priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is already marked as default. '
     "Only one default can exist"),
    (pc("b", globalDefault=True), pc("b"), [pc("a", globalDefault=True), pc("b")],
     'priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is already marked as default. '
     "Only one default can exist"),
    (pc("a", globalDefault=True, description="x"), pc("a", globalDefault=True), [pc("a", globalDefault=True)], None),
    (pc("b", globalDefault=True), None, [pc("a")], None),
    (pc("b"), None, [pc("a", globalDefault=True)], None),
], ids=["a second global default is refused on create",
        "marking another class default is refused on update",
        "the default class itself may be updated",
        "the first default is admitted",
        "a class that is not default is admitted"])
def test_only_one_global_default(obj, old, stored, message):
    if message is None:
        validating_admission(obj, old, lambda kind: stored)
        return
    with pytest.raises(Forbidden) as e:
        validating_admission(obj, old, lambda kind: stored)
    assert e.value.message == message
