"""The naming controller's verdicts (apiextensions-apiserver pkg/controller/status/
naming_controller_test.go ``TestSync``'s cases, trimmed) and the cleanup finalizer's steps."""

from __future__ import annotations

import pytest

from kubesim.controllers.base import View
from kubesim.controllers.customresourcedefinition import calculate_names_and_conditions, sync


def crd(name: str, group: str = "example.com", plural: str = "widgets", singular: str = "widget",
        kind: str = "Widget", list_kind: str = "WidgetList", short=(), accepted: dict | None = None,
        conditions=None) -> dict:
    names = {"plural": plural, "singular": singular, "kind": kind, "listKind": list_kind}
    if short:
        names["shortNames"] = list(short)
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": name}, "spec": {"group": group, "names": names},
            "status": {"acceptedNames": accepted or {"kind": "", "plural": ""}, "conditions": conditions}}


ACCEPTED_WIDGETS = {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList",
                    "shortNames": ["wd"]}


@pytest.mark.parametrize("other, want_reason, want_message", [
    pytest.param(None, "NoConflicts", "no conflicts found", id="no other CRD: every name accepted"),
    pytest.param(crd("widgets.other.com", group="other.com", accepted=ACCEPTED_WIDGETS), "NoConflicts",
                 "no conflicts found", id="the same names in another group do not conflict"),
    pytest.param(crd("widgets2.example.com", plural="widgets2", accepted={**ACCEPTED_WIDGETS, "plural": "widgets"}),
                 "ListKindConflict", '"WidgetList" is already in use',
                 id="every conflict is checked; the last one found is the reason"),
    pytest.param(crd("gadgets.example.com", accepted={"plural": "gadgets", "kind": "Gadget",
                                                      "listKind": "GadgetList", "shortNames": ["wd"]}),
                 "ShortNamesConflict", '"wd" is already in use', id="a short name in use"),
    pytest.param(crd("gadgets.example.com", accepted={"plural": "gadgets", "kind": "Gadget",
                                                      "listKind": "GadgetList", "singular": "widget"}),
                 "SingularConflict", '"widget" is already in use', id="a singular in use"),
])
def test_names_accepted(other, want_reason, want_message):
    new = crd("widgets.example.com", short=("wd",))
    crds = [new] + ([other] if other else [])
    names, accepted, established = calculate_names_and_conditions(new, crds)
    assert (accepted["reason"], accepted["message"]) == (want_reason, want_message)
    if want_reason == "NoConflicts":
        assert names == {**ACCEPTED_WIDGETS}
        assert (established["status"], established["reason"]) == ("True", "InitialNamesAccepted")
    else:
        assert (established["status"], established["reason"], established["message"]) == \
            ("False", "NotAccepted", "not all names are accepted")


def test_names_once_accepted_stay_accepted():
    """equalToAcceptedOrFresh: a name this CRD already holds is its own, whoever else wants it."""
    mine = crd("widgets.example.com", accepted=dict(ACCEPTED_WIDGETS, shortNames=None),
               conditions=[{"type": "Established", "status": "True", "reason": "InitialNamesAccepted"}])
    _, accepted, established = calculate_names_and_conditions(mine, [mine])
    assert accepted["reason"] == "NoConflicts" and established["reason"] == "InitialNamesAccepted"


def _terminating(established: bool) -> dict:
    c = crd("widgets.example.com", accepted=ACCEPTED_WIDGETS,
            conditions=[{"type": "Established", "status": "True" if established else "False"}])
    c["metadata"].update(deletionTimestamp="2026-11-22T10:00:00Z",
                         finalizers=["customresourcecleanup.apiextensions.k8s.io"])
    return c


def test_the_finalizer_deletes_the_objects_then_releases_the_crd():
    objs = [{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": n, "namespace": "d"}}
            for n in ("a", "b")]
    changes = sync(View({"CustomResourceDefinition": [_terminating(True)], "Widget": objs}))
    assert [(c.op, c.key[2]) for c in changes] == [("delete", "a"), ("delete", "b"),
                                                   ("update", "widgets.example.com"),
                                                   ("delete", "widgets.example.com")]
    cond = changes[2].obj["status"]["conditions"][-1]
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == \
        ("Terminating", "False", "InstanceDeletionCompleted", "removed all instances")
    assert changes[2].obj["metadata"]["finalizers"] == []


def test_an_object_with_finalizers_keeps_the_crd_terminating():
    held = {"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "a", "namespace": "d", "finalizers": ["x/y"]}}
    changes = sync(View({"CustomResourceDefinition": [_terminating(True)], "Widget": [held]}))
    assert [c.op for c in changes] == ["delete", "update_status"]
    cond = changes[1].obj["status"]["conditions"][-1]
    assert (cond["reason"], cond["message"]) == ("InstanceDeletionInProgress", "CustomResource deletion is in progress")


def test_a_crd_never_established_is_released_at_once():
    changes = sync(View({"CustomResourceDefinition": [_terminating(False)]}))
    assert [c.op for c in changes] == ["update", "delete"]
    cond = changes[0].obj["status"]["conditions"][-1]
    assert (cond["reason"], cond["message"]) == ("NeverEstablished", "resource was never established")
