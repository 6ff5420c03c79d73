"""storage.k8s.io/v1 validation: StorageClass and CSINode, as their registry strategies run it.

Upstream (kubernetes/kubernetes v1.35): ``pkg/apis/storage/validation/validation.go``
(``ValidateStorageClass``, ``ValidateStorageClassUpdate``: parameters, provisioner and reclaim
policy may not change, nor the binding mode; ``validateProvisioner``, ``validateParameters``,
``validateReclaimPolicy``, ``validateVolumeBindingMode``, ``validateAllowedTopologies``;
``ValidateCSINode``, ``ValidateCSINodeUpdate``).
"""

from __future__ import annotations

from kubesim.api.meta.validation import (
    FIELD_IMMUTABLE_ERROR,
    IS_NEGATIVE_ERROR,
    is_qualified_name,
    is_valid_label_value,
    name_is_dns_subdomain,
    validate_label_name,
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

SC_RECLAIM_POLICIES = ["Delete", "Retain"]
BINDING_MODES = ["Immediate", "WaitForFirstConsumer"]
MAX_PARAMETERS = 512
MAX_PARAMETERS_SIZE = 256 * 1024


def _validate_provisioner(prov, path: str) -> list[FieldError]:

    prov = prov if isinstance(prov, str) else ""
    if not prov:
        return [required(path, "")]
    return [invalid(path, prov.lower(), m) for m in is_qualified_name(prov.lower())]


def _validate_parameters(params, path: str) -> list[FieldError]:
    params = params if isinstance(params, dict) else {}
    if len(params) > MAX_PARAMETERS:
        return [FieldError(path, "Too long", f"may not have more than {MAX_PARAMETERS} bytes",
                           "Provisioner Parameters exceeded max allowed", False)]
    errs: list[FieldError] = []
    total = 0
    for k in sorted(params):
        if len(k) < 1:
            errs.append(invalid(path, k, "field can not be empty."))
        total += len(k) + len(str(params[k]))
    if total > MAX_PARAMETERS_SIZE:
        errs.append(FieldError(path, "Too long", f"may not have more than {MAX_PARAMETERS_SIZE} bytes"))
    return errs


def _validate_allowed_topologies(terms, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: list[dict] = []
    for i, term in enumerate(terms if isinstance(terms, list) else []):
        term = term if isinstance(term, dict) else {}
        tpath = f"{path}[{i}]"
        exprs = term.get("matchLabelExpressions") if isinstance(term.get("matchLabelExpressions"), list) else []
        expr_map: dict[str, frozenset] = {}
        if not exprs:
            errs.append(required(f"{tpath}.matchLabelExpressions", "must have at least one label selector"))
        for j, rq in enumerate(exprs):
            rq = rq if isinstance(rq, dict) else {}
            rpath = f"{tpath}.matchLabelExpressions[{j}]"
            key = rq.get("key") or ""
            errs += validate_label_name(key, f"{rpath}.key")
            values = rq.get("values") if isinstance(rq.get("values"), list) else []
            if not values:
                errs.append(required(f"{rpath}.values", ""))
            for k, v in enumerate(values):
                errs.extend(invalid(f"{rpath}.values[{k}]", v, m) for m in is_valid_label_value(str(v)))
            if key in expr_map:
                errs.append(duplicate(f"{rpath}.key", key))
            expr_map[key] = frozenset(str(v) for v in values)
        if expr_map and expr_map in seen:
            errs.append(duplicate(f"{tpath}.matchLabelExpressions", ""))
        seen.append(expr_map)
    return errs


def validate_storage_class(sc: dict) -> list[FieldError]:
    errs = validate_object_meta(sc.get("metadata") or {}, False, name_is_dns_subdomain)
    errs += _validate_provisioner(sc.get("provisioner"), "provisioner")
    errs += _validate_parameters(sc.get("parameters"), "parameters")
    rp = sc.get("reclaimPolicy")
    if rp and rp not in SC_RECLAIM_POLICIES:
        errs.append(unsupported("reclaimPolicy", rp, SC_RECLAIM_POLICIES))
    mode = sc.get("volumeBindingMode")
    if mode is None:
        errs.append(required("volumeBindingMode", ""))
    elif mode not in BINDING_MODES:
        errs.append(unsupported("volumeBindingMode", mode, BINDING_MODES))
    errs += _validate_allowed_topologies(sc.get("allowedTopologies"), "allowedTopologies")
    return errs


def validate_storage_class_update(new: dict, old: dict) -> list[FieldError]:
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    if (new.get("parameters") or {}) != (old.get("parameters") or {}):
        errs.append(forbidden("parameters", "updates to parameters are forbidden."))
    if new.get("provisioner") != old.get("provisioner"):
        errs.append(forbidden("provisioner", "updates to provisioner are forbidden."))
    if new.get("reclaimPolicy") != old.get("reclaimPolicy"):
        errs.append(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."))
    if new.get("volumeBindingMode") != old.get("volumeBindingMode"):
        errs.append(invalid("volumeBindingMode", new.get("volumeBindingMode"), FIELD_IMMUTABLE_ERROR))
    return errs


# ---------------------------------------------------------------------------------------------
# CSINode

def validate_csinode(node: dict) -> list[FieldError]:
    errs = validate_object_meta(node.get("metadata") or {}, False, name_is_dns_subdomain)
    drivers = (node.get("spec") or {}).get("drivers")
    names: set[str] = set()
    for i, d in enumerate(drivers if isinstance(drivers, list) else []):
        d = d if isinstance(d, dict) else {}
        path = f"spec.drivers[{i}]"
        name = d.get("name") or ""
        if not name:
            errs.append(required(f"{path}.name", ""))
        elif name in names:
            errs.append(duplicate(f"{path}.name", name))
        names.add(name)
        if not d.get("nodeID"):
            errs.append(required(f"{path}.nodeID", ""))
        count = (d.get("allocatable") or {}).get("count") if isinstance(d.get("allocatable"), dict) else None
        if isinstance(count, int) and count < 0:
            errs.append(invalid(f"{path}.allocatable.count", count, IS_NEGATIVE_ERROR))
    return errs


def validate_csinode_update(new: dict, old: dict) -> list[FieldError]:
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errs += validate_csinode(new)
    return [e for e in errs if not e.field.startswith("metadata.name")]
