"""Jobs: the selector the API server generates, generation 1 and an empty status on create; an
update keeps the status and bumps the generation when the spec changes.

Upstream: pkg/registry/batch/job/strategy.go (``jobStrategy``: ``PrepareForCreate`` with
``generateSelectorIfNeeded``/``generateSelector``, ``PrepareForUpdate``, ``Validate``,
``ValidateUpdate``, ``DefaultGarbageCollectionPolicy``). With ``manualSelector`` false the pod
template gets the labels ``batch.kubernetes.io/controller-uid`` and
``batch.kubernetes.io/job-name`` and their legacy forms ``controller-uid`` and ``job-name`` (each
unless the user set it: a conflicting value is refused by validation) and the selector matches
``batch.kubernetes.io/controller-uid``. The uid is the API server's before PrepareForCreate runs
(``uid_before_prepare``). A Job read back has its template's labels when it has none of its own
(SetDefaults_Job runs on every decode, so on the object as stored): kubesim sets them at once.
The Job controller's ``batch.kubernetes.io/job-tracking`` finalizer is on the pods, not here.
"""

from __future__ import annotations

import copy

from kubesim.api.batch.defaults import set_defaults_job
from kubesim.api.batch.validation import (
    CONTROLLER_UID_LABEL,
    JOB_NAME_LABEL,
    LEGACY_CONTROLLER_UID_LABEL,
    LEGACY_JOB_NAME_LABEL,
)
from kubesim.api.equality import drop_empty
from kubesim.apiserver.registry.rest import Strategy


def generate_selector(job: dict) -> None:
    """generateSelector: the template's identifying labels and the selector on the uid."""
    md = job.setdefault("metadata", {})
    spec = job.setdefault("spec", {})
    template = spec.setdefault("template", {})
    tmeta = template.get("metadata")
    if not isinstance(tmeta, dict):
        tmeta = template["metadata"] = {}
    labels = tmeta.get("labels")
    if not isinstance(labels, dict):
        labels = tmeta["labels"] = {}
    for key in (LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL):
        labels.setdefault(key, md.get("name", ""))
    for key in (LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL):
        labels.setdefault(key, md.get("uid", ""))
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        selector = spec["selector"] = {}
    if not isinstance(selector.get("matchLabels"), dict):
        selector["matchLabels"] = {}
    selector["matchLabels"].setdefault(CONTROLLER_UID_LABEL, md.get("uid", ""))


def labels_from_template(job: dict) -> None:
    """SetDefaults_Job's labels rule, as a read of the stored Job applies it."""
    md = job.setdefault("metadata", {})
    labels = (((job.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels")
    if labels is not None and not md.get("labels"):
        md["labels"] = dict(labels)


class JobStrategy(Strategy):
    kind = "Job"
    propagates_deletion = True
    uid_before_prepare = True

    def set_defaults(self, obj: dict) -> None:
        set_defaults_job(obj)

    def prepare_for_create(self, obj: dict, now: str | None) -> None:
        if not (obj.get("spec") or {}).get("manualSelector"):
            generate_selector(obj)
        obj["status"] = {}
        obj.setdefault("metadata", {})["generation"] = 1
        labels_from_template(obj)

    def prepare_for_update(self, new: dict, old: dict) -> None:
        new["status"] = copy.deepcopy(old.get("status") or {})
        gen = int((old.get("metadata") or {}).get("generation") or 1)
        changed = drop_empty(new.get("spec")) != drop_empty(old.get("spec"))
        new.setdefault("metadata", {})["generation"] = gen + 1 if changed else gen

    def validate(self, obj: dict) -> list:
        from kubesim.api.batch.validation import validate_job

        return validate_job(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.batch.validation import validate_job

        return validate_job(new, old)


strategy = JobStrategy()
