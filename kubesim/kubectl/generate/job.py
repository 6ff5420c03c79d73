"""``kubectl create job`` and ``kubectl create cronjob``: the generated objects, as dicts in Go
struct field order with ``omitempty`` fields left out.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/create_job.go (createJob,
createJobFromCronJob: the ``cronjob.kubernetes.io/instantiate: manual`` annotation, the job
template's labels, annotations and spec, a controller reference to the CronJob) and
create_cronjob.go (createCronJob: restart policy OnFailure unless ``--restart`` says otherwise).
The namespace is written only when ``-n`` was given (EnforceNamespace).
"""

from __future__ import annotations

import copy

from kubesim.kubectl.generate.objects import metadata


def _container(name: str, image: str, command: list[str] | None) -> dict:
    c: dict = {"name": name}
    if image:
        c["image"] = image
    if command:
        c["command"] = list(command)
    c["resources"] = {}
    return c


def job(name: str, image: str, command: list[str] | None = None, namespace: str | None = None) -> dict:
    """createJob."""
    return {
        "kind": "Job",
        "apiVersion": "batch/v1",
        "metadata": metadata(name, namespace),
        "spec": {"template": {"metadata": {}, "spec": {"containers": [_container(name, image, command)],
                                                       "restartPolicy": "Never"}}},
        "status": {},
    }


def job_from_cronjob(name: str, cronjob: dict, namespace: str | None = None) -> dict:
    """createJobFromCronJob: the CronJob's job template as a Job the CronJob controls."""
    template = (cronjob.get("spec") or {}).get("jobTemplate") or {}
    tmeta = template.get("metadata") or {}
    annotations = {"cronjob.kubernetes.io/instantiate": "manual"}
    annotations.update(tmeta.get("annotations") or {})
    cmeta = cronjob.get("metadata") or {}
    md = metadata(name, namespace, dict(tmeta["labels"]) if tmeta.get("labels") else None,
                  dict(sorted(annotations.items())))
    md["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "CronJob", "name": cmeta.get("name", ""),
                              "uid": cmeta.get("uid", ""), "controller": True}]
    return {"kind": "Job", "apiVersion": "batch/v1", "metadata": md,
            "spec": copy.deepcopy(template.get("spec") or {}), "status": {}}


def cronjob(name: str, image: str, schedule: str, restart: str, command: list[str] | None = None,
            namespace: str | None = None) -> dict:
    """createCronJob."""
    pod_spec: dict = {"containers": [_container(name, image, command)]}
    if restart:
        pod_spec["restartPolicy"] = restart
    spec: dict = {}
    if schedule:
        spec["schedule"] = schedule
    spec["jobTemplate"] = {"metadata": {"name": name}, "spec": {"template": {"metadata": {}, "spec": pod_spec}}}
    return {"kind": "CronJob", "apiVersion": "batch/v1", "metadata": metadata(name, namespace), "spec": spec,
            "status": {}}
