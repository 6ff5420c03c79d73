"""Pod phase and conditions from container statuses (kubesim.kubelet.status)."""

from __future__ import annotations

import pytest

from kubesim.kubelet.status import containers_ready_condition, get_phase, initialized_condition


def st(name, state, last=None, ready=False, started=False):
    s = {"name": name, "state": state, "ready": ready, "started": started}
    s["lastState"] = {"terminated": last} if last else {}
    return s


RUN = {"running": {"startedAt": "x"}}
WAIT = {"waiting": {"reason": "ContainerCreating"}}
DONE0 = {"terminated": {"exitCode": 0, "reason": "Completed"}}
DONE1 = {"terminated": {"exitCode": 1, "reason": "Error"}}

PHASES = [
    ("a waiting container keeps the pod Pending", "Always", [st("a", WAIT)], False, "Pending"),
    ("a running container makes it Running", "Always", [st("a", RUN)], False, "Running"),
    ("Always: all stopped is still Running (restarting)", "Always", [st("a", DONE1)], False, "Running"),
    ("OnFailure: all succeeded is Succeeded", "OnFailure", [st("a", DONE0)], False, "Succeeded"),
    ("OnFailure: a failure is restarting, Running", "OnFailure", [st("a", DONE1)], False, "Running"),
    ("Never: a failure is Failed", "Never", [st("a", DONE0), st("b", DONE1)], False, "Failed"),
    ("a waiting container that ran before is restarting: Running with OnFailure", "OnFailure",
     [st("a", WAIT, last={"exitCode": 1})], False, "Running"),
    ("a terminal pod (deleted) with all succeeded is Succeeded even with Always", "Always", [st("a", DONE0)], True, "Succeeded"),
    ("a terminal pod with a failure is Failed", "Always", [st("a", DONE1)], True, "Failed"),
]


@pytest.mark.parametrize("policy,statuses,terminal,phase", [c[1:] for c in PHASES], ids=[c[0] for c in PHASES])
def test_get_phase(policy, statuses, terminal, phase):
    pod = {"spec": {"restartPolicy": policy, "containers": [{"name": s["name"]} for s in statuses]}}
    assert get_phase(pod, statuses, terminal) == phase


def test_an_init_failure_with_restart_never_fails_the_pod():
    pod = {"spec": {"restartPolicy": "Never", "initContainers": [{"name": "i"}], "containers": [{"name": "a"}]}}
    assert get_phase(pod, [st("i", DONE1), st("a", WAIT)], False) == "Failed"


def test_condition_messages_list_containers_as_go_prints_a_slice():
    spec = {"containers": [{"name": "a"}, {"name": "b"}], "initContainers": [{"name": "i1"}, {"name": "i2"}]}
    statuses = [st("a", RUN), st("b", RUN, ready=True)]
    assert containers_ready_condition(spec, statuses, "Running") == {
        "type": "ContainersReady", "status": "False", "reason": "ContainersNotReady",
        "message": "containers with unready status: [a]"}
    initializing = [st("a", WAIT), st("b", WAIT), st("i1", RUN), st("i2", WAIT)]
    assert initialized_condition(spec, initializing, "Pending")["message"] == "containers with incomplete status: [i1 i2]"


@pytest.mark.parametrize("old, new", [
    ({"phase": "Pending"}, {"phase": "Running"}),
    ({"phase": "Running", "podIP": "10.0.0.2"}, {"phase": "Running", "podIP": "10.0.0.3"}),
    ({"phase": "Running", "x": [1, 2]}, {"phase": "Running", "x": (1, 2)}),  # the same text
    ({"phase": "Running", "x": 1}, {"phase": "Running", "x": 1.0}),
    ({"phase": "Running", "x": True}, {"phase": "Running", "x": 1}),
    ({"phase": 1}, {"phase": "1"}),
    ({"phase": 1}, {"phase": 1.0}),
    ({"phase": None}, {"phase": "Running"}),
    ({}, {"phase": "Running"}),
    (None, {"phase": "Pending"}),
    (None, None),
    ({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
     {"conditions": [{"status": "True", "type": "Ready"}], "phase": "Running"}),  # key order
])
def test_a_status_differs_exactly_when_its_sorted_text_does(old, new):
    """sync_pod's comparison of the status before and after a sync (``_status_differs``): the
    sorted JSON texts', whatever shortcut it takes."""
    import json

    from kubesim.kubelet.pod_workers import _status_differs

    def text(s):
        return json.dumps(s, sort_keys=True, default=str)

    assert _status_differs(old, new) == (text(old) != text(new))
    assert _status_differs(new, old) == (text(old) != text(new))
