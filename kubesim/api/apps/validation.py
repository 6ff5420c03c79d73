"""apps/v1 validation: Deployment, ReplicaSet, DaemonSet, as their registry strategies run it.

Upstream (v1.35): pkg/apis/apps/validation/validation.go (ValidateDeployment[Update],
ValidateReplicaSet[Update], ValidateDaemonSet[Update], ValidatePodTemplateSpecForReplicaSet,
ValidateDeploymentStrategy, ValidateRollingUpdateDeployment, ValidatePositiveIntOrPercent,
IsNotMoreThan100Percent, ValidateControllerRevision[Update]). In apps/v1 a workload's selector is
immutable.
"""

from __future__ import annotations

import re

from kubesim.api import selectors
from kubesim.api.core.podspec_validation import validate_pod_spec
from kubesim.api.equality import drop_empty
from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    IS_NEGATIVE_ERROR,
    name_is_dns_subdomain,
    validate_annotations,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, forbidden, invalid, required, unsupported

SELECTOR_MISMATCH = "`selector` does not match template `labels`"
_PERCENT_RE = re.compile(r"^[0-9]+%$")


def _nonnegative(value, path: str) -> list[FieldError]:
    if value is not None and int(value) < 0:
        return [invalid(path, int(value), IS_NEGATIVE_ERROR)]
    return []


def _int_or_percent_value(v) -> tuple[int, bool]:
    if isinstance(v, str):
        if _PERCENT_RE.match(v):
            return int(v[:-1]), True
        return -1, False
    return (int(v) if v is not None else 0), False


def validate_positive_int_or_percent(v, path: str) -> list[FieldError]:
    if v is None:
        return []
    if isinstance(v, str):
        if not _PERCENT_RE.match(v):
            return [invalid(path, v, "must be an integer or percentage (e.g '5%')")]
        return _nonnegative(int(v[:-1]), path)
    return _nonnegative(v, path)


def is_not_more_than_100_percent(v, path: str) -> list[FieldError]:
    value, is_percent = _int_or_percent_value(v)
    if is_percent and value > 100:
        return [invalid(path, v, "must not be greater than 100%")]
    return []


def _validate_selector_and_template(spec: dict, path: str, kind_word: str, check_restart: bool = True,
                                    what: str = "ReplicaSet") -> list[FieldError]:
    errs: list[FieldError] = []
    sel = spec.get("selector")
    compiled = None
    if sel is None:
        errs.append(required(f"{path}.selector", ""))
    else:
        errs += validate_label_selector(sel, f"{path}.selector")
        if not (sel.get("matchLabels") or sel.get("matchExpressions")):
            errs.append(invalid(f"{path}.selector", GoJSON(sel, "*LabelSelector"), f"empty selector is invalid for {kind_word}"))
    if sel is not None:
        try:
            compiled = selectors.from_label_selector(sel)
        except ValueError:
            errs.append(invalid(f"{path}.selector", GoJSON(sel, "*LabelSelector"), "invalid label selector"))
    template = spec.get("template")
    tpath = f"{path}.template"
    if template is None:
        errs.append(required(tpath, ""))
        return errs
    tmeta = template.get("metadata") or {}
    if compiled is not None:
        labels = tmeta.get("labels") or {}
        if not compiled.empty and not compiled.matches(labels):
            errs.append(invalid(f"{tpath}.metadata.labels", GoJSON(tmeta.get("labels")), SELECTOR_MISMATCH))
    errs += validate_labels(tmeta.get("labels"), f"{tpath}.metadata.labels")
    errs += validate_annotations(tmeta.get("annotations"), f"{tpath}.metadata.annotations")
    tspec = template.get("spec") or {}
    errs += validate_pod_spec(tspec, tmeta, f"{tpath}.spec")
    if check_restart and tspec.get("restartPolicy") and tspec.get("restartPolicy") != "Always":
        errs.append(unsupported(f"{tpath}.spec.restartPolicy", tspec.get("restartPolicy"), ["Always"]))
    if tspec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(f"{tpath}.spec.activeDeadlineSeconds", f"activeDeadlineSeconds in {what} is not Supported"))
    return errs


def _validate_meta(obj: dict, old: dict | None) -> list[FieldError]:
    if old is None:
        return validate_object_meta(obj.get("metadata") or {}, True, name_is_dns_subdomain)
    return validate_object_meta_update(obj.get("metadata") or {}, old.get("metadata") or {})


def _immutable_selector(obj: dict, old: dict | None) -> list[FieldError]:
    if old is None:
        return []
    new_sel, old_sel = (obj.get("spec") or {}).get("selector"), (old.get("spec") or {}).get("selector")
    if drop_empty(new_sel) != drop_empty(old_sel):
        return [invalid("spec.selector", GoJSON(new_sel, "*LabelSelector"), "field is immutable")]
    return []


def validate_deployment(obj: dict, old: dict | None = None) -> list[FieldError]:
    """ValidateDeployment / ValidateDeploymentUpdate (apps/v1: selector immutable)."""
    spec = obj.get("spec") or {}
    errs = _validate_meta(obj, old)
    errs += _nonnegative(spec.get("replicas"), "spec.replicas")
    errs += _validate_selector_and_template(spec, "spec", "deployment", what="ReplicaSet")
    strategy = spec.get("strategy") or {}
    stype = strategy.get("type", "")
    if stype == "Recreate":
        if strategy.get("rollingUpdate") is not None:
            errs.append(forbidden("spec.strategy.rollingUpdate",
                                  "may not be specified when strategy `type` is 'Recreate'"))
    elif stype == "RollingUpdate":
        ru = strategy.get("rollingUpdate")
        if ru is None:
            errs.append(required("spec.strategy.rollingUpdate", "this should be defaulted and never be nil"))
        else:
            mu, ms = ru.get("maxUnavailable"), ru.get("maxSurge")
            errs += validate_positive_int_or_percent(mu, "spec.strategy.rollingUpdate.maxUnavailable")
            errs += validate_positive_int_or_percent(ms, "spec.strategy.rollingUpdate.maxSurge")
            if _int_or_percent_value(mu)[0] == 0 and _int_or_percent_value(ms)[0] == 0:
                errs.append(invalid("spec.strategy.rollingUpdate.maxUnavailable", mu, "may not be 0 when `maxSurge` is 0"))
            errs += is_not_more_than_100_percent(mu, "spec.strategy.rollingUpdate.maxUnavailable")
    else:
        errs.append(unsupported("spec.strategy", GoJSON(strategy, "DeploymentStrategy"), ["Recreate", "RollingUpdate"]))
    errs += _nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds")
    errs += _nonnegative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")
    pds = spec.get("progressDeadlineSeconds")
    if pds is not None:
        errs += _nonnegative(pds, "spec.progressDeadlineSeconds")
        if int(pds) <= int(spec.get("minReadySeconds") or 0):
            errs.append(invalid("spec.progressDeadlineSeconds", int(pds), "must be greater than minReadySeconds"))
    errs += _immutable_selector(obj, old)
    return errs


def validate_replicaset(obj: dict, old: dict | None = None) -> list[FieldError]:
    """ValidateReplicaSet / ValidateReplicaSetUpdate."""
    spec = obj.get("spec") or {}
    errs = _validate_meta(obj, old)
    errs += _nonnegative(spec.get("replicas"), "spec.replicas")
    errs += _nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds")
    errs += _validate_selector_and_template(spec, "spec", "deployment", what="ReplicaSet")
    errs += _immutable_selector(obj, old)
    return errs


def validate_daemonset(obj: dict, old: dict | None = None) -> list[FieldError]:
    """ValidateDaemonSet / ValidateDaemonSetUpdate."""
    spec = obj.get("spec") or {}
    errs = _validate_meta(obj, old)
    errs += _validate_selector_and_template(spec, "spec", "daemonset", what="DaemonSet")
    errs += _nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds")
    errs += _nonnegative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")
    us = spec.get("updateStrategy") or {}
    utype = us.get("type", "")
    if utype == "RollingUpdate":
        ru = us.get("rollingUpdate")
        if ru is None:
            errs.append(required("spec.updateStrategy.rollingUpdate", ""))
        else:
            mu, ms = ru.get("maxUnavailable"), ru.get("maxSurge")
            base = "spec.updateStrategy.rollingUpdate"
            errs += validate_positive_int_or_percent(mu, f"{base}.maxUnavailable")
            errs += validate_positive_int_or_percent(ms, f"{base}.maxSurge")
            errs += is_not_more_than_100_percent(mu, f"{base}.maxUnavailable")
            errs += is_not_more_than_100_percent(ms, f"{base}.maxSurge")
            has_u, has_s = _int_or_percent_value(mu)[0] != 0, _int_or_percent_value(ms)[0] != 0
            if has_u and has_s:
                errs.append(invalid(f"{base}.maxSurge", ms, "may not be set when maxUnavailable is non-zero"))
            elif not has_u and not has_s:
                errs.append(required(f"{base}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    elif utype != "OnDelete":
        errs.append(unsupported("spec.updateStrategy", GoJSON(us, "DaemonSetUpdateStrategy"), ["RollingUpdate", "OnDelete"]))
    errs += _immutable_selector(obj, old)
    return errs


def validate_controller_revision(cr: dict) -> list[FieldError]:
    """ValidateControllerRevisionCreate: the name, a non-negative revision, the data."""
    errs = validate_object_meta(cr.get("metadata") or {}, True, name_is_dns_subdomain)
    errs.extend(_nonnegative(cr.get("revision"), "revision"))
    if cr.get("data") is None:
        errs.append(required("data", "data is mandatory"))
    return errs


def validate_controller_revision_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateControllerRevisionUpdate: the data is immutable (shown as the JSON it holds)."""
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    if new.get("data") != old.get("data"):
        errs.append(invalid("data", GoJSON(new.get("data")), "field is immutable"))
    return errs + _nonnegative(new.get("revision"), "revision")


# ---------------------------------------------------------------------------------------------
# StatefulSet (ValidateStatefulSet, ValidateStatefulSetSpec, ValidateStatefulSetUpdate,
# ValidatePodTemplateSpecForStatefulSet, validateRollingUpdateStatefulSet,
# ValidatePersistentVolumeClaimRetentionPolicy, validateVolumeClaimTemplates)

STATEFULSET_SPEC_FORBIDDEN = ("updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                              "'template', 'updateStrategy', 'revisionHistoryLimit', "
                              "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")
# what ValidateStatefulSetUpdate lets change (the rest of the spec must stay as it was)
STATEFULSET_MUTABLE = ("replicas", "template", "updateStrategy", "minReadySeconds", "ordinals",
                       "revisionHistoryLimit", "persistentVolumeClaimRetentionPolicy")
_RETENTION = ["Retain", "Delete"]


def _validate_rolling_update_statefulset(ru: dict, path: str) -> list[FieldError]:
    errs = _nonnegative(ru.get("partition") or 0, f"{path}.partition")
    mu = ru.get("maxUnavailable")
    if mu is not None:
        errs += validate_positive_int_or_percent(mu, f"{path}.maxUnavailable")
        if _int_or_percent_value(mu)[0] == 0:
            errs.append(invalid(f"{path}.maxUnavailable", mu, "cannot be 0"))
        errs += is_not_more_than_100_percent(mu, f"{path}.maxUnavailable")
    return errs


def _template_to_validate(spec: dict) -> dict:
    """The template as ValidateStatefulSetSpec checks it: hostname and subdomain cleared (the
    controller sets them), and a claim volume for each volumeClaimTemplate."""
    template = spec.get("template") or {}
    tspec = dict(template.get("spec") or {})
    tspec.pop("hostname", None)
    tspec.pop("subdomain", None)
    claims = [c for c in spec.get("volumeClaimTemplates") or () if isinstance(c, dict)]
    if claims:
        names = [(c.get("metadata") or {}).get("name", "") for c in claims]
        volumes = [{"name": n, "persistentVolumeClaim": {"claimName": n}} for n in dict.fromkeys(names)]
        volumes += [v for v in tspec.get("volumes") or () if not isinstance(v, dict) or v.get("name") not in names]
        tspec["volumes"] = volumes
    return {**template, "spec": tspec}


def validate_statefulset_spec(spec: dict, allow_invalid_service_name: bool = False,
                              skip_template: bool = False, skip_claims: bool = False) -> list[FieldError]:
    """ValidateStatefulSetSpec."""
    from kubesim.api.core.persistentvolume_validation import validate_pvc_spec
    from kubesim.api.meta.validation import is_dns1123_label

    errs: list[FieldError] = []
    pmp = spec.get("podManagementPolicy") or ""
    if not pmp:
        errs.append(required("spec.podManagementPolicy", ""))
    elif pmp not in ("OrderedReady", "Parallel"):
        errs.append(invalid("spec.podManagementPolicy", pmp, "must be 'OrderedReady' or 'Parallel'"))
    us = spec.get("updateStrategy") or {}
    utype = us.get("type") or ""
    if not utype:
        errs.append(required("spec.updateStrategy", ""))
    elif utype == "OnDelete":
        if us.get("rollingUpdate") is not None:
            errs.append(invalid("spec.updateStrategy.rollingUpdate",
                                GoJSON(us["rollingUpdate"], "*RollingUpdateStatefulSetStrategy"),
                                "only allowed for updateStrategy 'RollingUpdate'"))
    elif utype == "RollingUpdate":
        if isinstance(us.get("rollingUpdate"), dict):
            errs += _validate_rolling_update_statefulset(us["rollingUpdate"], "spec.updateStrategy.rollingUpdate")
    else:
        errs.append(invalid("spec.updateStrategy", GoJSON(us, "StatefulSetUpdateStrategy"),
                            "must be 'RollingUpdate' or 'OnDelete'"))
    policy = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(policy, dict):
        for k in ("whenDeleted", "whenScaled"):
            if (policy.get(k) or "") not in _RETENTION:
                errs.append(unsupported(f"spec.persistentVolumeClaimRetentionPolicy.{k}", policy.get(k) or "", _RETENTION))
    if not skip_claims:
        for i, claim in enumerate(spec.get("volumeClaimTemplates") or ()):
            errs += validate_pvc_spec((claim or {}).get("spec") or {}, f"spec.volumeClaimTemplates[{i}].spec")
    errs += _nonnegative(spec.get("replicas") or 0, "spec.replicas")
    errs += _nonnegative(spec.get("minReadySeconds") or 0, "spec.minReadySeconds")
    if isinstance(spec.get("ordinals"), dict):
        errs += _nonnegative(spec["ordinals"].get("start") or 0, "spec.ordinals.start")
    service = spec.get("serviceName") or ""
    if service and not allow_invalid_service_name:
        errs.extend(invalid("spec.serviceName", service, m) for m in is_dns1123_label(service))
    sel = spec.get("selector")
    compiled = None
    if sel is None:
        errs.append(required("spec.selector", ""))
    else:
        errs += validate_label_selector(sel, "spec.selector")
        if not (sel.get("matchLabels") or sel.get("matchExpressions")):
            errs.append(invalid("spec.selector", GoJSON(sel, "*LabelSelector"), "empty selector is invalid for statefulset"))
    try:
        compiled = selectors.from_label_selector(sel)
    except ValueError:
        errs.append(invalid("spec.selector", GoJSON(sel, "*LabelSelector"), ""))
    if compiled is not None:
        template = _template_to_validate(spec)
        tmeta = template.get("metadata") or {}
        if not compiled.empty and not compiled.matches(tmeta.get("labels") or {}):
            errs.append(invalid("spec.template.metadata.labels", GoJSON(tmeta.get("labels")), SELECTOR_MISMATCH))
        if not skip_template:
            errs += validate_labels(tmeta.get("labels"), "spec.template.metadata.labels")
            errs += validate_annotations(tmeta.get("annotations"), "spec.template.metadata.annotations")
            errs += validate_pod_spec(template.get("spec") or {}, tmeta, "spec.template.spec")
    tspec = (spec.get("template") or {}).get("spec") or {}
    if (tspec.get("restartPolicy") or "") != "Always":
        errs.append(unsupported("spec.template.spec.restartPolicy", tspec.get("restartPolicy") or "", ["Always"]))
    if tspec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in StatefulSet is not Supported"))
    return errs


def validate_statefulset(obj: dict, old: dict | None = None) -> list[FieldError]:
    """ValidateStatefulSet (a DNS-label name) / ValidateStatefulSetUpdate (only the fields of
    STATEFULSET_MUTABLE may change; an old spec that no longer validates skips the template)."""
    from kubesim.api.meta.validation import name_is_dns_label

    spec = obj.get("spec") or {}
    if old is None:
        errs = validate_object_meta(obj.get("metadata") or {}, True, name_is_dns_label)
        return errs + validate_statefulset_spec(spec)
    errs = validate_object_meta_update(obj.get("metadata") or {}, old.get("metadata") or {})
    old_spec = old.get("spec") or {}
    skip_template = bool(validate_statefulset_spec(old_spec, True, False, True))
    errs += validate_statefulset_spec(spec, True, skip_template, True)
    frozen_new = {k: v for k, v in spec.items() if k not in STATEFULSET_MUTABLE}
    frozen_old = {k: v for k, v in old_spec.items() if k not in STATEFULSET_MUTABLE}
    if drop_empty(frozen_new) != drop_empty(frozen_old):
        errs.append(forbidden("spec", STATEFULSET_SPEC_FORBIDDEN))
    return errs
