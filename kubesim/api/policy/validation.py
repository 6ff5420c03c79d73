"""policy/v1 PodDisruptionBudget validation, as its registry strategy runs it.

Upstream (kubernetes/kubernetes v1.35):

- ``pkg/apis/policy/validation/validation.go``: ``ValidatePodDisruptionBudget`` /
  ``ValidatePodDisruptionBudgetSpec`` (``minAvailable and maxUnavailable cannot be both set``,
  ``ValidatePositiveIntOrPercent`` and ``IsNotMoreThan100Percent`` from apps validation, the
  label selector, ``unhealthyPodEvictionPolicy``); spec updates are allowed since v1.15;
- ``staging/src/k8s.io/apiserver/pkg/registry/rest/create.go``: object metadata checked with
  ``path.ValidatePathSegmentName`` (PDB names are not held to DNS rules).

The both-set error prints the internal ``policy.PodDisruptionBudgetSpec`` as ``json.Marshal``
writes it (``kubesim.api.gojson``).
"""

from __future__ import annotations

from kubesim.api.apps.validation import (
    is_not_more_than_100_percent,
    validate_positive_int_or_percent,
)
from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    validate_label_selector,
    validate_object_meta,
    validate_object_meta_update,
    validate_path_segment_name,
)
from kubesim.errors import FieldError, invalid, unsupported

UNHEALTHY_POD_EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"]  # sets.NewString(...).List(): sorted


def validate_pdb_spec(spec: dict, path: str = "spec") -> list[FieldError]:
    errs: list[FieldError] = []
    min_a, max_u = spec.get("minAvailable"), spec.get("maxUnavailable")
    if min_a is not None and max_u is not None:
        errs.append(invalid(path, GoJSON(spec, "PodDisruptionBudgetSpec"), "minAvailable and maxUnavailable cannot be both set"))
    if min_a is not None:
        errs += validate_positive_int_or_percent(min_a, f"{path}.minAvailable")
        errs += is_not_more_than_100_percent(min_a, f"{path}.minAvailable")
    if max_u is not None:
        errs += validate_positive_int_or_percent(max_u, f"{path}.maxUnavailable")
        errs += is_not_more_than_100_percent(max_u, f"{path}.maxUnavailable")
    errs += validate_label_selector(spec.get("selector"), f"{path}.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        errs.append(unsupported(f"{path}.unhealthyPodEvictionPolicy", policy, UNHEALTHY_POD_EVICTION_POLICIES))
    return errs


def validate_pdb(pdb: dict) -> list[FieldError]:
    errs = validate_pdb_spec(pdb.get("spec") or {})
    errs += validate_object_meta(pdb.get("metadata") or {}, True, validate_path_segment_name)
    return errs


def validate_pdb_update(new: dict, old: dict) -> list[FieldError]:
    errs = validate_pdb_spec(new.get("spec") or {})
    errs += validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    return errs
