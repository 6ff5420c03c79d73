"""The apiextensions-apiserver's own controllers for CustomResourceDefinitions: naming,
establishing and the cleanup finalizer.

Upstream (k8s.io/apiextensions-apiserver pkg/controller):

- status/naming_controller.go (``calculateNamesAndConditions``): the requested names are
  accepted unless another CRD of the group has accepted them (``"x" is already in use``,
  reasons PluralConflict, SingularConflict, ShortNamesConflict, KindConflict,
  ListKindConflict); NamesAccepted True/NoConflicts, and Established False/Installing until…
- establish/establishing_controller.go: …Established True, InitialNamesAccepted, "the initial
  names have been accepted";
- finalizer/crd_finalizer.go: a CRD marked for deletion with the
  ``customresourcecleanup.apiextensions.k8s.io`` finalizer has its objects deleted
  (Terminating True/InstanceDeletionInProgress), then Terminating False/InstanceDeletionCompleted
  "removed all instances", the finalizer removed, and the CRD goes.

``sync(view)`` reads ``view.list("CustomResourceDefinition")`` and, for a terminating CRD, the
objects of its kind (``view.list(kind)``).
"""

from __future__ import annotations

import copy

from kubesim.api.apiextensions.helpers import (
    ESTABLISHED,
    FINALIZER,
    NAMES_ACCEPTED,
    TERMINATING,
    condition,
    set_condition,
)
from kubesim.controllers.base import Change


def _names_in_use(crds: list[dict], group: str, skip: str) -> tuple[set[str], set[str]]:
    resources: set[str] = set()
    kinds: set[str] = set()
    for c in crds:
        if (c.get("spec") or {}).get("group") != group or c["metadata"]["name"] == skip:
            continue
        acc = (c.get("status") or {}).get("acceptedNames") or {}
        resources.update(x for x in (acc.get("plural"), acc.get("singular"), *(acc.get("shortNames") or ())) if x)
        kinds.update(x for x in (acc.get("kind"), acc.get("listKind")) if x)
    return resources, kinds


def calculate_names_and_conditions(crd: dict, crds: list[dict]) -> tuple[dict, dict, dict]:
    """(accepted names, NamesAccepted condition, Established condition)."""
    resources, kinds = _names_in_use(crds, (crd.get("spec") or {}).get("group", ""), crd["metadata"]["name"])
    requested = (crd.get("spec") or {}).get("names") or {}
    accepted = (crd.get("status") or {}).get("acceptedNames") or {}
    new = dict(accepted)
    cond = {"type": NAMES_ACCEPTED, "status": "Unknown", "reason": "", "message": ""}

    def fresh(req: str, acc: str, used: set[str]) -> str | None:
        if req == acc or req not in used:
            return None
        return f'"{req}" is already in use'

    for key, reason, used in (("plural", "PluralConflict", resources), ("singular", "SingularConflict", resources)):
        err = fresh(requested.get(key, ""), accepted.get(key, ""), used)
        if err:
            cond.update(status="False", reason=reason, message=err)
        elif requested.get(key):
            new[key] = requested[key]
    if (requested.get("shortNames") or None) != (accepted.get("shortNames") or None):
        have = set(accepted.get("shortNames") or ())
        errs = [e for s in requested.get("shortNames") or () if s not in have and (e := fresh(s, "", resources))]
        if errs:
            cond.update(status="False", reason="ShortNamesConflict",
                        message=errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")
        elif requested.get("shortNames"):
            new["shortNames"] = list(requested["shortNames"])
        else:
            new.pop("shortNames", None)
    for key, reason in (("kind", "KindConflict"), ("listKind", "ListKindConflict")):
        err = fresh(requested.get(key, ""), accepted.get(key, ""), kinds)
        if err:
            cond.update(status="False", reason=reason, message=err)
        elif requested.get(key):
            new[key] = requested[key]
    if requested.get("categories"):
        new["categories"] = list(requested["categories"])
    else:
        new.pop("categories", None)
    if cond["status"] == "Unknown":
        cond.update(status="True", reason="NoConflicts", message="no conflicts found")
    established = condition(crd, ESTABLISHED) or {"type": ESTABLISHED, "status": "False", "reason": "NotAccepted",
                                                  "message": "not all names are accepted"}
    if established.get("status") != "True" and cond["status"] == "True":
        # the establishing controller follows at once
        established = {"type": ESTABLISHED, "status": "True", "reason": "InitialNamesAccepted",
                       "message": "the initial names have been accepted"}
    return new, cond, established


def _ordered(names: dict) -> dict:
    order = ("categories", "kind", "listKind", "plural", "shortNames", "singular")
    return {k: names[k] for k in order if k in names} | {k: v for k, v in names.items() if k not in order}


def sync(view) -> list[Change]:
    changes: list[Change] = []
    crds = view.list("CustomResourceDefinition")
    now = view.stamp()
    for crd in crds:
        md = crd["metadata"]
        if md.get("deletionTimestamp"):
            if FINALIZER in (md.get("finalizers") or []):
                changes.extend(_finalize(view, crd, now))
            continue
        names, accepted, established = calculate_names_and_conditions(crd, crds)
        new = copy.deepcopy(crd)
        new["status"]["acceptedNames"] = _ordered(names)
        if new["status"].get("conditions") is None:
            new["status"]["conditions"] = []
        set_condition(new, accepted, now)
        set_condition(new, established, now)
        if new["status"] != crd.get("status"):
            changes.append(Change("update_status", new))
    return changes


def _finalize(view, crd: dict, now: str) -> list[Change]:
    """crd_finalizer.go sync: delete every object of the CRD's kind (an object with finalizers
    is only marked), then, once none is left, release the CRD, which goes."""
    from kubesim.api.apiextensions.helpers import is_condition_true

    names = (crd.get("status") or {}).get("acceptedNames") or {}
    kind = names.get("kind") or ((crd.get("spec") or {}).get("names") or {}).get("kind", "")
    group = (crd.get("spec") or {}).get("group", "")
    changes: list[Change] = []
    new = copy.deepcopy(crd)
    if not is_condition_true(crd, ESTABLISHED):
        set_condition(new, {"type": TERMINATING, "status": "False", "reason": "NeverEstablished",
                            "message": "resource was never established"}, now)
    else:
        remaining = 0
        for obj in view.list(kind):
            if (obj.get("apiVersion") or "").split("/")[0] != group:
                continue
            md = obj.get("metadata") or {}
            if md.get("finalizers"):
                remaining += 1
                if md.get("deletionTimestamp"):
                    continue  # already marked: its finalizers' owners are at work
            changes.append(Change("delete", obj, propagation="Background"))
        if remaining:
            set_condition(new, {"type": TERMINATING, "status": "True", "reason": "InstanceDeletionInProgress",
                                "message": "CustomResource deletion is in progress"}, now)
            if new.get("status") != crd.get("status"):
                changes.append(Change("update_status", new))
            return changes
        set_condition(new, {"type": TERMINATING, "status": "False", "reason": "InstanceDeletionCompleted",
                            "message": "removed all instances"}, now)
    new["metadata"]["finalizers"] = [f for f in new["metadata"].get("finalizers") or [] if f != FINALIZER]
    changes.append(Change("update", new))
    if not new["metadata"]["finalizers"]:
        changes.append(Change("delete", new))
    return changes
