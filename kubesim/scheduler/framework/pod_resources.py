"""Resources as the scheduler reads them: exact integers, and a pod's requests in them.

Upstream: pkg/scheduler/util/pod_resources.go (``DefaultMilliCPURequest``,
``DefaultMemoryRequest``: what a container without a cpu / memory request counts as when
scoring), pkg/scheduler/framework/types.go (``CalculateResource``: ``PodRequests`` with status
resources, and again with ``getNonMissingContainerRequests``' non-zero defaults),
pkg/apis/core/v1/helper/helpers.go (``IsExtendedResourceName``, ``IsHugePageResourceName``,
``IsPrefixedNativeResource``, ``IsScalarResourceName``), and apimachinery's
``Quantity.MilliValue`` / ``Value``.

A pod's requests are component-helpers' ``PodRequests``, computed by
:func:`kubesim.api.resource.pod_requests`; the scheduler reads them in its own integers
(:data:`EXACT_INTS`: cpu in millicores, everything else in units), which is exact as long as
every quantity involved is a whole number of those (``"100m"``, ``"1.5Gi"``, ``"1e3"``). A pod
with any other quantity (``"0.0001"`` cpu, ``"0.5"`` bytes) is summed exactly with ``Fraction``
and converted once, cpu to millicores and everything else to units, both rounded up
(saturating at int64), as upstream converts the summed Quantity (:func:`pod_requests_ints`).
The conversions of manifest quantities are cached by value.
"""

from __future__ import annotations

import operator
from fractions import Fraction
from functools import lru_cache

from kubesim.api import quantity as _quantity
from kubesim.api.quantity import parse_quantity
from kubesim.api.resource import (
    EXACT,
    Amounts,
    PodResourcesOptions,
    is_pod_level_requests_set,
    pod_requests,
    status_resources_matter,
)

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
EPHEMERAL_STORAGE = "ephemeral-storage"

# pkg/scheduler/util/pod_resources.go: what a container without a cpu/memory request counts as
# when scoring (NonZeroRequested), so that many zero-request pods do not pile onto one node.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

_NON_MISSING = (CPU, MEMORY)
_NON_MISSING_DEFAULTS = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
                         MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}
_NON_MISSING_INTS = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}

_qty = lru_cache(maxsize=8192)(parse_quantity)


def quantity(value) -> Fraction:
    """A manifest quantity (``"100m"``, ``2``, ``"1Gi"``) as an exact number (cached)."""
    if isinstance(value, (int, str)):
        return _qty(value)
    return Fraction(parse_quantity(value))


def milli_value(q: Fraction) -> int:
    """``Quantity.MilliValue()``: rounded up (away from zero), saturating at int64."""
    if q.denominator == 1 and -9223372036854775 <= q.numerator <= 9223372036854775:
        return q.numerator * 1000
    # A whole number of millis (100m, 1.5) needs no rounding.
    m, rem = divmod(q.numerator * 1000, q.denominator)
    if rem == 0 and -9223372036854775808 <= m <= 9223372036854775807:
        return m
    return _quantity.milli_value(q)


def int_value(q: Fraction) -> int:
    """``Quantity.Value()``: rounded up (away from zero), saturating at int64."""
    if q.denominator == 1 and -9223372036854775807 <= q.numerator <= 9223372036854775807:
        return q.numerator
    return _quantity.value(q)


# -- integer views of manifest quantities, cached ---------------------------------------------
# Keyed by the manifest value itself, for ``str`` and ``int`` values only (other types, bools
# among them, compare equal to ints and are converted uncached). Bounded by clearing.
_CACHE_LIMIT = 1 << 16
_MILLI_OF: dict = {}   # value -> milli_value(quantity(value))
_UNITS_OF: dict = {}   # value -> int_value(quantity(value))
_EXACT_MILLI: dict = {}  # value -> quantity(value) in millicores, or None: not a whole number
_EXACT_UNITS: dict = {}  # value -> quantity(value) in units, or None: not a whole number
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class _Inexact(Exception):
    """A quantity that is not a whole number of millicores (cpu) or units (anything else), or
    does not parse: the integer sums cannot reproduce upstream's exact sum-then-round."""


def _remember(cache: dict, key, value):
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


def milli_of(q) -> int:
    """``milli_value`` of a manifest quantity (str, number or Fraction); cached."""
    t = type(q)
    if t is str or t is int:
        v = _MILLI_OF.get(q)
        if v is None:
            v = _remember(_MILLI_OF, q, milli_value(quantity(q)))
        return v
    return milli_value(q if isinstance(q, Fraction) else quantity(q))


def units_of(q) -> int:
    """``int_value`` of a manifest quantity (str, number or Fraction); cached."""
    t = type(q)
    if t is str or t is int:
        v = _UNITS_OF.get(q)
        if v is None:
            v = _remember(_UNITS_OF, q, int_value(quantity(q)))
        return v
    return int_value(q if isinstance(q, Fraction) else quantity(q))


def _exact_of(q, cpu: bool) -> int | None:
    try:
        v = q if isinstance(q, Fraction) else quantity(q)
    except Exception:  # noqa: BLE001 - the Fraction path raises it again, in its own order
        return None
    if cpu:
        m, rem = divmod(v.numerator * 1000, v.denominator)
        return m if rem == 0 else None
    return v.numerator if v.denominator == 1 else None


def exact_int(name: str, q) -> int:
    """A request quantity as an exact int - millicores for cpu, units otherwise - or _Inexact."""
    cpu = name == CPU
    t = type(q)
    if t is str or t is int:
        cache = _EXACT_MILLI if cpu else _EXACT_UNITS
        v = cache.get(q, cache)
        if v is cache:
            v = _remember(cache, q, _exact_of(q, cpu))
    else:
        v = _exact_of(q, cpu)
    if v is None:
        raise _Inexact
    return v


def _clamp(v: int) -> int:
    """An exact sum as ``MilliValue``/``Value`` reads it: saturated at the int64 rails."""
    if _INT64_MIN <= v <= _INT64_MAX:
        return v
    return _INT64_MAX if v > 0 else _INT64_MIN


# -- resource names (pkg/apis/core/v1/helper) ---------------------------------------------------
def is_prefixed_native_resource(name: str) -> bool:
    return "kubernetes.io/" in name


def is_extended_resource_name(name: str) -> bool:
    if "/" not in name or is_prefixed_native_resource(name):
        return False
    return not name.startswith("requests.")


def is_hugepage_resource_name(name: str) -> bool:
    return name.startswith("hugepages-")


def is_scalar_resource_name(name: str) -> bool:
    """Extended, hugepages, prefixed native and attachable-volume resources."""
    return (is_extended_resource_name(name) or is_hugepage_resource_name(name)
            or is_prefixed_native_resource(name) or name.startswith("attachable-volumes-"))


# -- pod requests in the scheduler's integers --------------------------------------------------
# kubesim.api.resource.pod_requests computes; these are its amounts and options as the scheduler
# reads them: cpu in millicores, everything else in units.

EXACT_INTS = Amounts(exact_int, operator.add, operator.gt, operator.not_)
"""Exact ints (cpu in millicores, the rest in units); ``_Inexact`` for any other quantity."""

_OPTIONS: dict[tuple[bool, tuple[str, ...]], tuple[PodResourcesOptions, PodResourcesOptions]] = {}


def _options(use_status: bool, non_missing: tuple[str, ...]
             ) -> tuple[PodResourcesOptions, PodResourcesOptions]:
    """The options for :data:`EXACT_INTS` and for :data:`EXACT`: status resources or not, and
    the scorer's non-zero defaults for the ``non_missing`` resources (cached)."""
    key = (use_status, non_missing)
    o = _OPTIONS.get(key)
    if o is None:
        o = _OPTIONS[key] = (
            PodResourcesOptions(use_status_resources=use_status, non_missing_container_requests={
                k: _NON_MISSING_INTS[k] for k in non_missing} or None),
            PodResourcesOptions(use_status_resources=use_status, non_missing_container_requests={
                k: _NON_MISSING_DEFAULTS[k] for k in non_missing} or None))
    return o


def _converted(reqs: dict[str, Fraction]) -> dict[str, int]:
    return {k: (milli_value(v) if k == CPU else int_value(v)) for k, v in reqs.items()}


def _clamped(reqs: dict[str, int]) -> dict[str, int]:
    for v in reqs.values():
        if not _INT64_MIN <= v <= _INT64_MAX:
            return {k: _clamp(v) for k, v in reqs.items()}
    return reqs


def pod_requests_ints(pod: dict, *, use_status: bool = False,
                      non_missing: tuple[str, ...] = ()) -> dict[str, int]:
    """``PodRequests`` (kubesim.api.resource) with each resource's exact sum read as
    ``MilliValue`` (cpu) / ``Value`` (the rest) would read it: summed on ints, or on Fractions
    when some quantity is not a whole number of millicores / units. ``non_missing``: the
    resources (cpu, memory) given the scorer's non-zero defaults where a container misses them."""
    ints, exact = _OPTIONS.get((use_status, non_missing)) or _options(use_status, non_missing)
    try:
        return _clamped(pod_requests(pod, ints, EXACT_INTS))
    except _Inexact:
        return _converted(pod_requests(pod, exact, EXACT))


def non_missing_container_requests(requests: dict, pod_level_set: bool) -> tuple[str, ...]:
    """``getNonMissingContainerRequests``: the resources to give the non-zero defaults - cpu and
    memory, or with pod-level requests set only those the pod's requests lack."""
    if not pod_level_set:
        return _NON_MISSING
    return tuple(k for k in _NON_MISSING if k not in requests)


def pod_info_requests(pod: dict) -> tuple[dict[str, int], dict[str, int], bool, bool]:
    """What ``CalculateResource`` asks of ``PodRequests``: (the requests with status, the same
    with the scorer's non-zero defaults, whether pod-level requests are set, whether the status
    played no part, so that the requests are also the spec-only ``PodRequests``). Whether the
    status matters is asked once, for both computations."""
    use_status = status_resources_matter(pod)
    reqs = pod_requests_ints(pod, use_status=use_status)
    pod_level_set = is_pod_level_requests_set(pod)
    nm = non_missing_container_requests(reqs, pod_level_set)
    non0 = pod_requests_ints(pod, use_status=use_status, non_missing=nm) if nm else reqs
    return reqs, non0, pod_level_set, not use_status
