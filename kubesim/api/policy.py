"""policy/v1 PodDisruptionBudget: defaulting and validation, as a v1.35 API server applies them.

Upstream (kubernetes/kubernetes):

- ``pkg/registry/policy/poddisruptionbudget/strategy.go``: ``PrepareForCreate`` (status reset,
  generation 1), ``PrepareForUpdate`` (status kept, generation up when the spec changes);
  the empty ``policy/v1`` status serialises its four counters as 0;
- ``pkg/apis/policy/validation/validation.go``: ``ValidatePodDisruptionBudget`` /
  ``ValidatePodDisruptionBudgetSpec`` (``minAvailable and maxUnavailable cannot be both set``,
  ``ValidatePositiveIntOrPercent`` and ``IsNotMoreThan100Percent`` from apps validation, the
  label selector, ``unhealthyPodEvictionPolicy``); spec updates are allowed since v1.15;
- ``staging/src/k8s.io/apiserver/pkg/registry/rest/create.go``: object metadata checked with
  ``path.ValidatePathSegmentName`` (PDB names are not held to DNS rules).

One divergence: the both-set error prints the spec with Go's ``%#v``, whose pointer fields show
memory addresses; kubesim prints a fixed ``0xc000000000``-style placeholder for them.
"""

from __future__ import annotations

import copy

from kubesim.errors import FieldError, invalid, unsupported

UNHEALTHY_POD_EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"]  # sets.NewString(...).List(): sorted


def empty_status() -> dict:
    return {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}


def default_pdb(pdb: dict) -> None:
    """PrepareForCreate."""
    pdb.setdefault("metadata", {})["generation"] = 1
    pdb["status"] = empty_status()


def default_pdb_update(new: dict, old: dict) -> None:
    """PrepareForUpdate: status kept, generation bumped on a spec change."""
    from kubesim.api.equality import semantic_equal

    new["status"] = copy.deepcopy(old.get("status") or empty_status())
    gen = int((old.get("metadata") or {}).get("generation") or 1)
    same = semantic_equal(new.get("spec") or {}, old.get("spec") or {})
    new.setdefault("metadata", {})["generation"] = gen if same else gen + 1


_ADDRESSES = {"minAvailable": "0xc000a1c010", "maxUnavailable": "0xc000a1c020", "selector": "0xc000a1c030",
              "unhealthyPodEvictionPolicy": "0xc000a1c040"}


def _go_spec(spec: dict):
    from kubesim.api.gofmt import GoValue

    def ptr(key: str, typ: str) -> str:
        return f"({typ})({_ADDRESSES[key] if spec.get(key) is not None else 'nil'})"

    return GoValue("policy.PodDisruptionBudgetSpec{"
                   f"MinAvailable:{ptr('minAvailable', '*intstr.IntOrString')}, "
                   f"Selector:{ptr('selector', '*v1.LabelSelector')}, "
                   f"MaxUnavailable:{ptr('maxUnavailable', '*intstr.IntOrString')}, "
                   f"UnhealthyPodEvictionPolicy:{ptr('unhealthyPodEvictionPolicy', '*policy.UnhealthyPodEvictionPolicyType')}}}")


def validate_pdb_spec(spec: dict, path: str = "spec") -> list[FieldError]:
    from kubesim.api.apps import _not_more_than_100_percent, _positive_int_or_percent
    from kubesim.api.meta.validation import validate_label_selector

    errs: list[FieldError] = []
    min_a, max_u = spec.get("minAvailable"), spec.get("maxUnavailable")
    if min_a is not None and max_u is not None:
        errs.append(invalid(path, _go_spec(spec), "minAvailable and maxUnavailable cannot be both set"))
    if min_a is not None:
        errs += _positive_int_or_percent(min_a, f"{path}.minAvailable")
        errs += _not_more_than_100_percent(min_a, f"{path}.minAvailable")
    if max_u is not None:
        errs += _positive_int_or_percent(max_u, f"{path}.maxUnavailable")
        errs += _not_more_than_100_percent(max_u, f"{path}.maxUnavailable")
    errs += validate_label_selector(spec.get("selector"), f"{path}.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        errs.append(unsupported(f"{path}.unhealthyPodEvictionPolicy", policy, UNHEALTHY_POD_EVICTION_POLICIES))
    return errs


def validate_pdb(pdb: dict) -> list[FieldError]:
    from kubesim.api.meta.validation import validate_object_meta, validate_path_segment_name

    errs = validate_pdb_spec(pdb.get("spec") or {})
    errs += validate_object_meta(pdb.get("metadata") or {}, True, validate_path_segment_name)
    return errs


def validate_pdb_update(new: dict, old: dict) -> list[FieldError]:
    from kubesim.api.meta.validation import validate_object_meta_update

    errs = validate_pdb_spec(new.get("spec") or {})
    errs += validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    return errs


DEFAULTERS = {"PodDisruptionBudget": default_pdb}
UPDATE_DEFAULTERS = {"PodDisruptionBudget": default_pdb_update}
VALIDATORS = {"PodDisruptionBudget": (validate_pdb, validate_pdb_update)}
