"""apps/v1 defaulting and validation: Deployment, ReplicaSet, DaemonSet, as the API server does it.

Upstream (v1.35): pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment, SetDefaults_ReplicaSet,
SetDefaults_DaemonSet), pkg/registry/apps/{deployment,replicaset,daemonset}/strategy.go
(PrepareForCreate/PrepareForUpdate: status reset, generation, the DaemonSet's template generation
kept in the ``deprecated.daemonset.template.generation`` annotation), and
pkg/apis/apps/validation/validation.go (ValidateDeployment[Update], ValidateReplicaSet[Update],
ValidateDaemonSet[Update], ValidatePodTemplateSpecForReplicaSet, ValidateDeploymentStrategy,
ValidateRollingUpdateDeployment, ValidatePositiveIntOrPercent, IsNotMoreThan100Percent).

The pod template is defaulted as core/v1's scheme defaults a PodTemplateSpec (SetDefaults_PodSpec,
containers, probes, volumes): not as a Pod — no admission (service account, priority, default
tolerations), no ``enableServiceLinks``, no requests copied from limits.
"""

from __future__ import annotations

import copy
import re

from kubesim.errors import FieldError, forbidden, invalid, required, unsupported

TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
SELECTOR_MISMATCH = "`selector` does not match template `labels`"
IS_NEGATIVE_ERROR = "must be greater than or equal to 0"
_PERCENT_RE = re.compile(r"^[0-9]+%$")


# ---------------------------------------------------------------------------------------------
# defaulting

def default_pod_template(template: dict) -> None:
    """The scheme defaults of a v1.PodTemplateSpec, in place."""
    from kubesim.api.defaults import default_pod_schema

    spec = template.get("spec")
    if not isinstance(spec, dict):
        spec = template["spec"] = {}
    original = copy.deepcopy(spec)
    default_pod_schema({"spec": spec})
    # SetDefaults_Pod only (not PodSpec): undo it for a template
    if original.get("enableServiceLinks") is None:
        spec.pop("enableServiceLinks", None)
    for key in ("containers", "initContainers"):
        for c, orig in zip(spec.get(key) or (), original.get(key) or ()):
            if not isinstance(c, dict) or not isinstance(orig, dict):
                continue
            res, ores = c.get("resources"), orig.get("resources") if isinstance(orig.get("resources"), dict) else {}
            if isinstance(res, dict) and isinstance(res.get("requests"), dict):
                kept = {k: v for k, v in res["requests"].items() if k in (ores.get("requests") or {})}
                if kept or isinstance(ores.get("requests"), dict):
                    res["requests"] = kept
                else:
                    res.pop("requests", None)
            for p, op in zip(c.get("ports") or (), orig.get("ports") or ()):
                if isinstance(p, dict) and isinstance(op, dict) and "hostPort" not in op:
                    p.pop("hostPort", None)
    md = template.get("metadata")
    if isinstance(md, dict):
        md.setdefault("creationTimestamp", None)


def _prepare_for_create(obj: dict, status: dict) -> None:
    md = obj.setdefault("metadata", {})
    md["generation"] = 1
    obj["status"] = status


def default_deployment(obj: dict) -> None:
    """SetDefaults_Deployment + deploymentStrategy.PrepareForCreate."""
    spec = obj.setdefault("spec", {})
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = spec.setdefault("strategy", {})
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        ru = strategy.get("rollingUpdate")
        if not isinstance(ru, dict):
            ru = strategy["rollingUpdate"] = {}
        if ru.get("maxUnavailable") is None:
            ru["maxUnavailable"] = "25%"
        if ru.get("maxSurge") is None:
            ru["maxSurge"] = "25%"
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    if spec.get("progressDeadlineSeconds") is None:
        spec["progressDeadlineSeconds"] = 600
    default_pod_template(spec.setdefault("template", {}))
    _prepare_for_create(obj, {})


def default_replicaset(obj: dict) -> None:
    """SetDefaults_ReplicaSet + rsStrategy.PrepareForCreate."""
    spec = obj.setdefault("spec", {})
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    default_pod_template(spec.setdefault("template", {}))
    _prepare_for_create(obj, {"replicas": 0})


def default_daemonset(obj: dict) -> None:
    """SetDefaults_DaemonSet + daemonSetStrategy.PrepareForCreate (template generation 1)."""
    spec = obj.setdefault("spec", {})
    us = spec.setdefault("updateStrategy", {})
    if not us.get("type"):
        us["type"] = "RollingUpdate"
    if us["type"] == "RollingUpdate":
        ru = us.get("rollingUpdate")
        if not isinstance(ru, dict):
            ru = us["rollingUpdate"] = {}
        if ru.get("maxUnavailable") is None:
            ru["maxUnavailable"] = 1
        if ru.get("maxSurge") is None:
            ru["maxSurge"] = 0
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    default_pod_template(spec.setdefault("template", {}))
    obj.setdefault("metadata", {}).setdefault("annotations", {})[TEMPLATE_GENERATION_ANNOTATION] = "1"
    _prepare_for_create(obj, {"currentNumberScheduled": 0, "numberMisscheduled": 0,
                              "desiredNumberScheduled": 0, "numberReady": 0})


def _semantic(v):
    if isinstance(v, dict):
        return {k: _semantic(x) for k, x in v.items() if x not in (None, "", [], {}) and x is not False}
    if isinstance(v, list):
        return [_semantic(x) for x in v]
    return v


def prepare_for_update(new: dict, old: dict) -> None:
    """The strategies' PrepareForUpdate for an update through the object (not /status): status is
    kept, generation goes up when the spec changes, a DaemonSet's template generation when its
    template does. Defaulting of the new object is the caller's (the same default_* functions,
    minus the status reset: call them on a copy or use ``default_update``)."""
    new["status"] = copy.deepcopy(old.get("status") or {})
    md, omd = new.setdefault("metadata", {}), old.get("metadata") or {}
    gen = int(omd.get("generation") or 1)
    md["generation"] = gen
    if new.get("kind") == "DaemonSet":
        ann = md.setdefault("annotations", {})
        old_tg = (omd.get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION, "1")
        if _semantic((new.get("spec") or {}).get("template")) != _semantic((old.get("spec") or {}).get("template")):
            ann[TEMPLATE_GENERATION_ANNOTATION] = str(int(old_tg) + 1)
            md["generation"] = gen + 1
            return
        ann[TEMPLATE_GENERATION_ANNOTATION] = old_tg
    if _semantic(new.get("spec")) != _semantic(old.get("spec")):
        md["generation"] = gen + 1


def default_update(new: dict, old: dict) -> None:
    """Defaulting + PrepareForUpdate for an update of ``old`` to ``new``."""
    fn = DEFAULTERS.get(new.get("kind", ""))
    if fn is not None:
        fn(new)
    prepare_for_update(new, old)


DEFAULTERS = {"Deployment": default_deployment, "ReplicaSet": default_replicaset, "DaemonSet": default_daemonset}


# ---------------------------------------------------------------------------------------------
# validation

def _go_map(m: dict) -> str:
    from kubesim.api.gofmt import GoValue

    if m is None:
        return GoValue("map[string]string(nil)")
    return GoValue("map[string]string{" + ", ".join(f'"{k}":"{m[k]}"' for k in sorted(m)) + "}")


def _go_label_selector(sel: dict | None):
    """%#v of a *metav1.LabelSelector, as field.Invalid prints it."""
    from kubesim.api.gofmt import GoValue

    if sel is None:
        return GoValue("(*v1.LabelSelector)(nil)")
    ml = sel.get("matchLabels")
    ml_s = "map[string]string(nil)" if not ml else "map[string]string{" + ", ".join(f'"{k}":"{ml[k]}"' for k in sorted(ml)) + "}"
    exprs = sel.get("matchExpressions")
    if not exprs:
        ex_s = "[]v1.LabelSelectorRequirement(nil)"
    else:
        parts = []
        for e in exprs:
            vals = e.get("values")
            vs = "[]string(nil)" if not vals else "[]string{" + ", ".join(f'"{v}"' for v in vals) + "}"
            parts.append(f'v1.LabelSelectorRequirement{{Key:"{e.get("key", "")}", Operator:"{e.get("operator", "")}", Values:{vs}}}')
        ex_s = "[]v1.LabelSelectorRequirement{" + ", ".join(parts) + "}"
    return GoValue(f"v1.LabelSelector{{MatchLabels:{ml_s}, MatchExpressions:{ex_s}}}")


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


def _positive_int_or_percent(v, path: str) -> list[FieldError]:
    if v is None:
        return []
    if isinstance(v, str):
        if not _PERCENT_RE.match(v):
            return [invalid(path, v, "must be an integer or percentage (e.g '5%')")]
        return _nonnegative(int(v[:-1]), path)
    return _nonnegative(v, path)


def _not_more_than_100_percent(v, path: str) -> list[FieldError]:
    value, is_percent = _int_or_percent_value(v)
    if is_percent and value > 100:
        return [invalid(path, v, "must not be greater than 100%")]
    return []


def _validate_selector_and_template(spec: dict, path: str, kind_word: str, check_restart: bool = True,
                                    what: str = "ReplicaSet") -> list[FieldError]:
    from kubesim.api import selectors
    from kubesim.api.meta.validation import validate_annotations, validate_label_selector, validate_labels
    from kubesim.api.core.podspec_validation import validate_pod_spec

    errs: list[FieldError] = []
    sel = spec.get("selector")
    compiled = None
    if sel is None:
        errs.append(required(f"{path}.selector", ""))
    else:
        errs += validate_label_selector(sel, f"{path}.selector")
        if not (sel.get("matchLabels") or sel.get("matchExpressions")):
            errs.append(invalid(f"{path}.selector", _go_label_selector(sel), f"empty selector is invalid for {kind_word}"))
    if sel is not None:
        try:
            compiled = selectors.from_label_selector(sel)
        except ValueError:
            errs.append(invalid(f"{path}.selector", _go_label_selector(sel), "invalid label selector"))
    template = spec.get("template")
    tpath = f"{path}.template"
    if template is None:
        errs.append(required(tpath, ""))
        return errs
    tmeta = template.get("metadata") or {}
    if compiled is not None:
        labels = tmeta.get("labels") or {}
        if not compiled.empty and not compiled.matches(labels):
            errs.append(invalid(f"{tpath}.metadata.labels", _go_map(tmeta.get("labels")), SELECTOR_MISMATCH))
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
    from kubesim.api.meta.validation import name_is_dns_subdomain, validate_object_meta, validate_object_meta_update

    if old is None:
        return validate_object_meta(obj.get("metadata") or {}, True, name_is_dns_subdomain)
    return validate_object_meta_update(obj.get("metadata") or {}, old.get("metadata") or {})


def _immutable_selector(obj: dict, old: dict | None) -> list[FieldError]:
    if old is None:
        return []
    new_sel, old_sel = (obj.get("spec") or {}).get("selector"), (old.get("spec") or {}).get("selector")
    if _semantic(new_sel) != _semantic(old_sel):
        return [invalid("spec.selector", _go_label_selector(new_sel), "field is immutable")]
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
            errs += _positive_int_or_percent(mu, "spec.strategy.rollingUpdate.maxUnavailable")
            errs += _positive_int_or_percent(ms, "spec.strategy.rollingUpdate.maxSurge")
            if _int_or_percent_value(mu)[0] == 0 and _int_or_percent_value(ms)[0] == 0:
                errs.append(invalid("spec.strategy.rollingUpdate.maxUnavailable", mu, "may not be 0 when `maxSurge` is 0"))
            errs += _not_more_than_100_percent(mu, "spec.strategy.rollingUpdate.maxUnavailable")
    else:
        from kubesim.api.gofmt import GoValue

        errs.append(unsupported("spec.strategy", GoValue(_go_strategy(strategy)), ["Recreate", "RollingUpdate"]))
    errs += _nonnegative(spec.get("minReadySeconds"), "spec.minReadySeconds")
    errs += _nonnegative(spec.get("revisionHistoryLimit"), "spec.revisionHistoryLimit")
    pds = spec.get("progressDeadlineSeconds")
    if pds is not None:
        errs += _nonnegative(pds, "spec.progressDeadlineSeconds")
        if int(pds) <= int(spec.get("minReadySeconds") or 0):
            errs.append(invalid("spec.progressDeadlineSeconds", int(pds), "must be greater than minReadySeconds"))
    errs += _immutable_selector(obj, old)
    return errs


def _go_strategy(strategy: dict) -> str:
    return f'apps.DeploymentStrategy{{Type:"{strategy.get("type", "")}", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}}'


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
            errs += _positive_int_or_percent(mu, f"{base}.maxUnavailable")
            errs += _positive_int_or_percent(ms, f"{base}.maxSurge")
            errs += _not_more_than_100_percent(mu, f"{base}.maxUnavailable")
            errs += _not_more_than_100_percent(ms, f"{base}.maxSurge")
            has_u, has_s = _int_or_percent_value(mu)[0] != 0, _int_or_percent_value(ms)[0] != 0
            if has_u and has_s:
                errs.append(invalid(f"{base}.maxSurge", ms, "may not be set when maxUnavailable is non-zero"))
            elif not has_u and not has_s:
                errs.append(required(f"{base}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    elif utype != "OnDelete":
        errs.append(unsupported("spec.updateStrategy", utype, ["OnDelete", "RollingUpdate"]))
    errs += _immutable_selector(obj, old)
    return errs


VALIDATORS = {
    "Deployment": (validate_deployment, validate_deployment),
    "ReplicaSet": (validate_replicaset, validate_replicaset),
    "DaemonSet": (validate_daemonset, validate_daemonset),
}
