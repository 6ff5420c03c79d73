"""LimitRange validation.

Upstream: pkg/apis/core/validation/validation.go (``ValidateLimitRange``,
``validateLimitRangeTypeName``, ``validateLimitRangeResourceName``, ``ValidateLimitRangeName``
= ``ValidateNameFunc(IsDNS1123Subdomain)``) and pkg/apis/core/helper/helpers.go
(``IsStandardLimitRangeType``). The object is validated after the scheme's defaults
(``kubesim.api.core.defaults.set_defaults_limit_range``), so a Container item's defaults taken
from its max are checked too. Where upstream walks Go maps (random order), kubesim sorts the
resource names.
"""

from __future__ import annotations

from kubesim.api.core.container_validation import (
    _validate_container_resource_name,
    _validate_resource_name,
    is_overcommit_allowed,
)
from kubesim.api.gojson import GoJSON
from kubesim.api.meta.validation import (
    _dict,
    _list,
    _str,
    is_qualified_name,
    name_is_dns_subdomain,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.errors import FieldError, duplicate, forbidden, invalid, required

LIMIT_TYPE_POD = "Pod"
LIMIT_TYPE_CONTAINER = "Container"
LIMIT_TYPE_PVC = "PersistentVolumeClaim"
STANDARD_LIMIT_RANGE_TYPES = (LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER, LIMIT_TYPE_PVC)

_MAX_MILLI_VALUE = ((1 << 63) - 1) // 1000


def _validate_type_name(value: str, path: str) -> list[FieldError]:
    """validateLimitRangeTypeName."""
    errs = [invalid(path, value, m) for m in is_qualified_name(value)]
    if errs:
        return errs
    if "/" not in value and value not in STANDARD_LIMIT_RANGE_TYPES:
        errs.append(invalid(path, value, "must be a standard limit type or fully qualified"))
    return errs


def _validate_resource_name_for(limit_type: str, name: str, path: str) -> list[FieldError]:
    """validateLimitRangeResourceName: Pod and Container items hold container resources."""
    if limit_type in (LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER):
        return _validate_container_resource_name(name, path)
    return _validate_resource_name(name, path)


def _quantities(rl) -> dict:
    from kubesim.api.quantity import from_json

    out = {}
    for k, v in _dict(rl).items():
        try:
            out[k] = from_json(v)
        except ValueError:
            pass  # refused when the request is decoded
    return out


def _q(q) -> GoJSON:
    return GoJSON(str(q), "Quantity")


def validate_limit_range(lr: dict) -> list[FieldError]:
    """ValidateLimitRange."""
    errs = validate_object_meta(_dict(lr.get("metadata")), True, name_is_dns_subdomain)
    seen: set[str] = set()
    for i, raw in enumerate(_list(_dict(lr.get("spec")).get("limits"))):
        item = _dict(raw)
        path = f"spec.limits[{i}]"
        limit_type = _str(item.get("type"))
        errs.extend(_validate_type_name(limit_type, f"{path}.type"))
        if limit_type in seen:
            errs.append(duplicate(f"{path}.type", limit_type))
        seen.add(limit_type)

        keys: set[str] = set()
        lists: dict[str, dict] = {}

        def take(field: str, _item=item, _path=path, _type=limit_type, _keys=keys, _lists=lists) -> None:
            rl = _dict(_item.get(field))
            for k in sorted(rl):
                errs.extend(_validate_resource_name_for(_type, k, f"{_path}.{field}[{k}]"))
                _keys.add(k)
            _lists[field] = _quantities(rl)

        take("max")
        take("min")
        if limit_type == LIMIT_TYPE_POD:
            lists["default"], lists["defaultRequest"] = {}, {}
            if _dict(item.get("default")):
                errs.append(forbidden(f"{path}.default", "may not be specified when `type` is 'Pod'"))
            if _dict(item.get("defaultRequest")):
                errs.append(forbidden(f"{path}.defaultRequest", "may not be specified when `type` is 'Pod'"))
        else:
            take("default")
            take("defaultRequest")
        if limit_type == LIMIT_TYPE_PVC and \
                "storage" not in _dict(item.get("min")) and "storage" not in _dict(item.get("max")):
            errs.append(required(f"{path}.limits", "either minimum or maximum storage value is required, "
                                                   "but neither was provided"))
        take("maxLimitRequestRatio")
        errs.extend(_check_values(path, sorted(keys), lists))
    return errs


def _check_values(path: str, keys: list[str], lists: dict[str, dict]) -> list[FieldError]:
    errs: list[FieldError] = []
    mins, maxs, defaults = lists["min"], lists["max"], lists["default"]
    requests, ratios = lists["defaultRequest"], lists["maxLimitRequestRatio"]
    for k in keys:
        lo, hi, d, dr, ratio = mins.get(k), maxs.get(k), defaults.get(k), requests.get(k), ratios.get(k)
        if lo is not None and hi is not None and lo.value > hi.value:
            errs.append(invalid(f"{path}.min[{k}]", _q(lo), f"min value {lo} is greater than max value {hi}"))
        if dr is not None and lo is not None and lo.value > dr.value:
            errs.append(invalid(f"{path}.defaultRequest[{k}]", _q(dr),
                                f"min value {lo} is greater than default request value {dr}"))
        if dr is not None and hi is not None and dr.value > hi.value:
            errs.append(invalid(f"{path}.defaultRequest[{k}]", _q(dr),
                                f"default request value {dr} is greater than max value {hi}"))
        if dr is not None and d is not None and dr.value > d.value:
            errs.append(invalid(f"{path}.defaultRequest[{k}]", _q(dr),
                                f"default request value {dr} is greater than default limit value {d}"))
        if d is not None and lo is not None and lo.value > d.value:
            errs.append(invalid(f"{path}.default[{k}]", _q(lo), f"min value {lo} is greater than default value {d}"))
        if d is not None and hi is not None and d.value > hi.value:
            errs.append(invalid(f"{path}.default[{k}]", _q(hi), f"default value {d} is greater than max value {hi}"))
        if ratio is not None and ratio.value < 1:
            errs.append(invalid(f"{path}.maxLimitRequestRatio[{k}]", _q(ratio), f"ratio {ratio} is less than 1"))
        if ratio is not None and lo is not None and hi is not None:
            ratio_value = float(ratio.int_value())
            lo_value, hi_value = lo.int_value(), hi.int_value()
            if ratio.int_value() < _MAX_MILLI_VALUE and lo_value < _MAX_MILLI_VALUE and hi_value < _MAX_MILLI_VALUE:
                ratio_value = ratio.milli_value() / 1000
                lo_value, hi_value = lo.milli_value(), hi.milli_value()
            limit = hi_value / lo_value if lo_value else float("inf")
            if ratio_value > limit:
                errs.append(invalid(f"{path}.maxLimitRequestRatio[{k}]", _q(ratio),
                                    f"ratio {ratio} is greater than max/min = {_go_float(limit)}"))
        if not is_overcommit_allowed(k) and d is not None and dr is not None and d.value != dr.value:
            errs.append(invalid(f"{path}.defaultRequest[{k}]", _q(dr),
                                f"default value {d} must equal to defaultRequest value {dr} in {k}"))
    return errs


def _go_float(f: float) -> str:
    """fmt's ``%f``."""
    if f == float("inf"):
        return "+Inf"
    return f"{f:.6f}"


def validate_limit_range_update(new: dict, old: dict) -> list[FieldError]:
    """The strategy's ValidateUpdate: the metadata update rules, then ValidateLimitRange."""
    errs = validate_object_meta_update(_dict(new.get("metadata")), _dict(old.get("metadata")))
    return errs + validate_limit_range(new)
