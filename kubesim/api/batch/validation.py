"""batch/v1 validation: Job and CronJob, as their registry strategies run it.

Upstream (v1.35): pkg/apis/batch/validation/validation.go (ValidateJob, validateGeneratedSelector,
ValidateJobSpec, validateJobSpec, validatePodFailurePolicy[Rule[OnExitCodes|OnPodConditions]],
validatePodReplacementPolicy, validateSuccessPolicy[Rule], validateIndexesFormat,
parseIndexInterval, ValidateJobUpdate, ValidateJobSpecUpdate, validatePodTemplateUpdate,
validateCompletions, ValidateCronJobCreate, ValidateCronJobUpdate, validateCronJobSpec,
validateConcurrencyPolicy, validateScheduleFormat, validateTimeZone, ValidateJobTemplateSpec) and
the options pkg/registry/batch/job/strategy.go passes (validationOptionsForJob:
RequirePrefixedLabels; the scheduling directives of a suspended Job that never started are
mutable). The pod template is checked as core's ValidatePodTemplateSpec checks it.
"""

from __future__ import annotations

import re

from kubesim.api import selectors
from kubesim.api.core.podspec_validation import validate_pod_spec
from kubesim.api.equality import drop_empty
from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    FIELD_IMMUTABLE_ERROR,
    IS_NEGATIVE_ERROR,
    is_dns1123_label,
    name_is_dns_subdomain,
    too_long,
    validate_annotations,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    required,
    unsupported,
)

LEGACY_JOB_NAME_LABEL = "job-name"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"

MAX_PARALLELISM_FOR_INDEXED_JOB = 100000
MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000
COMPLETIONS_SOFT_LIMIT = 100_000
PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
MAX_POD_FAILURE_POLICY_RULES = 20
MAX_ON_EXIT_CODES_VALUES = 255
MAX_ON_POD_CONDITIONS_PATTERNS = 20
MAX_MANAGED_BY_LENGTH = 63
MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024
MAX_SUCCESS_POLICY_RULES = 20

POD_FAILURE_POLICY_ACTIONS = ["Count", "FailIndex", "FailJob", "Ignore"]
ON_EXIT_CODES_OPERATORS = ["In", "NotIn"]
CONDITION_STATUSES = ["False", "True", "Unknown"]
POD_REPLACEMENT_POLICIES = ["Failed", "TerminatingOrFailed"]
CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"]


def _nonnegative(value, path: str) -> list[FieldError]:
    if value is not None and isinstance(value, int) and value < 0:
        return [invalid(path, value, IS_NEGATIVE_ERROR)]
    return []


def too_many(path: str, actual: int, limit: int) -> FieldError:
    """field.TooMany."""
    return FieldError(path, "Too many", f"must have at most {limit} items", actual, True)


def _go_list(values) -> GoJSON:
    return GoJSON(list(values) if values is not None else None)


# ---------------------------------------------------------------------------------------------
# Job


def validate_generated_selector(job: dict, validate_batch_labels: bool) -> list[FieldError]:
    """validateGeneratedSelector."""
    spec = job.get("spec") or {}
    md = job.get("metadata") or {}
    if spec.get("manualSelector") is True or spec.get("selector") is None:
        return []
    errs: list[FieldError] = []
    uid, name = md.get("uid") or "", md.get("name") or ""
    if not uid:
        errs.append(required("metadata.uid", ""))
    tmeta = (spec.get("template") or {}).get("metadata") or {}
    path = "spec.template.metadata"
    errs += validate_has_label(tmeta, path, LEGACY_CONTROLLER_UID_LABEL, uid)
    errs += validate_has_label(tmeta, path, LEGACY_JOB_NAME_LABEL, name)
    expected = {}
    if validate_batch_labels:
        errs += validate_has_label(tmeta, path, CONTROLLER_UID_LABEL, uid)
        errs += validate_has_label(tmeta, path, JOB_NAME_LABEL, name)
        expected[CONTROLLER_UID_LABEL] = uid
        expected[JOB_NAME_LABEL] = name
    expected[LEGACY_CONTROLLER_UID_LABEL] = uid
    expected[LEGACY_JOB_NAME_LABEL] = name
    try:
        sel = selectors.from_label_selector(spec["selector"])
    except ValueError:
        sel = None
    if sel is not None and not sel.matches(expected):
        errs.append(invalid("spec.selector", GoJSON(spec["selector"], "*LabelSelector"), "`selector` not auto-generated"))
    return errs


def validate_has_label(meta: dict, path: str, key: str, expected: str) -> list[FieldError]:
    """core validation's ValidateHasLabel."""
    labels = meta.get("labels") or {}
    if key not in labels:
        return [required(f"{path}.labels[{key}]", f"must be '{expected}'")]
    if labels[key] != expected:
        return [invalid(f"{path}.labels[{key}]", GoJSON(labels), f"must be '{expected}'")]
    return []


def validate_job(job: dict, old: dict | None = None) -> list[FieldError]:
    """The strategy's Validate (``old`` None) or ValidateUpdate: ValidateJob, then
    ValidateJobUpdate."""
    md = job.get("metadata") or {}
    spec = job.get("spec") or {}
    require_prefixed = True
    if old is not None:
        olabels = (((old.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}
        require_prefixed = JOB_NAME_LABEL in olabels and CONTROLLER_UID_LABEL in olabels
    errs = validate_object_meta(md, True, name_is_dns_subdomain)
    errs += validate_generated_selector(job, require_prefixed)
    errs += validate_job_spec(spec, "spec")
    completions = spec.get("completions")
    if spec.get("completionMode") == "Indexed" and isinstance(completions, int) and completions > 0:
        hostname = f"{md.get('name', '')}-{completions - 1}"
        if is_dns1123_label(hostname):
            errs.append(invalid("metadata.name", md.get("name", ""),
                                f"will not able to create pod with invalid DNS label: {hostname}"))
    if old is not None:
        errs += validate_job_update(job, old)
    return errs


def validate_job_spec(spec: dict, path: str) -> list[FieldError]:
    """ValidateJobSpec: validateJobSpec, the selector, and the template matching it."""
    errs = _validate_job_spec(spec, path)
    sel = spec.get("selector")
    if sel is None:
        errs.append(required(f"{path}.selector", ""))
    else:
        errs += validate_label_selector(sel, f"{path}.selector")
    try:
        compiled = selectors.from_label_selector(sel)
    except ValueError:
        compiled = None
    if compiled is not None:
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
        if not compiled.matches(labels or {}):
            errs.append(invalid(f"{path}.template.metadata.labels", GoJSON(labels),
                                "`selector` does not match template `labels`"))
    return errs


def _validate_job_spec(spec: dict, path: str) -> list[FieldError]:
    """validateJobSpec (a Job's spec, or a CronJob's job template's)."""
    errs: list[FieldError] = []
    for fld in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                "backoffLimitPerIndex"):
        errs += _nonnegative(spec.get(fld), f"{path}.{fld}")
    mfi, blpi = spec.get("maxFailedIndexes"), spec.get("backoffLimitPerIndex")
    if mfi is not None:
        errs += _nonnegative(mfi, f"{path}.maxFailedIndexes")
        if blpi is None:
            errs.append(required(f"{path}.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    managed_by = spec.get("managedBy")
    if managed_by is not None:
        errs += _is_domain_prefixed_path(f"{path}.managedBy", managed_by)
        if len(managed_by) > MAX_MANAGED_BY_LENGTH:
            errs.append(too_long(f"{path}.managedBy", MAX_MANAGED_BY_LENGTH))
    mode = spec.get("completionMode")
    completions, parallelism = spec.get("completions"), spec.get("parallelism")
    if mode is not None:
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(unsupported(f"{path}.completionMode", mode, ["NonIndexed", "Indexed"]))
        if mode == "Indexed":
            if completions is None:
                errs.append(required(f"{path}.completions", "when completion mode is Indexed"))
            if parallelism is not None and parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB:
                errs.append(invalid(f"{path}.parallelism", parallelism,
                                    f"must be less than or equal to {MAX_PARALLELISM_FOR_INDEXED_JOB} "
                                    "when completion mode is Indexed"))
            if completions is not None and mfi is not None and mfi > completions:
                errs.append(invalid(f"{path}.maxFailedIndexes", mfi, "must be less than or equal to completions"))
            if mfi is not None and mfi > MAX_FAILED_INDEXES_FOR_INDEXED_JOB:
                errs.append(invalid(f"{path}.maxFailedIndexes", mfi,
                                    f"must be less than or equal to {MAX_FAILED_INDEXES_FOR_INDEXED_JOB}"))
            if completions is not None and completions > COMPLETIONS_SOFT_LIMIT and blpi is not None:
                high = f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
                if mfi is None:
                    errs.append(required(f"{path}.maxFailedIndexes",
                                         f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}"))
                if parallelism is not None and parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS:
                    errs.append(invalid(f"{path}.parallelism", parallelism,
                                        f"must be less than or equal to {PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} {high}"))
                if mfi is not None and mfi > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS:
                    errs.append(invalid(f"{path}.maxFailedIndexes", mfi,
                                        f"must be less than or equal to {MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} {high}"))
    if mode is None or mode == "NonIndexed":
        if blpi is not None:
            errs.append(invalid(f"{path}.backoffLimitPerIndex", blpi, "requires indexed completion mode"))
        if mfi is not None:
            errs.append(invalid(f"{path}.maxFailedIndexes", mfi, "requires indexed completion mode"))
    pfp = spec.get("podFailurePolicy")
    if pfp is not None:
        errs += _validate_pod_failure_policy(spec, f"{path}.podFailurePolicy")
    sp = spec.get("successPolicy")
    if sp is not None:
        if (mode or "NonIndexed") != "Indexed":
            errs.append(invalid(f"{path}.successPolicy", GoJSON(sp, "SuccessPolicy"), "requires indexed completion mode"))
        else:
            errs += _validate_success_policy(spec, f"{path}.successPolicy")
    errs += _validate_pod_replacement_policy(spec, f"{path}.podReplacementPolicy")
    template = spec.get("template") or {}
    errs += validate_pod_template_spec(template, f"{path}.template")
    restart = ((template.get("spec") or {}).get("restartPolicy")) or ""
    rpath = f"{path}.template.spec.restartPolicy"
    if restart in ("Always", ""):
        errs.append(required(rpath, 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        errs.append(unsupported(rpath, restart, ["OnFailure", "Never"]))
    elif pfp is not None and restart != "Never":
        errs.append(invalid(rpath, restart, 'only "Never" is supported when podFailurePolicy is specified'))
    return errs


def validate_pod_template_spec(template: dict, path: str) -> list[FieldError]:
    """core validation's ValidatePodTemplateSpec."""
    tmeta = template.get("metadata") or {}
    tspec = template.get("spec") or {}
    errs = validate_labels(tmeta.get("labels"), f"{path}.labels")
    errs += validate_annotations(tmeta.get("annotations"), f"{path}.annotations")
    errs += validate_pod_spec(tspec, tmeta, f"{path}.spec")
    if tspec.get("ephemeralContainers"):
        errs.append(forbidden(f"{path}.spec.ephemeralContainers", "ephemeral containers not allowed in pod template"))
    return errs


_DOMAIN_PREFIXED_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _is_domain_prefixed_path(path: str, value: str) -> list[FieldError]:
    """apimachinery validation.IsDomainPrefixedPath."""
    if not value:
        return [required(path, "")]
    segments = value.split("/", 1)
    if len(segments) != 2 or not segments[0] or not segments[1]:
        return [invalid(path, value, "must be a domain-prefixed path (such as \"acme.io/foo\")")]
    errs = [invalid(path, segments[0], m) for m in _dns1123_subdomain(segments[0])]
    if not re.match(r"^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$", segments[1]):
        errs.append(invalid(path, segments[1], "Invalid path: must consist of alphanumeric characters, "
                                                  "'/', '-', '_', '.', '~', '%', '!', '$', '&', ''', '(', ')', "
                                                  "'*', '+', ',', ';', '=', ':'"))
    return errs


def _dns1123_subdomain(value: str) -> list[str]:
    from kubesim.api.meta.validation import is_dns1123_subdomain

    return is_dns1123_subdomain(value)


def _validate_pod_replacement_policy(spec: dict, path: str) -> list[FieldError]:
    prp = spec.get("podReplacementPolicy")
    if prp is None:
        return []
    if spec.get("podFailurePolicy") is not None:
        if prp != "Failed":
            return [unsupported(path, prp, ["Failed"])]
    elif prp not in POD_REPLACEMENT_POLICIES:
        return [unsupported(path, prp, POD_REPLACEMENT_POLICIES)]
    return []


def _container_names(spec: dict) -> set[str]:
    tspec = (spec.get("template") or {}).get("spec") or {}
    return {c.get("name") for c in (tspec.get("containers") or []) + (tspec.get("initContainers") or [])
            if isinstance(c, dict)}


def _validate_pod_failure_policy(spec: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    rules = (spec.get("podFailurePolicy") or {}).get("rules") or []
    if len(rules) > MAX_POD_FAILURE_POLICY_RULES:
        errs.append(too_many(f"{path}.rules", len(rules), MAX_POD_FAILURE_POLICY_RULES))
    names = _container_names(spec)
    for i, rule in enumerate(rules):
        errs += _validate_pod_failure_policy_rule(spec, rule or {}, f"{path}.rules[{i}]", names)
    return errs


def _quoted_list(values: list[str]) -> str:
    return "[" + " ".join(f'"{v}"' for v in values) + "]"


def _validate_pod_failure_policy_rule(spec: dict, rule: dict, path: str, names: set[str]) -> list[FieldError]:
    errs: list[FieldError] = []
    action = rule.get("action") or ""
    apath = f"{path}.action"
    if not action:
        errs.append(required(apath, f"valid values: {_quoted_list(POD_FAILURE_POLICY_ACTIONS)}"))
    elif action == "FailIndex":
        if spec.get("backoffLimitPerIndex") is None:
            errs.append(invalid(apath, action, "requires the backoffLimitPerIndex to be set"))
    elif action not in POD_FAILURE_POLICY_ACTIONS:
        errs.append(unsupported(apath, action, POD_FAILURE_POLICY_ACTIONS))
    on_exit = rule.get("onExitCodes")
    on_conds = rule.get("onPodConditions") or []
    if on_exit is not None:
        errs += _validate_on_exit_codes(on_exit, f"{path}.onExitCodes", names)
    if on_conds:
        errs += _validate_on_pod_conditions(on_conds, f"{path}.onPodConditions")
    if on_exit is not None and on_conds:
        errs.append(FieldError(path, "Invalid value", "specifying both OnExitCodes and OnPodConditions is not supported"))
    if on_exit is None and not on_conds:
        errs.append(FieldError(path, "Invalid value", "specifying one of OnExitCodes and OnPodConditions is required"))
    return errs


def _validate_on_pod_conditions(patterns: list, path: str) -> list[FieldError]:
    from kubesim.api.meta.validation import validate_label_name

    errs: list[FieldError] = []
    if len(patterns) > MAX_ON_POD_CONDITIONS_PATTERNS:
        errs.append(too_many(path, len(patterns), MAX_ON_POD_CONDITIONS_PATTERNS))
    for j, pattern in enumerate(patterns):
        pattern = pattern or {}
        ppath = f"{path}[{j}]"
        errs += validate_label_name(pattern.get("type") or "", f"{ppath}.type")
        status = pattern.get("status") or ""
        if not status:
            errs.append(required(f"{ppath}.status", f"valid values: {_quoted_list(CONDITION_STATUSES)}"))
        elif status not in CONDITION_STATUSES:
            errs.append(unsupported(f"{ppath}.status", status, CONDITION_STATUSES))
    return errs


def _validate_on_exit_codes(req: dict, path: str, names: set[str]) -> list[FieldError]:
    errs: list[FieldError] = []
    op = req.get("operator") or ""
    if not op:
        errs.append(required(f"{path}.operator", f"valid values: {_quoted_list(ON_EXIT_CODES_OPERATORS)}"))
    elif op not in ON_EXIT_CODES_OPERATORS:
        errs.append(unsupported(f"{path}.operator", op, ON_EXIT_CODES_OPERATORS))
    cname = req.get("containerName")
    if cname is not None and cname not in names:
        errs.append(invalid(f"{path}.containerName", cname,
                            "must be one of the container or initContainer names in the pod template"))
    values = req.get("values") or []
    vpath = f"{path}.values"
    if not values:
        errs.append(invalid(vpath, _go_list(req.get("values")), "at least one value is required"))
    elif len(values) > MAX_ON_EXIT_CODES_VALUES:
        errs.append(too_many(vpath, len(values), MAX_ON_EXIT_CODES_VALUES))
    ordered, seen = True, set()
    for j, v in enumerate(values):
        if op == "In" and v == 0:
            errs.append(invalid(f"{vpath}[{j}]", v, "must not be 0 for the In operator"))
        if v in seen:
            errs.append(duplicate(f"{vpath}[{j}]", v))
        else:
            seen.add(v)
        if j > 0 and values[j - 1] > v:
            ordered = False
    if not ordered:
        errs.append(invalid(vpath, _go_list(values), "must be ordered"))
    return errs


def _validate_success_policy(spec: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    rules = (spec.get("successPolicy") or {}).get("rules") or []
    if not rules:
        errs.append(required(f"{path}.rules", "at least one rules must be specified when the successPolicy is specified"))
    if len(rules) > MAX_SUCCESS_POLICY_RULES:
        errs.append(too_many(f"{path}.rules", len(rules), MAX_SUCCESS_POLICY_RULES))
    for i, rule in enumerate(rules):
        errs += _validate_success_policy_rule(spec, rule or {}, f"{path}.rules[{i}]")
    return errs


def _validate_success_policy_rule(spec: dict, rule: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    count, indexes = rule.get("succeededCount"), rule.get("succeededIndexes")
    completions = int(spec.get("completions") or 0)
    if count is None and indexes is None:
        errs.append(required(path, "at least one of succeededCount or succeededIndexes must be specified"))
    total = 0
    if indexes is not None:
        ipath = f"{path}.succeededIndexes"
        if len(indexes) > MAX_SUCCEEDED_INDEXES_LENGTH:
            errs.append(too_long(ipath, MAX_SUCCEEDED_INDEXES_LENGTH))
        try:
            total = validate_indexes_format(indexes, completions)
        except ValueError as e:
            errs.append(invalid(ipath, indexes, f"error parsing succeededIndexes: {e}"))
    if count is not None:
        cpath = f"{path}.succeededCount"
        errs += _nonnegative(count, cpath)
        if count > completions:
            errs.append(invalid(cpath, count, f"must be less than or equal to {completions} "
                                              "(the number of specified completions)"))
        if indexes is not None and count > total:
            errs.append(invalid(cpath, count, f"must be less than or equal to {total} "
                                              "(the number of indexes in the specified succeededIndexes field)"))
    return errs


def _atoi(s: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        raise ValueError(f'cannot convert string to integer for index: "{s}"')
    return int(s)


def parse_index_interval(interval: str, completions: int) -> tuple[int, int]:
    """parseIndexInterval."""
    limits = interval.split("-")
    if len(limits) > 2:
        raise ValueError(f'the fragment "{interval}" violates the requirement that an index interval can have at '
                         "most two parts separated by '-'")
    x = _atoi(limits[0])
    if x >= completions:
        raise ValueError(f'too large index: "{limits[0]}"')
    if len(limits) > 1:
        y = _atoi(limits[1])
        if y >= completions:
            raise ValueError(f'too large index: "{limits[1]}"')
        if x >= y:
            raise ValueError(f"non-increasing order, previous: {x}, current: {y}")
        return x, y
    return x, x


def validate_indexes_format(indexes: str, completions: int) -> int:
    """validateIndexesFormat: the number of indexes in ``indexes``; ValueError with upstream's
    text when it does not parse."""
    if not indexes:
        return 0
    last, total = None, 0
    for interval in indexes.split(","):
        x, y = parse_index_interval(interval, completions)
        if last is not None and last >= x:
            raise ValueError(f"non-increasing order, previous: {last}, current: {x}")
        total += y - x + 1
        last = y
    return total


def validate_job_update(job: dict, old: dict) -> list[FieldError]:
    """ValidateJobUpdate: metadata, then ValidateJobSpecUpdate (whose ValidateJobSpec repeats the
    create checks; the API server folds repeated messages)."""
    spec, ospec = job.get("spec") or {}, old.get("spec") or {}
    errs = validate_object_meta_update(job.get("metadata") or {}, old.get("metadata") or {})
    errs += validate_job_spec(spec, "spec")
    errs += _validate_completions(spec, ospec)
    errs += _immutable(spec.get("selector"), ospec.get("selector"), "spec.selector", "*LabelSelector")
    errs += _validate_pod_template_update(spec, ospec, old)
    errs += _immutable(spec.get("completionMode"), ospec.get("completionMode"), "spec.completionMode", "*string")
    errs += _immutable(spec.get("podFailurePolicy"), ospec.get("podFailurePolicy"), "spec.podFailurePolicy",
                       "*PodFailurePolicy")
    errs += _immutable(spec.get("backoffLimitPerIndex"), ospec.get("backoffLimitPerIndex"),
                       "spec.backoffLimitPerIndex", "*int")
    errs += _immutable(spec.get("managedBy"), ospec.get("managedBy"), "spec.managedBy", "*string")
    errs += _immutable(spec.get("successPolicy"), ospec.get("successPolicy"), "spec.successPolicy", "*SuccessPolicy")
    return errs


def _immutable(new, old, path: str, go_type: str) -> list[FieldError]:
    if drop_empty(new) == drop_empty(old):
        return []
    if go_type in ("*int", "*string"):
        value = new if new is not None else GoJSON(None)
    else:
        value = GoJSON(new, go_type)
    return [invalid(path, value, FIELD_IMMUTABLE_ERROR)]


def _validate_completions(spec: dict, ospec: dict) -> list[FieldError]:
    """validateCompletions: immutable for a NonIndexed Job; an Indexed Job's changes only with
    parallelism."""
    new, old = spec.get("completions"), ospec.get("completions")
    if spec.get("completionMode") != "Indexed":
        return _immutable(new, old, "spec.completions", "*int")
    if new == old or new is None:
        return []
    if new != spec.get("parallelism"):
        return [invalid("spec.completions", new, "can only be modified in tandem with spec.parallelism")]
    return []


def _validate_pod_template_update(spec: dict, ospec: dict, old: dict) -> list[FieldError]:
    """validatePodTemplateUpdate: a Job's template is immutable, except the scheduling
    directives (node affinity, node selector, tolerations, labels, annotations, scheduling gates)
    of a suspended Job that never started."""
    import copy

    template = spec.get("template") or {}
    old_template = ospec.get("template") or {}
    suspended = ospec.get("suspend") is True
    not_started = not (old.get("status") or {}).get("startTime")
    if suspended and not_started:
        old_template = copy.deepcopy(old_template)
        ts, ots = template.get("spec") or {}, old_template.setdefault("spec", {})
        aff, oaff = ts.get("affinity"), ots.get("affinity")
        if aff is None and oaff is not None:
            oaff = dict(oaff)
            oaff.pop("nodeAffinity", None)
            ots["affinity"] = oaff or None
            if not oaff:
                ots.pop("affinity", None)
        elif aff is not None:
            oaff = dict(oaff or {})
            if aff.get("nodeAffinity") is not None:
                oaff["nodeAffinity"] = aff["nodeAffinity"]
            else:
                oaff.pop("nodeAffinity", None)
            ots["affinity"] = oaff
        for key in ("nodeSelector", "tolerations", "schedulingGates"):
            if key in ts:
                ots[key] = ts[key]
            else:
                ots.pop(key, None)
        tm, otm = template.get("metadata") or {}, old_template.setdefault("metadata", {})
        for key in ("annotations", "labels"):
            if key in tm:
                otm[key] = tm[key]
            else:
                otm.pop(key, None)
    if drop_empty(template) != drop_empty(old_template):
        return [invalid("spec.template", GoJSON(template, "PodTemplateSpec"), FIELD_IMMUTABLE_ERROR)]
    return []


def is_condition_true(conditions, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True" for c in conditions or ())


# ---------------------------------------------------------------------------------------------
# CronJob

_TIME_ZONE_PART = re.compile(r"^[A-Za-z.\-_0-9+]{1,14}$")


def validate_cronjob(cj: dict, old: dict | None = None) -> list[FieldError]:
    """ValidateCronJobCreate (``old`` None) or ValidateCronJobUpdate."""
    md = cj.get("metadata") or {}
    spec = cj.get("spec") or {}
    if old is None:
        errs = validate_object_meta(md, True, name_is_dns_subdomain)
        errs += _validate_cronjob_spec(spec, None)
        name = md.get("name") or ""
        if len(name) > 52:
            errs.append(invalid("metadata.name", name, "must be no more than 52 characters"))
        return errs
    errs = validate_object_meta_update(md, old.get("metadata") or {})
    return errs + _validate_cronjob_spec(spec, old.get("spec") or {})


def _validate_cronjob_spec(spec: dict, old_spec: dict | None) -> list[FieldError]:
    """validateCronJobSpec."""
    errs: list[FieldError] = []
    schedule = spec.get("schedule") or ""
    if not schedule:
        errs.append(required("spec.schedule", ""))
    else:
        allow_tz = old_spec is not None and "TZ" in (old_spec.get("schedule") or "")
        errs += _validate_schedule_format(schedule, allow_tz, spec.get("timeZone"))
    errs += _nonnegative(spec.get("startingDeadlineSeconds"), "spec.startingDeadlineSeconds")
    if old_spec is None or old_spec.get("timeZone") != spec.get("timeZone"):
        errs += validate_time_zone(spec.get("timeZone"), "spec.timeZone")
    policy = spec.get("concurrencyPolicy") or ""
    if not policy:
        errs.append(required("spec.concurrencyPolicy", ""))
    elif policy not in CONCURRENCY_POLICIES:
        errs.append(unsupported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES))
    errs += validate_job_template_spec(spec.get("jobTemplate") or {}, "spec.jobTemplate")
    errs += _nonnegative(spec.get("successfulJobsHistoryLimit"), "spec.successfulJobsHistoryLimit")
    errs += _nonnegative(spec.get("failedJobsHistoryLimit"), "spec.failedJobsHistoryLimit")
    return errs


def _validate_schedule_format(schedule: str, allow_tz: bool, time_zone) -> list[FieldError]:
    """validateScheduleFormat."""
    from kubesim.api.batch.cron import CronError, parse_standard

    errs: list[FieldError] = []
    try:
        parse_standard(schedule)
    except CronError as e:
        errs.append(invalid("spec.schedule", schedule, str(e)))
    if allow_tz and "TZ" in schedule and time_zone is not None:
        errs.append(invalid("spec.schedule", schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
    elif not allow_tz and "TZ" in schedule:
        errs.append(invalid("spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    return errs


def validate_time_zone(tz, path: str) -> list[FieldError]:
    """validateTimeZone."""
    from kubesim.api.batch.cron import CronError, load_location

    if tz is None:
        return []
    if not tz:
        return [invalid(path, tz, "timeZone must be nil or non-empty string")]
    for part in tz.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.match(part):
            return [invalid(path, tz, f"unknown time zone {tz}")]
    errs: list[FieldError] = []
    if tz.lower() == "local":
        errs.append(invalid(path, tz, "timeZone must be an explicit time zone as defined in "
                                      "https://www.iana.org/time-zones"))
    try:
        load_location(tz)
    except CronError as e:
        errs.append(invalid(path, tz, str(e)))
    return errs


def validate_job_template_spec(template: dict, path: str) -> list[FieldError]:
    """ValidateJobTemplateSpec: the job spec, without a selector (it is generated)."""
    spec = template.get("spec") or {}
    errs = _validate_job_spec(spec, f"{path}.spec")
    if spec.get("selector") is not None:
        errs.append(invalid(f"{path}.spec.selector", GoJSON(spec["selector"], "*LabelSelector"),
                            "`selector` will be auto-generated"))
    if spec.get("manualSelector") is True:
        errs.append(unsupported(f"{path}.spec.manualSelector", True, ["nil", "false"]))
    return errs
