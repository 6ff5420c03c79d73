"""node.k8s.io/v1 validation: RuntimeClass.

Upstream (v1.35): pkg/apis/node/validation/validation.go (ValidateRuntimeClass: the name, the
handler as a DNS label, the overhead through ValidateResourceRequirements as limits — hence
``overhead.limits[cpu]`` in its errors —, the scheduling node selector and tolerations;
ValidateRuntimeClassUpdate: the handler is immutable).
"""

from __future__ import annotations

from kubesim.api.core.container_validation import validate_resource_requirements
from kubesim.api.core.podspec_validation import validate_tolerations
from kubesim.api.meta.validation import (
    FIELD_IMMUTABLE_ERROR,
    name_is_dns_label,
    name_is_dns_subdomain,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, invalid


def validate_runtime_class(rc: dict) -> list[FieldError]:
    errs = validate_object_meta(rc.get("metadata") or {}, False, name_is_dns_subdomain)
    handler = rc.get("handler") if isinstance(rc.get("handler"), str) else ""
    errs.extend(invalid("handler", handler, m) for m in name_is_dns_label(handler, False))
    overhead = rc.get("overhead")
    if isinstance(overhead, dict):
        errs.extend(validate_resource_requirements({"limits": overhead.get("podFixed") or {}}, "overhead"))
    scheduling = rc.get("scheduling")
    if isinstance(scheduling, dict):
        if scheduling.get("nodeSelector") is not None:
            errs.extend(validate_labels(scheduling["nodeSelector"], "scheduling.nodeSelector"))
        errs.extend(validate_tolerations(scheduling.get("tolerations") or [], "scheduling.tolerations"))
    return errs


def validate_runtime_class_update(new: dict, old: dict) -> list[FieldError]:
    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    if new.get("handler") != old.get("handler"):
        errs.append(invalid("handler", new.get("handler") or "", FIELD_IMMUTABLE_ERROR))
    return errs
