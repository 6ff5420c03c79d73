"""batch/v1 scheme defaulting: Job and CronJob, as the API server decodes them.

Upstream (v1.35): pkg/apis/batch/v1/defaults.go (SetDefaults_Job, SetDefaults_CronJob) and the
generated SetObjectDefaults_Job / SetObjectDefaults_CronJob, which default the pod template as
core/v1 defaults a PodTemplateSpec (``kubesim.api.core.defaults.set_defaults_pod_template``).
JobPodReplacementPolicy is GA in v1.35, so ``podReplacementPolicy`` is always defaulted.
"""

from __future__ import annotations

from kubesim.api.core.defaults import set_defaults_pod_template

MAX_INT32 = 2**31 - 1


def _default_pod_failure_policy(spec: dict) -> None:
    """SetDefaults_PodFailurePolicyOnPodConditionsPattern: a pattern's status is "True"."""
    pfp = spec.get("podFailurePolicy")
    if not isinstance(pfp, dict):
        return
    for rule in pfp.get("rules") or ():
        for pattern in (rule or {}).get("onPodConditions") or ():
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"


def set_defaults_job_spec(spec: dict) -> None:
    """SetDefaults_Job on a Job's spec."""
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6
    if spec.get("completionMode") is None:
        spec["completionMode"] = "NonIndexed"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    if spec.get("podReplacementPolicy") is None:
        spec["podReplacementPolicy"] = "Failed" if spec.get("podFailurePolicy") is not None \
            else "TerminatingOrFailed"
    if spec.get("manualSelector") is None:
        spec["manualSelector"] = False
    _default_pod_failure_policy(spec)
    set_defaults_pod_template(spec.setdefault("template", {}))


def set_defaults_job(obj: dict) -> None:
    """SetObjectDefaults_Job: the spec's defaults; a Job without labels takes its template's."""
    spec = obj.setdefault("spec", {})
    labels = (spec.get("template") or {}).get("metadata", {}).get("labels") \
        if isinstance(spec.get("template"), dict) and isinstance(spec["template"].get("metadata"), dict) else None
    md = obj.setdefault("metadata", {})
    if labels is not None and not md.get("labels"):
        md["labels"] = dict(labels)
    set_defaults_job_spec(spec)


def set_defaults_cronjob(obj: dict) -> None:
    """SetObjectDefaults_CronJob: SetDefaults_CronJob, then only the job template's pod
    template and pod failure policy patterns (SetDefaults_Job is not applied to a template:
    the Job the controller creates from it is defaulted when it is created)."""
    spec = obj.setdefault("spec", {})
    if not spec.get("concurrencyPolicy"):
        spec["concurrencyPolicy"] = "Allow"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    if spec.get("successfulJobsHistoryLimit") is None:
        spec["successfulJobsHistoryLimit"] = 3
    if spec.get("failedJobsHistoryLimit") is None:
        spec["failedJobsHistoryLimit"] = 1
    jspec = spec.setdefault("jobTemplate", {}).setdefault("spec", {})
    _default_pod_failure_policy(jspec)
    set_defaults_pod_template(jspec.setdefault("template", {}))
