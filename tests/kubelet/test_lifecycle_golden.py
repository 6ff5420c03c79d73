"""The pod lifecycle as golden stages (kwok's ``testdata/<case>.input.yaml`` /
``.output.yaml`` pairs): each input is a pod (and optionally a node) plus the simulated times at
which the kubelet syncs it, with deletes and annotation changes in between (and, with ``images``,
the images its node has: pulls take time); the output is what
``kubectl get pods`` would show, the phase, conditions, container states and events at every
step, and the final stored status.

Regenerate with ``KUBESIM_UPDATE_GOLDEN=1 python -m pytest tests/kubelet/test_lifecycle_golden.py``;
a missing or different golden file fails, it is never rewritten silently.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
import yaml

from kubesim.apiserver.registry.core.pod import check_graceful_delete
from kubesim.kubelet.pod_workers import sync_pod
from kubesim.printers.core import pod_ready_status_restarts
from kubesim.testing.kubelet import T0, Recorder, node as make_node

TESTDATA = Path(__file__).parent / "testdata"
UPDATE = os.environ.get("KUBESIM_UPDATE_GOLDEN") == "1"
CASES = sorted(p.name[: -len(".input.yaml")] for p in TESTDATA.glob("*.input.yaml"))


def _off(t) -> str:
    if t is None:
        return "never"
    d = t - T0
    return f"{d:g}s"


def _cond(c: dict) -> str:
    text = f"{c['type']}={c['status']}"
    if c.get("reason"):
        text += f" {c['reason']}"
    if c.get("message"):
        text += f" ({c['message']})"
    from kubesim.clock import parse_timestamp

    ltt = parse_timestamp(c.get("lastTransitionTime"))
    return text + (f" since {_off(ltt)}" if ltt is not None else "")


def _state(cs: dict) -> str:
    st = cs.get("state") or {}
    if "running" in st:
        text = "running"
    elif "terminated" in st:
        t = st["terminated"]
        text = f"terminated {t.get('reason')} exit {t.get('exitCode')}"
    else:
        w = st.get("waiting") or {}
        text = f"waiting {w.get('reason')}" + (f": {w['message']}" if w.get("message") else "")
    last = (cs.get("lastState") or {}).get("terminated")
    if last:
        text += f"; last {last.get('reason')} exit {last.get('exitCode')}"
    return f"{text}; restarts {cs.get('restartCount')}; ready {str(cs.get('ready')).lower()}; started {str(cs.get('started')).lower()}"


def _event(e: dict) -> str:
    when = _off(e["last"]) if e["count"] == 1 else f"{_off(e['first'])}..{_off(e['last'])} x{e['count']}"
    path = f" {e['fieldPath']}:" if e["fieldPath"] else ""
    return f"{when} {e['type']} {e['reason']}{path} {e['message']}"


def run_case(case: dict) -> dict:
    node = case.get("node") or make_node()
    pod = copy.deepcopy(case["pod"])
    rec = Recorder()
    memory: dict = {}
    images = None
    if "images" in case:  # the node's images (none listed: an empty node); without: every image present
        from kubesim.kubelet.image_service import NodeImages

        images = NodeImages(node["metadata"]["name"])
        for image in case["images"] or ():
            images.add(image, 0.0)
    steps = []
    removed = False
    for step in case["steps"]:
        now = T0 + float(step["at"])
        if step.get("annotate"):
            pod["metadata"].setdefault("annotations", {}).update(step["annotate"])
        out = {"at": f"{float(step['at']):g}s"}
        if "delete" in step:
            grace = (step["delete"] or {}).get("grace")
            out["deleteGrace"] = check_graceful_delete(pod, grace, now)
        result = sync_pod(pod, node, [], now, rec, memory=memory, images=images)
        ready, status, restarts = pod_ready_status_restarts(pod, now)
        out["get"] = f"{ready} {status} {restarts}"
        out["phase"] = pod["status"].get("phase")
        out["next"] = _off(result.next_wake)
        if result.remove:
            out["removed"] = True
        out["conditions"] = [_cond(c) for c in pod["status"].get("conditions") or []]
        out["containers"] = {cs["name"]: _state(cs) for cs in (pod["status"].get("initContainerStatuses") or [])
                             + (pod["status"].get("containerStatuses") or [])}
        out["events"] = [_event(e) for e in rec.take()]
        steps.append(out)
        if result.remove:
            removed = True
            break
    return {"steps": steps, "removed": removed, "status": pod["status"]}


@pytest.mark.parametrize("case", CASES, ids=[c.replace("-", " ") for c in CASES])
def test_lifecycle_stage(case: str):
    spec = yaml.safe_load((TESTDATA / f"{case}.input.yaml").read_text())
    got = run_case(spec)
    golden = TESTDATA / f"{case}.output.yaml"
    text = yaml.safe_dump(got, sort_keys=False, width=200, allow_unicode=True)
    if UPDATE:
        golden.write_text(text)
    if not golden.exists():
        pytest.fail(f"{golden.name} is missing: run KUBESIM_UPDATE_GOLDEN=1 python -m pytest {__file__}")
    assert text == golden.read_text(), f"{case}: output differs from {golden.name} (KUBESIM_UPDATE_GOLDEN=1 to accept)"


def test_every_input_has_a_golden_output():
    inputs = {p.name[: -len(".input.yaml")] for p in TESTDATA.glob("*.input.yaml")}
    outputs = {p.name[: -len(".output.yaml")] for p in TESTDATA.glob("*.output.yaml")}
    assert inputs == outputs
