"""kubectl get's rows and layout: cases mirror upstream's
``pkg/printers/internalversion/printers_test.go`` (TestPrintPod, TestPrintPodWithRestartableInitContainer,
TestPrintPodwide, TestPrintNodeStatus/Role/...), and the layouts below were checked against the
real kubectl 1.36.4 rendering the same rows (served as a metav1.Table by a fake API server)."""

from __future__ import annotations

import os

import pytest

from kubesim.clock import format_time, parse_time
from kubesim.printers.tables import PrintContext, render_table, table_of
from kubesim.printers.tabwriter import format_cells, table_tabwrite, tabwrite
from kubesim.testing import real_kubectl

NOW = parse_time("2026-11-22T10:00:00Z")
CTX = PrintContext(NOW)


def ago(seconds: float) -> str:
    return format_time(NOW - seconds)


# --- builders --------------------------------------------------------------------------------


def cs(name="", *, ready=False, restarts=0, running=False, waiting=None, terminated=None,
       last_finished=None, started=None) -> dict:
    """A container status; ``waiting``/``terminated`` are the state's fields (``{}`` for bare)."""
    state = {}
    if running:
        state["running"] = {}
    if waiting is not None:
        state["waiting"] = waiting
    if terminated is not None:
        state["terminated"] = terminated
    status = {"name": name, "ready": ready, "restartCount": restarts, "state": state}
    if last_finished is not None:
        status["lastState"] = {"terminated": {"finishedAt": ago(last_finished)}}
    if started is not None:
        status["started"] = started
    return status


def pod(name="test", *, containers=1, init=0, phase="", reason="", statuses=(), init_statuses=(),
        conditions=(), deleting=False, node="", pod_ips=(), nominated="", gates=(), created=None,
        namespace="default", labels=None) -> dict:
    init_containers = init if isinstance(init, list) else [{"name": f"init{i}"} for i in range(init)]
    meta = {"name": name, "namespace": namespace}
    if created is not None:
        meta["creationTimestamp"] = ago(created)
    if deleting:
        meta["deletionTimestamp"] = ago(10)
    if labels:
        meta["labels"] = labels
    spec = {"containers": [{"name": f"c{i}"} for i in range(containers)]}
    if init_containers:
        spec["initContainers"] = init_containers
    if node:
        spec["nodeName"] = node
    if gates:
        spec["readinessGates"] = [{"conditionType": g} for g in gates]
    status = {"phase": phase, "containerStatuses": list(statuses),
              "initContainerStatuses": list(init_statuses), "conditions": list(conditions)}
    if reason:
        status["reason"] = reason
    if pod_ips:
        status["podIPs"] = [{"ip": ip} for ip in pod_ips]
    if nominated:
        status["nominatedNodeName"] = nominated
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def cond(ctype, status="True", reason=None):
    c = {"type": ctype, "status": status}
    if reason:
        c["reason"] = reason
    return c


SIDECARS = [{"name": "restartable-init-1", "restartPolicy": "Always"},
            {"name": "restartable-init-2", "restartPolicy": "Always"}]


def row(obj, wide=False):
    rows = render_table(obj["kind"], [obj], CTX, wide=wide, no_headers=True)
    return rows[0]


# --- Pod: READY, STATUS, RESTARTS ------------------------------------------------------------


@pytest.mark.parametrize("p, want", [
    pytest.param(pod(containers=2, phase="podPhase", statuses=[cs(ready=True, restarts=3, running=True), cs(restarts=3)]),
                 ["test", "1/2", "podPhase", "6", "<unknown>"],
                 id="ready running containers count and restarts add up"),
    pytest.param(pod(containers=2, phase="podPhase", statuses=[
        cs(ready=True, restarts=3, running=True), cs(restarts=3, waiting={"reason": "ContainerWaitingReason"})]),
                 ["test", "1/2", "ContainerWaitingReason", "6", "<unknown>"],
                 id="a waiting reason overwrites the pod phase"),
    pytest.param(pod(containers=2, phase="podPhase", statuses=[
        cs(restarts=3, waiting={"reason": "ContainerWaitingReason"}),
        cs(restarts=3, terminated={"reason": "ContainerTerminatedReason"})]),
                 ["test", "0/2", "ContainerWaitingReason", "6", "<unknown>"],
                 id="the first container's reason wins over later ones"),
    pytest.param(pod(containers=2, phase="podPhase", statuses=[cs(ready=True, restarts=3, running=True),
                                                               cs(ready=True, restarts=3)]),
                 ["test", "1/2", "podPhase", "6", "<unknown>"],
                 id="ready is not enough to count as running"),
    pytest.param(pod(containers=2, phase="podPhase", reason="podReason", statuses=[
        cs(ready=True, restarts=3, running=True), cs(ready=True, restarts=3)]),
                 ["test", "1/2", "podReason", "6", "<unknown>"],
                 id="the pod's reason replaces its phase"),
    pytest.param(pod(containers=2, phase="Running", statuses=[
        cs(ready=True, restarts=3, terminated={"reason": "Completed", "exitCode": 0}),
        cs(ready=True, restarts=3, running=True)]),
                 ["test", "1/2", "NotReady", "6", "<unknown>"],
                 id="one completed one running without the Ready condition is NotReady"),
    pytest.param(pod(containers=2, phase="Running", conditions=[cond("Ready")], statuses=[
        cs(ready=True, restarts=3, terminated={"reason": "Completed", "exitCode": 0}),
        cs(ready=True, restarts=3, running=True)]),
                 ["test", "1/2", "Running", "6", "<unknown>"],
                 id="one completed one running with the Ready condition is Running"),
    pytest.param(pod(init=1, phase="podPhase",
                     init_statuses=[cs(restarts=3, running=True, last_finished=10)],
                     statuses=[cs(waiting={})]),
                 ["test", "0/1", "Init:0/1", "3 (10s ago)", "<unknown>"],
                 id="a restarting init container shows Init progress and when it restarted"),
    pytest.param(pod(init=2, phase="podPhase",
                     init_statuses=[cs(restarts=3, running=True, last_finished=10), cs(waiting={})],
                     statuses=[cs(waiting={})]),
                 ["test", "0/1", "Init:0/2", "3 (10s ago)", "<unknown>"],
                 id="the first unfinished init container stops the count"),
    pytest.param(pod(init=2, phase="podPhase",
                     init_statuses=[cs(terminated={}), cs(restarts=3, running=True, last_finished=10)],
                     statuses=[cs(waiting={})]),
                 ["test", "0/1", "Init:1/2", "3 (10s ago)", "<unknown>"],
                 id="a completed init container moves the progress on"),
    pytest.param(pod(init=2, phase="podPhase",
                     init_statuses=[cs(restarts=2, terminated={}, last_finished=120),
                                    cs(restarts=3, running=True, last_finished=10)],
                     statuses=[cs(waiting={})]),
                 ["test", "0/1", "Init:1/2", "5 (10s ago)", "<unknown>"],
                 id="init restarts add up and the latest restart is shown"),
    pytest.param(pod(init=1, phase="Running",
                     init_statuses=[cs(restarts=2, terminated={}, last_finished=120)],
                     statuses=[cs(restarts=4, running=True, last_finished=20)]),
                 ["test", "0/1", "Running", "4 (20s ago)", "<unknown>"],
                 id="once initialized only the app containers' restarts count"),
    pytest.param(pod(phase="Running", statuses=[cs(ready=True, restarts=3, running=True, last_finished=5 * 86400)]),
                 ["test", "1/1", "Running", "3 (5d ago)", "<unknown>"],
                 id="a restart five days ago"),
    pytest.param(pod(containers=2, phase="Running", statuses=[
        cs(ready=True, running=True), cs(ready=True, restarts=3, running=True, last_finished=10 * 86400)]),
                 ["test", "2/2", "Running", "3 (10d ago)", "<unknown>"],
                 id="a container that never restarted does not hide the other's restart"),
    pytest.param(pod(containers=2, phase="Running", statuses=[
        cs(ready=True, restarts=6, running=True, last_finished=5 * 86400),
        cs(ready=True, restarts=3, running=True, last_finished=20 * 86400)]),
                 ["test", "2/2", "Running", "9 (5d ago)", "<unknown>"],
                 id="the most recent restart of all containers is shown"),
    pytest.param(pod(containers=2, phase="podPhase",
                     conditions=[cond("PodScheduled", "False", "SchedulingGated")]),
                 ["test", "0/2", "SchedulingGated", "0", "<unknown>"],
                 id="a scheduling-gated pod says SchedulingGated"),
    pytest.param(pod(phase="Succeeded", statuses=[cs(terminated={"reason": "Completed", "exitCode": 0})]),
                 ["test", "0/1", "Completed", "0", "<unknown>"],
                 id="a succeeded pod shows Completed"),
    pytest.param(pod(phase="Failed", statuses=[cs(terminated={"reason": "Error", "exitCode": 1})]),
                 ["test", "0/1", "Error", "0", "<unknown>"],
                 id="a failed pod shows its container's reason"),
    pytest.param(pod(phase="Succeeded", deleting=True, statuses=[cs(terminated={"reason": "Completed", "exitCode": 0})]),
                 ["test", "0/1", "Completed", "0", "<unknown>"],
                 id="a deleted pod in a terminal phase is not Terminating"),
    pytest.param(pod(phase="Running", deleting=True, statuses=[cs(running=True)]),
                 ["test", "0/1", "Terminating", "0", "<unknown>"],
                 id="a deleted running pod is Terminating"),
    pytest.param(pod(phase="Pending", deleting=True),
                 ["test", "0/1", "Terminating", "0", "<unknown>"],
                 id="a deleted pending pod is Terminating"),
    pytest.param(pod(phase="Running", reason="NodeLost", deleting=True, statuses=[cs(ready=True, running=True)]),
                 ["test", "1/1", "Unknown", "0", "<unknown>"],
                 id="a deleted pod on a lost node is Unknown"),
    pytest.param(pod(phase="Running", statuses=[cs(restarts=5, last_finished=30,
                                                   waiting={"reason": "CrashLoopBackOff", "message": "back-off 1m20s"})]),
                 ["test", "0/1", "CrashLoopBackOff", "5 (30s ago)", "<unknown>"],
                 id="a crash-looping container shows CrashLoopBackOff"),
    pytest.param(pod(phase="Running", statuses=[cs(terminated={"exitCode": 2})]),
                 ["test", "0/1", "ExitCode:2", "0", "<unknown>"],
                 id="a terminated container without a reason shows its exit code"),
    pytest.param(pod(phase="Running", statuses=[cs(terminated={"exitCode": 137, "signal": 9})]),
                 ["test", "0/1", "Signal:9", "0", "<unknown>"],
                 id="a killed container without a reason shows the signal"),
    pytest.param(pod(init=1, phase="Pending", init_statuses=[cs(terminated={"exitCode": 1})]),
                 ["test", "0/1", "Init:ExitCode:1", "0", "<unknown>"],
                 id="a failed init container without a reason shows Init and its exit code"),
    pytest.param(pod(init=1, phase="Pending", init_statuses=[cs(terminated={"exitCode": 1, "reason": "Error"})]),
                 ["test", "0/1", "Init:Error", "0", "<unknown>"],
                 id="a failed init container shows Init and its reason"),
    pytest.param(pod(init=1, phase="Pending", init_statuses=[cs(waiting={"reason": "ImagePullBackOff"})]),
                 ["test", "0/1", "Init:ImagePullBackOff", "0", "<unknown>"],
                 id="a waiting init container shows Init and its reason"),
    pytest.param(pod(init=1, phase="Pending", init_statuses=[cs(waiting={"reason": "PodInitializing"})]),
                 ["test", "0/1", "Init:0/1", "0", "<unknown>"],
                 id="PodInitializing is not shown as an init reason"),
    pytest.param(pod(phase="Pending", statuses=[cs(waiting={"reason": "ContainerCreating"})], created=3),
                 ["test", "0/1", "ContainerCreating", "0", "3s"],
                 id="a creating container and the pod's age"),
])
def test_pod_status_ready_restarts(p, want):
    assert row(p) == want


@pytest.mark.parametrize("p, want", [
    pytest.param(pod(init=SIDECARS, phase="Pending", conditions=[cond("Initialized", "False")],
                     init_statuses=[cs("restartable-init-1", restarts=3, running=True, started=False, last_finished=10),
                                    cs("restartable-init-2", waiting={}, started=False)],
                     statuses=[cs(waiting={})]),
                 ["test", "0/3", "Init:0/2", "3 (10s ago)", "<unknown>"],
                 id="a sidecar running but not started holds initialization"),
    pytest.param(pod(init=SIDECARS, phase="Pending", conditions=[cond("Initialized", "False")],
                     init_statuses=[cs("restartable-init-1", restarts=3, running=True, started=True, last_finished=10),
                                    cs("restartable-init-2", running=True, started=False)],
                     statuses=[cs(waiting={})]),
                 ["test", "0/3", "Init:1/2", "3 (10s ago)", "<unknown>"],
                 id="a started sidecar moves the progress on"),
    pytest.param(pod(init=SIDECARS, phase="Running", conditions=[cond("Initialized")],
                     init_statuses=[cs("restartable-init-1", restarts=3, running=True, started=True, last_finished=10),
                                    cs("restartable-init-2", running=True, started=True)],
                     statuses=[cs(ready=True, restarts=4, running=True, last_finished=20)]),
                 ["test", "1/3", "Running", "7 (10s ago)", "<unknown>"],
                 id="sidecar restarts count with the app containers'"),
    pytest.param(pod(init=SIDECARS, phase="Succeeded", conditions=[cond("Initialized")],
                     init_statuses=[cs("restartable-init-1", restarts=3, started=False, last_finished=10,
                                       terminated={"reason": "Error", "exitCode": 137}),
                                    cs("restartable-init-2", started=False, terminated={"reason": "Error", "exitCode": 137})],
                     statuses=[cs(restarts=4, last_finished=20, terminated={"reason": "Completed", "exitCode": 0})]),
                 ["test", "0/3", "Completed", "7 (10s ago)", "<unknown>"],
                 id="sidecars killed at the end of a completed pod"),
    pytest.param(pod(init=[{"name": "init1"}, {"name": "sidecar1", "restartPolicy": "Always"}], phase="Running",
                     init_statuses=[cs("initinvalid"), cs("init1"), cs("sidecar1")],
                     statuses=[cs("containerinvalid"), cs("c0")]),
                 ["test", "0/2", "Init:0/2", "0", "<unknown>"],
                 id="statuses for containers that do not exist"),
])
def test_pod_with_restartable_init_containers(p, want):
    assert row(p) == want


@pytest.mark.parametrize("p, want", [
    pytest.param(pod(containers=2, phase="podPhase", node="test1", pod_ips=["1.1.1.1"], nominated="node1",
                     gates=["condition1", "condition2", "condition3"],
                     conditions=[cond("condition1", "False"), cond("condition2")],
                     statuses=[cs(ready=True, restarts=3, running=True), cs(restarts=3)]),
                 ["test", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"],
                 id="ip node nominated node and readiness gates"),
    pytest.param(pod(containers=2, phase="podPhase", node="test1", pod_ips=["1.1.1.1", "2001:db8::"],
                     nominated="node1", gates=["condition1", "condition2", "condition3"],
                     conditions=[cond("condition1", "False"), cond("condition2")],
                     statuses=[cs(ready=True, restarts=3, running=True), cs(restarts=3)]),
                 ["test", "1/2", "podPhase", "6", "<unknown>", "1.1.1.1", "test1", "node1", "1/3"],
                 id="dual-stack shows the first ip"),
    pytest.param(pod(containers=2, phase="podPhase", statuses=[
        cs(ready=True, restarts=3, running=True), cs(restarts=3, waiting={"reason": "ContainerWaitingReason"})]),
                 ["test", "1/2", "ContainerWaitingReason", "6", "<unknown>", "<none>", "<none>", "<none>", "<none>"],
                 id="no ip node nominated node or gates"),
])
def test_pod_wide(p, want):
    assert row(p, wide=True) == want


# --- Node -------------------------------------------------------------------------------------


def node(name="foo", *, conditions=(), unschedulable=False, labels=None, addresses=(), info=None,
         created=None) -> dict:
    meta = {"name": name}
    if labels:
        meta["labels"] = labels
    if created is not None:
        meta["creationTimestamp"] = ago(created)
    status = {"conditions": list(conditions), "addresses": [{"type": t, "address": a} for t, a in addresses]}
    if info is not None:
        status["nodeInfo"] = info
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta,
            "spec": {"unschedulable": True} if unschedulable else {}, "status": status}


@pytest.mark.parametrize("n, want", [
    pytest.param(node(conditions=[cond("Ready")]), "Ready", id="ready"),
    pytest.param(node(conditions=[cond("Ready")], unschedulable=True), "Ready,SchedulingDisabled",
                 id="a cordoned ready node"),
    pytest.param(node(conditions=[cond("Ready", "False")]), "NotReady", id="not ready"),
    pytest.param(node(conditions=[cond("Ready", "Unknown")]), "NotReady", id="an unknown Ready condition is NotReady"),
    pytest.param(node(conditions=[cond("Ready", "False")], unschedulable=True), "NotReady,SchedulingDisabled",
                 id="a cordoned node that is not ready"),
    pytest.param(node(), "Unknown", id="no conditions at all"),
    pytest.param(node(conditions=[cond("InvalidValue"), cond("MemoryPressure", "False")]), "Unknown",
                 id="only Ready counts"),
    pytest.param(node(unschedulable=True), "Unknown,SchedulingDisabled", id="a cordoned node without conditions"),
])
def test_node_status(n, want):
    assert row(n)[1] == want


@pytest.mark.parametrize("labels, want", [
    pytest.param(None, "<none>", id="no labels no roles"),
    pytest.param({"node-role.kubernetes.io/control-plane": ""}, "control-plane", id="a node-role label"),
    pytest.param({"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/infra": "true"}, "infra,worker",
                 id="roles sorted and values ignored"),
    pytest.param({"kubernetes.io/role": "node", "node-role.kubernetes.io/node": ""}, "node",
                 id="both label styles name one role once"),
    pytest.param({"kubernetes.io/role": "", "node-role.kubernetes.io/": ""}, "<none>",
                 id="empty role names are ignored"),
])
def test_node_roles(labels, want):
    assert row(node(labels=labels))[2] == want


@pytest.mark.parametrize("n, want", [
    pytest.param(node(conditions=[cond("Ready")], created=3600,
                      addresses=[("InternalIP", "10.0.0.2"), ("ExternalIP", "1.1.1.1"), ("ExternalIP", "2.2.2.2")],
                      info={"kubeletVersion": "v1.35.0", "osImage": "Ubuntu 24.04.1 LTS", "kernelVersion": "6.8.0",
                            "containerRuntimeVersion": "containerd://2.0.0"}),
                 ["foo", "Ready", "<none>", "60m", "v1.35.0", "10.0.0.2", "1.1.1.1", "Ubuntu 24.04.1 LTS",
                  "6.8.0", "containerd://2.0.0"],
                 id="the first internal and external address"),
    pytest.param(node(addresses=[("Hostname", "foo")]),
                 ["foo", "Unknown", "<none>", "<unknown>", "", "<none>", "<none>", "<unknown>", "<unknown>",
                  "<unknown>"],
                 id="missing addresses and node info"),
])
def test_node_wide(n, want):
    assert row(n, wide=True) == want


# --- Namespace and Event ------------------------------------------------------------------------


def test_namespace_row():
    ns = {"kind": "Namespace", "metadata": {"name": "kube-system", "creationTimestamp": ago(3 * 86400)},
          "status": {"phase": "Active"}}
    assert render_table("Namespace", [ns], CTX) == [["NAME", "STATUS", "AGE"], ["kube-system", "Active", "3d"]]


def event(**fields) -> dict:
    e = {"kind": "Event", "metadata": {"name": "ev1", "namespace": "default"},
         "involvedObject": {"kind": "Pod", "name": "nginx", "namespace": "default"},
         "type": "Normal", "reason": "Scheduled", "message": "Successfully assigned default/nginx to node01"}
    e.update(fields)
    return e


@pytest.mark.parametrize("e, want", [
    pytest.param(event(firstTimestamp=ago(300), lastTimestamp=ago(60), count=3, source={"component": "kubelet", "host": "node01"},
                       involvedObject={"kind": "Pod", "name": "nginx", "fieldPath": "spec.containers{nginx}"}),
                 ["60s", "Normal", "Scheduled", "pod/nginx", "spec.containers{nginx}", "kubelet, node01",
                  "Successfully assigned default/nginx to node01", "5m", "3", "ev1"],
                 id="a legacy event with a count and a host"),
    pytest.param(event(eventTime=ago(30) + "", reportingComponent="default-scheduler", source={}),
                 ["30s", "Normal", "Scheduled", "pod/nginx", "", "default-scheduler",
                  "Successfully assigned default/nginx to node01", "30s", "1", "ev1"],
                 id="a new-style singleton event counts once and reports its controller"),
    pytest.param(event(eventTime=ago(600), series={"count": 7, "lastObservedTime": ago(20)},
                       reportingController="kubelet", reportingInstance="node02"),
                 ["20s", "Normal", "Scheduled", "pod/nginx", "", "kubelet, node02",
                  "Successfully assigned default/nginx to node01", "10m", "7", "ev1"],
                 id="a series shows its last observation and count"),
    pytest.param(event(firstTimestamp=ago(90), message="  padded message \n", involvedObject={"kind": "Node"}),
                 ["90s", "Normal", "Scheduled", "node", "", "", "padded message", "90s", "1", "ev1"],
                 id="no last timestamp falls back to the first and the message is trimmed"),
    pytest.param(event(), ["<unknown>", "Normal", "Scheduled", "pod/nginx", "", "",
                           "Successfully assigned default/nginx to node01", "<unknown>", "1", "ev1"],
                 id="no timestamps at all"),
])
def test_event_row(e, want):
    assert row(e, wide=True) == want


def test_event_columns_without_wide():
    rows = render_table("Event", [event(firstTimestamp=ago(300), lastTimestamp=ago(60))], CTX)
    assert rows == [["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
                    ["60s", "Normal", "Scheduled", "pod/nginx", "Successfully assigned default/nginx to node01"]]


def test_column_definitions_match_upstream():
    def names(kind, wide):
        return [c.name.upper() for c in table_of(kind).columns if wide or c.priority == 0]

    assert names("Pod", False) == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert names("Pod", True) == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                                  "NOMINATED NODE", "READINESS GATES"]
    assert names("Node", True) == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP",
                                   "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"]
    assert names("Event", True) == ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE",
                                    "FIRST SEEN", "COUNT", "NAME"]


# --- decoration ---------------------------------------------------------------------------------


def test_an_empty_list_prints_no_header():
    assert render_table("Pod", [], CTX) == []
    assert format_cells([]) == ""


def test_kinds_without_a_printer_show_name_and_age():
    obj = {"kind": "KubeSchedulerConfiguration", "metadata": {"name": "default", "creationTimestamp": ago(45)}}
    assert render_table("KubeSchedulerConfiguration", [obj], CTX) == [["NAME", "AGE"], ["default", "45s"]]


def test_show_kind_prefixes_the_name_column():
    rows = render_table("Pod", [pod("nginx", phase="Pending")], CTX, show_kind=True, show_namespace=True)
    assert rows[1][:2] == ["default", "pod/nginx"]


def test_label_columns_and_show_labels():
    p = pod("nginx", phase="Pending", labels={"app": "web", "app.kubernetes.io/tier": "front", "a": "1"})
    q = pod("other", phase="Pending")
    rows = render_table("Pod", [p, q], CTX, label_columns=["app.kubernetes.io/tier", "missing"], show_labels=True)
    assert rows[0][-3:] == ["TIER", "MISSING", "LABELS"]
    assert rows[1][-3:] == ["front", "", "a=1,app=web,app.kubernetes.io/tier=front"]
    assert rows[2][-3:] == ["", "", "<none>"]


# --- layout (Go text/tabwriter) -----------------------------------------------------------------


def test_tabwriter_column_blocks_are_aligned_separately():
    text = "a:\tx\nlonger:\ty\nbreak\nb:\tz\n"
    assert tabwrite(text, 0, 8, 2) == "a:       x\nlonger:  y\nbreak\nb:  z\n"


def test_tabwriter_never_pads_the_text_after_the_last_tab():
    assert tabwrite("a\tb\nccc\t\n", 0, 8, 1) == "a   b\nccc \n"


def test_tabwriter_minwidth_applies_to_short_columns():
    assert tabwrite("a\tb\n", 6, 4, 3) == "a     b\n"


def test_tabwriter_a_vertical_tab_ends_a_cell_and_a_form_feed_a_line():
    assert tabwrite("a\vb\nccc\vd\n", 0, 8, 1) == "a   b\nccc d\n"
    # a form feed flushes: the lines after it form new column blocks
    assert tabwrite("a\tb\fccc\td\n", 0, 8, 1) == "a b\nccc d\n"


def test_tabwriter_text_after_the_last_tab_of_the_text_is_not_a_cell():
    assert tabwrite("a\tb\nccc\t", 0, 8, 1) == "a b\nccc"


def test_remember_widths_keeps_a_column_as_wide_as_before_a_flush():
    # a one-cell line flushes; kubectl get's liggitt/tabwriter then remembers the widths
    text = "aaaaaa\tb\none\nc\td\n"
    assert tabwrite(text, 0, 8, 1) == "aaaaaa b\none\nc d\n"
    assert tabwrite(text, 0, 8, 1, remember_widths=True) == "aaaaaa b\none\nc      d\n"
    assert table_tabwrite(text) == "aaaaaa   b\none\nc        d\n"


def test_cells_are_cut_at_a_newline():
    assert format_cells([["NAME", "MESSAGE"], ["x", "line one\nline two"]]) == \
        "NAME   MESSAGE\nx      line one...\n"


def _pods_for_layout():
    return [
        pod("big", phase="Pending", created=75),
        pod("web-7d4b9c8f6d-x2x8k", containers=1, init=[{"name": "log", "restartPolicy": "Always"}], phase="Running",
            created=3725, node="node01", pod_ips=["10.244.1.5"], labels={"app": "web", "pod-template-hash": "7d4b9c8f6d"},
            init_statuses=[cs("log", ready=True, running=True, started=True)],
            statuses=[cs("c0", ready=True, restarts=2, running=True, last_finished=301)]),
        pod("etcd-controlplane", namespace="kube-system", phase="Running", created=86400 * 3 + 7000,
            node="controlplane", pod_ips=["192.168.49.2"], labels={"tier": "control-plane", "component": "etcd"},
            statuses=[cs("c0", ready=True, running=True)]),
    ]


# The expected texts below are kubectl 1.36.4's output for the same rows.
LAYOUTS = [
    pytest.param(dict(), "default",
                 "NAME                   READY   STATUS    RESTARTS       AGE\n"
                 "big                    0/1     Pending   0              75s\n"
                 "web-7d4b9c8f6d-x2x8k   2/2     Running   2 (5m1s ago)   62m\n",
                 id="get pods"),
    pytest.param(dict(wide=True), "default",
                 "NAME                   READY   STATUS    RESTARTS       AGE   IP           NODE     NOMINATED NODE   READINESS GATES\n"
                 "big                    0/1     Pending   0              75s   <none>       <none>   <none>           <none>\n"
                 "web-7d4b9c8f6d-x2x8k   2/2     Running   2 (5m1s ago)   62m   10.244.1.5   node01   <none>           <none>\n",
                 id="get pods -o wide"),
    pytest.param(dict(show_namespace=True, no_headers=True), None,
                 "default       big                    0/1   Pending   0              75s\n"
                 "default       web-7d4b9c8f6d-x2x8k   2/2   Running   2 (5m1s ago)   62m\n"
                 "kube-system   etcd-controlplane      1/1   Running   0              3d1h\n",
                 id="get pods -A --no-headers"),
    pytest.param(dict(show_namespace=True, label_columns=["app", "example.com/tier"], show_labels=True), None,
                 "NAMESPACE     NAME                   READY   STATUS    RESTARTS       AGE    APP   TIER   LABELS\n"
                 "default       big                    0/1     Pending   0              75s                 <none>\n"
                 "default       web-7d4b9c8f6d-x2x8k   2/2     Running   2 (5m1s ago)   62m    web          app=web,pod-template-hash=7d4b9c8f6d\n"
                 "kube-system   etcd-controlplane      1/1     Running   0              3d1h                component=etcd,tier=control-plane\n",
                 id="get pods -A -L app,example.com/tier --show-labels"),
    pytest.param(dict(show_kind=True), "default",
                 "NAME                       READY   STATUS    RESTARTS       AGE\n"
                 "pod/big                    0/1     Pending   0              75s\n"
                 "pod/web-7d4b9c8f6d-x2x8k   2/2     Running   2 (5m1s ago)   62m\n",
                 id="get pods,nodes shows the kind"),
]


@pytest.mark.parametrize("options, namespace, want", LAYOUTS)
def test_layout_matches_kubectl(options, namespace, want):
    pods = [p for p in _pods_for_layout() if namespace is None or p["metadata"]["namespace"] == namespace]
    pods.sort(key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
    assert format_cells(render_table("Pod", pods, CTX, **options)) == want


def test_node_layout_matches_kubectl():
    ready = [cond("Ready")]
    info = {"kubeletVersion": "v1.35.0", "osImage": "Ubuntu 24.04.1 LTS", "kernelVersion": "6.8.0-45-generic",
            "containerRuntimeVersion": "containerd://2.0.0"}
    nodes = [
        node("controlplane", conditions=ready, labels={"node-role.kubernetes.io/control-plane": ""},
             addresses=[("InternalIP", "192.168.49.2")], info=info, created=86400 * 3 + 7200),
        node("node01", conditions=ready, unschedulable=True, created=86400 * 3 + 7200,
             addresses=[("InternalIP", "192.168.49.3"), ("ExternalIP", "203.0.113.7")],
             info={**info, "osImage": ""}),
    ]
    assert format_cells(render_table("Node", nodes, CTX)) == (
        "NAME           STATUS                     ROLES           AGE    VERSION\n"
        "controlplane   Ready                      control-plane   3d2h   v1.35.0\n"
        "node01         Ready,SchedulingDisabled   <none>          3d2h   v1.35.0\n")
    assert format_cells(render_table("Node", nodes, CTX, wide=True, no_headers=True)) == (
        "controlplane   Ready                      control-plane   3d2h   v1.35.0   192.168.49.2   <none>        "
        "Ubuntu 24.04.1 LTS   6.8.0-45-generic   containerd://2.0.0\n"
        "node01         Ready,SchedulingDisabled   <none>          3d2h   v1.35.0   192.168.49.3   203.0.113.7   "
        "<unknown>            6.8.0-45-generic   containerd://2.0.0\n")


# --- apps/v1: Deployment, ReplicaSet, DaemonSet, ControllerRevision -----------------------------
# Cases mirror printers_test.go's TestPrintDeployment, TestPrintReplicaSet, TestPrintDaemonSet(List)
# and TestPrintControllerRevision (their objects are created 1.9s in the future: age "0s").

FAKE_CONTAINERS = (("fake-container1", "fake-image1"), ("fake-container2", "fake-image2"))


def workload(kind, name="test1", *, namespace="default", created=-1.9, desired=None, selector=None,
             containers=FAKE_CONTAINERS, node_selector=None, labels=None, **status) -> dict:
    """An apps/v1 object: ``desired`` is spec.replicas, ``selector`` a metav1.LabelSelector,
    the keywords left its status fields."""
    template_spec = {"containers": [{"name": n, "image": i} for n, i in containers]}
    if node_selector:
        template_spec["nodeSelector"] = node_selector
    spec = {"template": {"spec": template_spec}}
    if desired is not None:
        spec["replicas"] = desired
    if selector is not None:
        spec["selector"] = selector
    meta = {"name": name, "namespace": namespace, "creationTimestamp": ago(created)}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": spec, "status": status}


def revision(name, revision, owners=None, *, namespace="default", created=-1.9) -> dict:
    meta = {"name": name, "namespace": namespace, "creationTimestamp": ago(created)}
    if owners is not None:
        meta["ownerReferences"] = owners
    return {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": meta, "revision": revision}


FOO_BAR = {"matchLabels": {"foo": "bar"}}
TEST_DEPLOYMENT = workload("Deployment", desired=5, selector=FOO_BAR, replicas=10, updatedReplicas=2,
                           availableReplicas=1, unavailableReplicas=4)


@pytest.mark.parametrize("obj, wide, want", [
    pytest.param(TEST_DEPLOYMENT, False, ["test1", "0/5", "2", "1", "0s"],
                 id="a deployment shows ready of desired, up-to-date and available"),
    pytest.param(TEST_DEPLOYMENT, True,
                 ["test1", "0/5", "2", "1", "0s", "fake-container1,fake-container2", "fake-image1,fake-image2", "foo=bar"],
                 id="a wide deployment adds its containers images and selector"),
    pytest.param(workload("Deployment", desired=3, readyReplicas=3, selector={
        "matchLabels": {"app": "api"}, "matchExpressions": [{"key": "track", "operator": "In", "values": ["stable", "canary"]}]}),
                 True, ["test1", "3/3", "0", "0", "0s", "fake-container1,fake-container2", "fake-image1,fake-image2",
                        "app=api,track in (canary,stable)"],
                 id="a deployment selector prints its requirements sorted by key with sorted values"),
    pytest.param(workload("Deployment", desired=1, selector={}), True,
                 ["test1", "0/1", "0", "0", "0s", "fake-container1,fake-container2", "fake-image1,fake-image2", ""],
                 id="an empty deployment selector prints empty not none"),
    pytest.param(workload("Deployment", desired=1, selector={"matchExpressions": [{"key": "a", "operator": "Bogus"}]}),
                 True, ["test1", "0/1", "0", "0", "0s", "fake-container1,fake-container2", "fake-image1,fake-image2",
                        "<invalid>"],
                 id="a deployment selector that does not convert is invalid"),
    pytest.param(workload("ReplicaSet", desired=5, selector=FOO_BAR, replicas=5, readyReplicas=2),
                 False, ["test1", "5", "5", "2", "0s"], id="a replica set shows desired current and ready"),
    pytest.param(workload("ReplicaSet", desired=5, selector=FOO_BAR, replicas=5, readyReplicas=2), True,
                 ["test1", "5", "5", "2", "0s", "fake-container1,fake-container2", "fake-image1,fake-image2", "foo=bar"],
                 id="a wide replica set adds its containers images and selector"),
    pytest.param(workload("ReplicaSet", desired=0, selector={}), True,
                 ["test1", "0", "0", "0", "0s", "fake-container1,fake-container2", "fake-image1,fake-image2", "<none>"],
                 id="a replica set selector that selects everything prints none"),
    pytest.param(workload("DaemonSet", selector=FOO_BAR, currentNumberScheduled=2, desiredNumberScheduled=3,
                          numberReady=1, updatedNumberScheduled=2, numberAvailable=0),
                 False, ["test1", "3", "2", "1", "2", "0", "<none>", "0s"],
                 id="a daemon set shows its scheduling counts and no node selector"),
    pytest.param(workload("DaemonSet", selector=FOO_BAR, currentNumberScheduled=2, desiredNumberScheduled=3,
                          numberReady=1, updatedNumberScheduled=2, numberAvailable=0),
                 True, ["test1", "3", "2", "1", "2", "0", "<none>", "0s", "fake-container1,fake-container2",
                        "fake-image1,fake-image2", "foo=bar"],
                 id="a wide daemon set adds its containers images and selector"),
    pytest.param(workload("DaemonSet", "daemonset2", containers=(), selector=FOO_BAR, currentNumberScheduled=4,
                          desiredNumberScheduled=2, numberReady=9, updatedNumberScheduled=3, numberAvailable=3),
                 True, ["daemonset2", "2", "4", "9", "3", "3", "<none>", "0s", "", "", "foo=bar"],
                 id="a daemon set without containers prints empty container cells"),
    pytest.param(workload("DaemonSet", node_selector={"kubernetes.io/os": "linux", "disk": "ssd"}), False,
                 ["test1", "0", "0", "0", "0", "0", "disk=ssd,kubernetes.io/os=linux", "0s"],
                 id="a daemon set node selector prints sorted by key"),
    pytest.param(revision("test1", 1, [{"controller": True, "apiVersion": "apps/v1", "kind": "DaemonSet", "name": "foo"}]),
                 False, ["test1", "daemonset.apps/foo", "1", "0s"],
                 id="a controller revision names its controller as kind dot group"),
    pytest.param(revision("test2", 2, [{"controller": False, "kind": "ABC", "name": "foo"}]), False,
                 ["test2", "<none>", "2", "0s"], id="an owner that is not the controller is not shown"),
    pytest.param(revision("test3", 3, []), False, ["test3", "<none>", "3", "0s"],
                 id="empty owner references mean no controller"),
    pytest.param(revision("test4", 4), False, ["test4", "<none>", "4", "0s"], id="no owner references mean no controller"),
    pytest.param(revision("test5", 5, [{"controller": True, "apiVersion": "v1", "kind": "Pod", "name": "p"}]), False,
                 ["test5", "pod/p", "5", "0s"], id="a core controller has no group"),
])
def test_apps_rows(obj, wide, want):
    assert row(obj, wide=wide) == want


def test_apps_column_definitions_match_upstream():
    def names(kind, wide):
        return [c.name.upper() for c in table_of(kind).columns if wide or c.priority == 0]

    assert names("Deployment", True) == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES",
                                         "SELECTOR"]
    assert names("ReplicaSet", True) == ["NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES",
                                         "SELECTOR"]
    assert names("DaemonSet", False) == ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE",
                                         "NODE SELECTOR", "AGE"]
    assert names("DaemonSet", True)[-3:] == ["CONTAINERS", "IMAGES", "SELECTOR"]
    assert names("ControllerRevision", True) == ["NAME", "CONTROLLER", "REVISION", "AGE"]


def _apps_objects():
    owner = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "fluentd", "uid": "u", "controller": True}]
    return [
        workload("Deployment", "web", created=86400 + 3600, desired=3, selector={"matchLabels": {"app": "web"}},
                 containers=(("nginx", "nginx:1.27"), ("metrics", "nginx/nginx-prometheus-exporter:1.3")),
                 labels={"app": "web", "tier": "frontend"}, updatedReplicas=3, readyReplicas=3, availableReplicas=3,
                 replicas=3),
        workload("Deployment", "api-server-canary", created=75, desired=4,
                 selector={"matchLabels": {"app": "api"},
                           "matchExpressions": [{"key": "track", "operator": "In", "values": ["stable", "canary"]}]},
                 containers=(("api", "example.com/api:2.0"),), labels={"app": "api"},
                 updatedReplicas=2, readyReplicas=4, availableReplicas=4, unavailableReplicas=1, replicas=5),
        workload("Deployment", "batch", created=20, desired=0, selector={"matchLabels": {"job": "batch"}},
                 containers=(("worker", "example.com/worker:3"),)),
        workload("Deployment", "coredns", namespace="kube-system", created=86400 * 3 + 7200, desired=2,
                 selector={"matchLabels": {"k8s-app": "kube-dns"}},
                 containers=(("coredns", "registry.k8s.io/coredns/coredns:v1.12.0"),), labels={"k8s-app": "kube-dns"},
                 updatedReplicas=2, readyReplicas=2, availableReplicas=2, replicas=2),
        workload("ReplicaSet", "web-6b9f5c7d8", created=1800, desired=3,
                 selector={"matchLabels": {"app": "web", "pod-template-hash": "6b9f5c7d8"}},
                 containers=(("nginx", "nginx:1.27"), ("metrics", "nginx/nginx-prometheus-exporter:1.3")),
                 replicas=3, readyReplicas=3, availableReplicas=3),
        workload("ReplicaSet", "web-7d4b9c8f6d", created=86400 + 3600, desired=0,
                 selector={"matchLabels": {"app": "web", "pod-template-hash": "7d4b9c8f6d"}},
                 containers=(("nginx", "nginx:1.26"),), replicas=0),
        workload("ReplicaSet", "quota-bound", created=300, desired=2,
                 selector={"matchLabels": {"app": "quota-bound"}, "matchExpressions": [{"key": "env", "operator": "Exists"}]},
                 containers=(("app", "busybox"),), replicas=0),
        workload("ReplicaSet", "coredns-668d6bf9bc", namespace="kube-system", created=86400 * 3 + 7200, desired=2,
                 selector={"matchLabels": {"k8s-app": "kube-dns", "pod-template-hash": "668d6bf9bc"}},
                 containers=(("coredns", "registry.k8s.io/coredns/coredns:v1.12.0"),), replicas=2, readyReplicas=2),
        workload("DaemonSet", "kube-proxy", namespace="kube-system", created=86400 * 3 + 7200,
                 selector={"matchLabels": {"k8s-app": "kube-proxy"}}, node_selector={"kubernetes.io/os": "linux"},
                 containers=(("kube-proxy", "registry.k8s.io/kube-proxy:v1.35.0"),),
                 desiredNumberScheduled=3, currentNumberScheduled=3, numberReady=3, updatedNumberScheduled=3,
                 numberAvailable=3),
        workload("DaemonSet", "fluentd", namespace="kube-system", created=86400 * 2, selector={"matchLabels": {"name": "fluentd"}},
                 node_selector={"kubernetes.io/os": "linux", "disk": "ssd"}, containers=(("fluentd", "fluent/fluentd:v1.17"),),
                 desiredNumberScheduled=3, currentNumberScheduled=3, numberReady=2, updatedNumberScheduled=2,
                 numberAvailable=2, numberMisscheduled=1),
        revision("fluentd-7c9b8d5f6", 1, owner, namespace="kube-system", created=86400 * 2),
        revision("fluentd-84f6d7c9b", 2, owner, namespace="kube-system", created=3600),
        revision("web-db-0", 12, [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web-db", "controller": True}],
                 created=120),
    ]


# kubectl 1.36.4's output for the same rows, served as a metav1.Table by a fake API server:
# KUBESIM_CHECK_KUBECTL=1 re-checks every literal against the real kubectl.
APPS_LAYOUTS = [
    pytest.param("Deployment", dict(), "default", ("get", "deployments"),
                 "NAME                READY   UP-TO-DATE   AVAILABLE   AGE\n"
                 "api-server-canary   4/4     2            4           75s\n"
                 "batch               0/0     0            0           20s\n"
                 "web                 3/3     3            3           25h\n",
                 id="get deployments"),
    pytest.param("Deployment", dict(wide=True), "default", ("get", "deployments", "-o", "wide"),
                 "NAME                READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS      IMAGES                                           SELECTOR\n"
                 "api-server-canary   4/4     2            4           75s   api             example.com/api:2.0                              app=api,track in (canary,stable)\n"
                 "batch               0/0     0            0           20s   worker          example.com/worker:3                             job=batch\n"
                 "web                 3/3     3            3           25h   nginx,metrics   nginx:1.27,nginx/nginx-prometheus-exporter:1.3   app=web\n",
                 id="get deployments -o wide"),
    pytest.param("Deployment", dict(show_namespace=True, no_headers=True), None, ("get", "deployments", "-A", "--no-headers"),
                 "default       api-server-canary   4/4   2     4     75s\n"
                 "default       batch               0/0   0     0     20s\n"
                 "default       web                 3/3   3     3     25h\n"
                 "kube-system   coredns             2/2   2     2     3d2h\n",
                 id="get deployments -A --no-headers"),
    pytest.param("Deployment", dict(show_namespace=True, wide=True, label_columns=["app", "example.com/tier"],
                                    show_labels=True), None,
                 ("get", "deployments", "-A", "-o", "wide", "-L", "app,example.com/tier", "--show-labels"),
                 "NAMESPACE     NAME                READY   UP-TO-DATE   AVAILABLE   AGE    CONTAINERS      IMAGES                                           SELECTOR                           APP   TIER   LABELS\n"
                 "default       api-server-canary   4/4     2            4           75s    api             example.com/api:2.0                              app=api,track in (canary,stable)   api          app=api\n"
                 "default       batch               0/0     0            0           20s    worker          example.com/worker:3                             job=batch                                       <none>\n"
                 "default       web                 3/3     3            3           25h    nginx,metrics   nginx:1.27,nginx/nginx-prometheus-exporter:1.3   app=web                            web          app=web,tier=frontend\n"
                 "kube-system   coredns             2/2     2            2           3d2h   coredns         registry.k8s.io/coredns/coredns:v1.12.0          k8s-app=kube-dns                                k8s-app=kube-dns\n",
                 id="get deployments -A -o wide -L app,example.com/tier --show-labels"),
    pytest.param("Deployment", dict(show_kind=True), "default", ("get", "deploy,rs"),
                 "NAME                                READY   UP-TO-DATE   AVAILABLE   AGE\n"
                 "deployment.apps/api-server-canary   4/4     2            4           75s\n"
                 "deployment.apps/batch               0/0     0            0           20s\n"
                 "deployment.apps/web                 3/3     3            3           25h\n",
                 id="get deploy,rs names the kind with its group"),
    pytest.param("ReplicaSet", dict(show_namespace=True, wide=True), None, ("get", "replicasets", "-A", "-o", "wide"),
                 "NAMESPACE     NAME                 DESIRED   CURRENT   READY   AGE    CONTAINERS      IMAGES                                           SELECTOR\n"
                 "default       quota-bound          2         0         0       5m     app             busybox                                          app=quota-bound,env\n"
                 "default       web-6b9f5c7d8        3         3         3       30m    nginx,metrics   nginx:1.27,nginx/nginx-prometheus-exporter:1.3   app=web,pod-template-hash=6b9f5c7d8\n"
                 "default       web-7d4b9c8f6d       0         0         0       25h    nginx           nginx:1.26                                       app=web,pod-template-hash=7d4b9c8f6d\n"
                 "kube-system   coredns-668d6bf9bc   2         2         2       3d2h   coredns         registry.k8s.io/coredns/coredns:v1.12.0          k8s-app=kube-dns,pod-template-hash=668d6bf9bc\n",
                 id="get replicasets -A -o wide"),
    pytest.param("DaemonSet", dict(wide=True), "kube-system", ("get", "daemonsets", "-n", "kube-system", "-o", "wide"),
                 "NAME         DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR                     AGE    CONTAINERS   IMAGES                               SELECTOR\n"
                 "fluentd      3         3         2       2            2           disk=ssd,kubernetes.io/os=linux   2d     fluentd      fluent/fluentd:v1.17                 name=fluentd\n"
                 "kube-proxy   3         3         3       3            3           kubernetes.io/os=linux            3d2h   kube-proxy   registry.k8s.io/kube-proxy:v1.35.0   k8s-app=kube-proxy\n",
                 id="get daemonsets -n kube-system -o wide"),
    pytest.param("ControllerRevision", dict(show_namespace=True), None, ("get", "controllerrevisions", "-A"),
                 "NAMESPACE     NAME                CONTROLLER                REVISION   AGE\n"
                 "default       web-db-0            statefulset.apps/web-db   12         2m\n"
                 "kube-system   fluentd-7c9b8d5f6   daemonset.apps/fluentd    1          2d\n"
                 "kube-system   fluentd-84f6d7c9b   daemonset.apps/fluentd    2          60m\n",
                 id="get controllerrevisions -A"),
]


@pytest.mark.parametrize("kind, options, namespace, args, want", APPS_LAYOUTS)
def test_apps_layout_matches_kubectl(kind, options, namespace, args, want):
    objs = [o for o in _apps_objects() if o["kind"] == kind
            and (namespace is None or o["metadata"]["namespace"] == namespace)]
    objs.sort(key=lambda o: (o["metadata"]["namespace"], o["metadata"]["name"]))
    assert format_cells(render_table(kind, objs, CTX, **options)) == want


@pytest.mark.skipif(os.environ.get("KUBESIM_CHECK_KUBECTL") != "1" or real_kubectl() is None,
                    reason="KUBESIM_CHECK_KUBECTL=1 and the real kubectl re-check the literals")
@pytest.mark.parametrize("kind, options, namespace, args, want", APPS_LAYOUTS)
def test_apps_layout_literals_are_kubectls_output(kind, options, namespace, args, want):
    from tests.kubectl.test_describe import _FakeAPIServer

    server = _FakeAPIServer(_apps_objects(), table_ctx=CTX)
    try:
        rc, out, err = server.kubectl(*args)
    finally:
        server.server.shutdown()
    assert rc == 0, err
    # a multi-kind get prints one table per kind, a blank line apart: the first is this kind's
    assert out.split("\n\n")[0].rstrip("\n") + "\n" == want


# format_cells lays out rows of one width (a table's usual shape) in one pass per column; each
# case must come out as the general writer (Go's column blocks) lays out the same text.
@pytest.mark.parametrize("rows,remembered", [
    pytest.param([["NAME", "AGE"], ["a", "1s"]], None, id="a short table keeps the minimum width"),
    pytest.param([["NAME", "READY", "STATUS"], ["a-very-long-name", "1/1", "Running"], ["b", "0/1", ""]], None,
                 id="each column is as wide as its widest cell plus the padding"),
    pytest.param([["A", "B"], ["x", ""], ["", "y"]], None, id="empty cells, first and last"),
    pytest.param([["A", "B", "C"], ["é名前", "b", "c"]], None, id="widths count code points"),
    pytest.param([["A", "B"], ["x\ty", "z"]], None, id="a tab inside a cell splits it (the general writer)"),
    pytest.param([["A", "B"], ["x\vy", "z"]], None, id="a vertical tab inside a cell (the general writer)"),
    pytest.param([["A", "B"], ["multi\nline", "z"], ["cr\rhere", "form\ffeed"]], None,
                 id="cells stop at their first line break, marked with dots"),
    pytest.param([["A"], ["one"]], None, id="one column: each line flushes (the general writer)"),
    pytest.param([["A", "B", "C"], ["x", "y"]], None, id="rows of different widths (the general writer)"),
    pytest.param([["NAME", "AGE"], ["a", "1s"]], [12, 3], id="remembered widths win when wider"),
    pytest.param([["NAME", "STATUS", "AGE"], ["a-long-name-here", "x", "1s"]], [7], id="and grow when narrower"),
    pytest.param([[1, 2], ["x", "y"]], [], id="cells that are not strings print as str does"),
])
def test_format_cells_lays_out_as_the_general_writer(rows, remembered):
    from kubesim.printers.tabwriter import _cut_cell

    general_widths = None if remembered is None else list(remembered)
    text = "".join("\t".join(_cut_cell(str(c)) for c in row) + "\n" for row in rows)
    expected = table_tabwrite(text, general_widths)
    assert format_cells(rows, remembered) == expected
    assert remembered == general_widths


def test_format_cells_matches_the_general_writer_on_random_tables():
    import random

    rng = random.Random(19)
    alphabet = ["a", "bb", "Ü", "", " ", "name-0123456789", "\t", "x\ny"]
    for _ in range(300):
        n = rng.randint(1, 5)
        rows = [[rng.choice(alphabet) * rng.randint(0, 3) for _ in range(n if rng.random() > 0.05 else n + 1)]
                for _ in range(rng.randint(1, 8))]
        remembered = rng.choice([None, [], [rng.randint(0, 20) for _ in range(rng.randint(0, n))]])
        general = None if remembered is None else list(remembered)
        text = "".join("\t".join(_cut(c) for c in row) + "\n" for row in rows)
        assert format_cells(rows, remembered) == table_tabwrite(text, general), rows
        assert remembered == general


def _cut(cell: str) -> str:
    from kubesim.printers.tabwriter import _cut_cell

    return _cut_cell(cell)


# --- what a table never reads (tables.unread: a lister may leave it out) ---------------------


def _with(obj: dict, paths, value) -> dict:
    """A copy of ``obj`` with each dotted path set to ``value`` (None: removed)."""
    import copy

    out = copy.deepcopy(obj)
    for p in paths:
        *parents, last = p.split(".")
        d = out
        for k in parents:
            d = d.setdefault(k, {})
        if value is None:
            d.pop(last, None)
        else:
            d[last] = value
    return out


def _samples(kind: str) -> list[dict]:
    import pathlib

    import yaml

    path = pathlib.Path(__file__).resolve().parents[1] / "testdata" / "kinds" / f"{kind}.yaml"
    built = {
        "Pod": [pod("web", phase="Running", node="n1", pod_ips=("10.0.0.1",), gates=("x",), labels={"a": "b"},
                    statuses=[cs("c0", ready=True, running=True, restarts=2, last_finished=100)],
                    conditions=[cond("Ready"), cond("x")], created=30),
                pod("gone", phase="Pending", deleting=True, init=SIDECARS)],
        "Node": [node("n1", conditions=[cond("Ready")], unschedulable=True,
                      labels={"node-role.kubernetes.io/control-plane": ""},
                      addresses=[{"type": "InternalIP", "address": "10.0.0.1"}])],
    }.get(kind, [])
    return [yaml.safe_load(path.read_text())] + built if path.exists() else built


@pytest.mark.parametrize("kind", ["Pod", "Node", "ConfigMap", "Deployment", "Service", "Event"])
def test_a_table_reads_nothing_it_calls_unread(kind):
    from kubesim.printers.tables import unread

    paths = unread(kind)
    assert paths[0] == "metadata.managedFields"
    for obj in _samples(kind):
        expected = render_table(kind, [obj], CTX, wide=True, show_labels=True, show_namespace=True)
        for value in (None, [], {}, "junk", [{"junk": 1}], {"junk": {"deeper": [1]}}):
            assert render_table(kind, [_with(obj, paths, value)], CTX, wide=True, show_labels=True,
                                show_namespace=True) == expected, (value, obj)


# --- what the store keeps of each object for its table (api.tablefields) ---------------------


def _pods_of_the_tables() -> list[dict]:
    """Every pod of this module's tables and samples."""
    pods = []
    for test in (test_pod_status_ready_restarts, test_pod_with_restartable_init_containers, test_pod_wide):
        for mark in test.pytestmark:
            if mark.name == "parametrize":
                pods.extend(p.values[0] for p in mark.args[1])
    return pods + _samples("Pod")


@pytest.mark.parametrize("wide, show_labels, label_columns", [
    (False, False, ()), (True, False, ()), (False, True, ("app", "a")), (True, True, ())])
def test_a_pod_prints_the_same_row_from_its_projection(wide, show_labels, label_columns):
    import json

    from kubesim.api.tablefields import projector

    project = projector("Pod")
    pods = _pods_of_the_tables()
    assert len(pods) > 30
    for p in pods:
        projected = json.loads(json.dumps(project(p)))  # (as the store keeps it)
        options = dict(wide=wide, show_labels=show_labels, label_columns=label_columns, show_namespace=True)
        assert render_table("Pod", [projected], CTX, **options) == render_table("Pod", [p], CTX, **options), p


@pytest.mark.parametrize("spec, value, want", [
    pytest.param(True, {"a": [1]}, {"a": [1]}, id="True keeps a value whole"),
    pytest.param({"a": True}, {"a": 1, "b": 2}, {"a": 1}, id="a dict keeps its keys"),
    pytest.param({"a": True, "c": True}, {"b": 2}, {}, id="a key the object lacks stays absent"),
    pytest.param({"a": [{}]}, {"a": [{"x": 1}, {"y": 2}]}, {"a": [{}, {}]}, id="a list of empty dicts counts items"),
    pytest.param({"a": [{"x": True}]}, {"a": [{"x": 1, "y": 2}]}, {"a": [{"x": 1}]}, id="each item cut alike"),
    pytest.param({"a": {"x": True}}, {"a": None}, {"a": None}, id="a value of another shape is kept"),
    pytest.param({"a": [{"x": True}]}, {"a": "junk"}, {"a": "junk"}, id="a list that is not one is kept"),
])
def test_project_with(spec, value, want):
    from kubesim.api.tablefields import compile_spec, project_with

    assert project_with(spec, value) == want
    cut = compile_spec(spec)  # (what the store's projector runs: the same cut)
    assert (value if cut is None else cut(value)) == want


def test_the_projector_cuts_every_pod_of_the_tables_as_project_with_does():
    from kubesim.api.tablefields import TABLE_FIELDS, project_with, projector

    project = projector("Pod")
    for p in _pods_of_the_tables():
        assert project(p) == project_with(TABLE_FIELDS["Pod"], p), p
