"""ObjectMeta and apimachinery's generic validators, as every kind's validation uses them.

Written after kubernetes/kubernetes (v1.35):

- ``staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go`` (``IsDNS1123Label``/
  ``Subdomain``, ``IsValidPortNum``/``Name``, ``IsEnvVarName`` as relaxed in v1.34,
  ``MaxLenError``/``InclusiveRangeError`` texts: "must be no more than 63 characters") and
  ``ip.go`` (``IsValidIP``, ``IsValidCIDR``); label keys and values (``IsQualifiedName`` and
  ``IsValidLabelValue``, which are ``pkg/api/validate/content``'s ``IsLabelKey``/``IsLabelValue``:
  "must be no more than 63 bytes") are ``kubesim.api.content``'s;
- ``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go`` (``ValidateObjectMeta``,
  ``ValidateObjectMetaUpdate``, annotations size, owner references, finalizers), ``generic.go``
  (``NameIsDNSSubdomain``, ``NameIsDNSLabel``) and ``path/name.go`` (``ValidatePathSegmentName``),
  with core's finalizer-name check (``pkg/apis/core/validation``'s ``validateKubeFinalizerName``,
  which core's ``ValidateObjectMeta`` wrapper adds);
- ``staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go`` (``ValidateLabels``,
  ``ValidateLabelName``, ``ValidateLabelSelector``);
- ``staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go`` (how values print:
  ``kubesim.errors`` builds the errors; a bad value that is not a scalar prints as
  ``json.Marshal`` writes it, ``kubesim.api.gojson.GoJSON``).

Go iterates maps in random order, so several bad labels come back in random order from a real
server; kubesim sorts keys so output is deterministic.
"""

from __future__ import annotations

import re

from kubesim.api.content import (
    DNS1123_LABEL_FMT,
    DNS1123_LABEL_RE,
    DNS1123_SUBDOMAIN_RE,
    EMPTY_ERROR,
    dns1123_subdomain_errors,
    label_key_errors,
    label_value_errors,
    regex_error,
)
from kubesim.api.gofmt import go_string_slice
from kubesim.api.gojson import GoJSON
from kubesim.errors import FieldError, forbidden, invalid, required

# ---------------------------------------------------------------------------------------------
# error helpers beyond kubesim.errors


def not_found(field: str, value: object, detail: str = "") -> FieldError:
    return FieldError(field, "Not found", detail, value, True)


def too_long(field: str, max_bytes: int) -> FieldError:
    unit = "byte" if max_bytes == 1 else "bytes"
    return FieldError(field, "Too long", f"may not be more than {max_bytes} {unit}")


# ---------------------------------------------------------------------------------------------
# apimachinery util/validation validators (each returns a list of detail messages); label keys,
# label values and RegexError are kubesim.api.content's


def max_len_error(n: int) -> str:
    """util/validation.MaxLenError (content.MaxLenError says "bytes")."""
    return f"must be no more than {n} characters"


def inclusive_range_error(lo: int, hi: int) -> str:
    return f"must be between {lo} and {hi}, inclusive"


IS_NEGATIVE_ERROR = "must be greater than or equal to 0"
IS_NOT_POSITIVE_ERROR = "must be greater than zero"
FIELD_IMMUTABLE_ERROR = "field is immutable"

_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                      "and must start and end with an alphanumeric character")

# util/validation.IsQualifiedName and IsValidLabelValue are content.IsLabelKey and IsLabelValue
is_qualified_name = label_key_errors
is_valid_label_value = label_value_errors


def is_dns1123_label(value: str) -> list[str]:
    errs = []
    if len(value) > 63:
        errs.append(max_len_error(63))
    if not DNS1123_LABEL_RE.fullmatch(value):
        if DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """util/validation.IsDNS1123Subdomain: content's check with util's length message."""
    return dns1123_subdomain_errors(value, max_len_error)


_DNS1123_LABEL_FMT_US = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT_US = _DNS1123_LABEL_FMT_US + "(\\." + _DNS1123_LABEL_FMT_US + ")*"
_DNS1123_SUBDOMAIN_MSG_US = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                             "'_', '-' or '.', and must start and end with an alphanumeric character")
_dns1123_subdomain_us_re = re.compile("^" + _DNS1123_SUBDOMAIN_FMT_US + r"\Z")


def is_dns1123_subdomain_with_underscore(value: str) -> list[str]:
    errs = []
    if len(value) > 253:
        errs.append(max_len_error(253))
    if not _dns1123_subdomain_us_re.match(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG_US, _DNS1123_SUBDOMAIN_FMT_US, "example.com"))
    return errs


def is_valid_port_num(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


_port_name_charset_re = re.compile(r"^[-a-z0-9]+\Z")
_port_name_letter_re = re.compile(r"[a-z]")


def is_valid_port_name(port: str) -> list[str]:
    errs = []
    if len(port) > 15:
        errs.append(max_len_error(15))
    if not _port_name_charset_re.match(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _port_name_letter_re.search(port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def is_relaxed_env_var_name(value: str) -> list[str]:
    """RelaxedEnvironmentVariableValidation is on in v1.35 (GA in v1.34)."""
    errs = []
    if not value:
        errs.append("environment variable name " + EMPTY_ERROR)
    for ch in value:
        if ord(ch) > 127 or not ch.isprintable() or ch == "=":
            errs.append("a valid environment variable name must consist only of printable ASCII characters "
                        "other than '='")
            break
    return errs


def _parse_ip_sloppy(value: str):
    import ipaddress

    if ":" not in value and value.count(".") == 3:
        parts = value.split(".")
        if all(p.isdigit() and p.isascii() for p in parts):
            value = ".".join(str(int(p)) for p in parts)
    return ipaddress.ip_address(value)


def is_valid_cidr(field: str, value: str) -> list[FieldError]:
    import ipaddress

    try:
        ip, _, bits = value.partition("/")
        if not bits or not bits.isdigit():
            raise ValueError(value)
        addr = _parse_ip_sloppy(ip)
        ipaddress.ip_network(f"{addr}/{bits}", strict=False)
    except ValueError:
        return [invalid(field, value, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")]
    return []


def is_valid_ip(field: str, value: str) -> list[FieldError]:
    try:
        _parse_ip_sloppy(value)
    except ValueError:
        return [invalid(field, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
    return []


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    if prefix:
        name = _mask_trailing_dash(name)
    return is_dns1123_subdomain(name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    if prefix:
        name = _mask_trailing_dash(name)
    return is_dns1123_label(name)


def _mask_trailing_dash(name: str) -> str:
    if len(name) > 1 and name.endswith("-"):
        return name[:-1] + "a"
    return name




def validate_path_segment_name(name: str, prefix: bool) -> list[str]:
    """path.ValidatePathSegmentName (IsValidPathSegmentName; a prefix may not end in '.' only)."""
    errs = []
    if not prefix and name in (".", ".."):
        errs.append(f"may not be '{name}'")
    for bad in ("/", "%"):
        if bad in name:
            errs.append(f"may not contain '{bad}'")
    return errs


# ---------------------------------------------------------------------------------------------
# metadata


def validate_labels(labels, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not isinstance(labels, dict):
        return errs
    for k in sorted(labels):
        v = labels[k]
        errs.extend(validate_label_name(str(k), path))
        for msg in is_valid_label_value("" if v is None else str(v)):
            errs.append(invalid(path, "" if v is None else str(v), msg))
    return errs


def validate_label_name(name: str, path: str) -> list[FieldError]:
    return [invalid(path, name, m) for m in is_qualified_name(name)]


TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024


def validate_annotations(annotations, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not isinstance(annotations, dict):
        return errs
    total = 0
    for k in sorted(annotations):
        for m in is_qualified_name(str(k).lower()):
            errs.append(invalid(path, str(k), m))
        total += len(str(k).encode()) + len(str(annotations[k] or "").encode())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def validate_owner_references(refs, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    controller = ""
    for ref in refs or ():
        if not isinstance(ref, dict):
            continue
        api_version = ref.get("apiVersion") or ""
        group, _, version = api_version.rpartition("/")
        if not version:
            errs.append(invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        if not ref.get("kind"):
            errs.append(invalid(f"{path}.kind", ref.get("kind") or "", "must not be empty"))
        if not ref.get("name"):
            errs.append(invalid(f"{path}.name", ref.get("name") or "", "must not be empty"))
        if not ref.get("uid"):
            errs.append(invalid(f"{path}.uid", ref.get("uid") or "", "must not be empty"))
        if group == "" and version == "v1" and ref.get("kind") == "Event":
            errs.append(invalid(path, GoJSON(ref, "OwnerReference"), "/v1, Kind=Event is disallowed from being an owner"))
        if ref.get("controller") is True:
            name = f"{ref.get('kind', '')}/{ref.get('name', '')}"
            if controller:
                errs.append(invalid(path, GoJSON(refs, "[]OwnerReference"),
                                    "Only one reference can have Controller set to true. Found \"true\" in "
                                    f"references for {controller} and {name}"))
            else:
                controller = name
    return errs


_STANDARD_FINALIZERS = {"kubernetes", "orphan", "foregroundDeletion"}


def validate_kube_finalizer_name(value: str, path: str) -> list[FieldError]:
    """core's validateKubeFinalizerName: a finalizer is a standard one or fully qualified."""
    if "/" not in value and value not in _STANDARD_FINALIZERS:
        return [invalid(path, value, "name is neither a standard finalizer name nor is it fully qualified")]
    return []


def validate_finalizers(finalizers, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    finalizers = [str(f) for f in finalizers or ()]
    for f in finalizers:
        errs.extend(invalid(path, f, m) for m in is_qualified_name(f))
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        errs.append(invalid(path, GoJSON(finalizers),
                            "finalizer orphan and foregroundDeletion cannot be both set"))
    for i, f in enumerate(finalizers):
        errs.extend(validate_kube_finalizer_name(f, f"{path}[{i}]"))
    return errs


def validate_object_meta(meta, namespaced: bool, name_fn, path: str = "metadata") -> list[FieldError]:
    """ValidateObjectMeta (+ core's finalizer-name check), for a create."""
    meta = meta if isinstance(meta, dict) else {}
    errs: list[FieldError] = []
    gen = meta.get("generateName") or ""
    if gen:
        errs.extend(invalid(f"{path}.generateName", gen, m) for m in name_fn(gen, True))
    name = meta.get("name") or ""
    if not name:
        errs.append(required(f"{path}.name", "name or generateName is required"))
    else:
        errs.extend(invalid(f"{path}.name", name, m) for m in name_fn(name, False))
    errs.extend(_validate_meta_common(meta, namespaced, path))
    return errs


def _validate_meta_common(meta: dict, namespaced: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    ns = meta.get("namespace") or ""
    if namespaced:
        if not ns:
            errs.append(required(f"{path}.namespace", ""))
        else:
            errs.extend(invalid(f"{path}.namespace", ns, m) for m in name_is_dns_label(ns, False))
    elif ns:
        errs.append(forbidden(f"{path}.namespace", "not allowed on this type"))
    gen = meta.get("generation")
    if isinstance(gen, int) and gen < 0:
        errs.append(invalid(f"{path}.generation", gen, IS_NEGATIVE_ERROR))
    errs.extend(validate_labels(meta.get("labels"), f"{path}.labels"))
    errs.extend(validate_annotations(meta.get("annotations"), f"{path}.annotations"))
    errs.extend(validate_owner_references(meta.get("ownerReferences"), f"{path}.ownerReferences"))
    errs.extend(validate_finalizers(meta.get("finalizers"), f"{path}.finalizers"))
    return errs


def validate_object_meta_update(new, old, path: str = "metadata") -> list[FieldError]:
    """ValidateObjectMetaAccessorUpdate (+ core's finalizer-name check)."""
    new = new if isinstance(new, dict) else {}
    old = old if isinstance(old, dict) else {}
    errs: list[FieldError] = []
    if old.get("deletionTimestamp"):
        extra = sorted(set(new.get("finalizers") or ()) - set(old.get("finalizers") or ()))
        if extra:
            errs.append(forbidden(f"{path}.finalizers",
                                  "no new finalizers can be added if the object is being deleted, found new "
                                  f"finalizers {go_string_slice(extra)}"))
    if (new.get("generation") or 0) < (old.get("generation") or 0):
        errs.append(invalid(f"{path}.generation", new.get("generation") or 0, "must not be decremented"))
    for fld in ("name", "namespace", "uid"):
        if (new.get(fld) or "") != (old.get(fld) or ""):
            errs.append(invalid(f"{path}.{fld}", new.get(fld) or "", FIELD_IMMUTABLE_ERROR))
    for fld in ("creationTimestamp", "deletionTimestamp"):
        if (new.get(fld) or None) != (old.get(fld) or None):
            errs.append(invalid(f"{path}.{fld}", GoJSON(new.get(fld) or None, "*Time"), FIELD_IMMUTABLE_ERROR))
    if new.get("deletionGracePeriodSeconds") != old.get("deletionGracePeriodSeconds"):
        v = new.get("deletionGracePeriodSeconds")
        errs.append(invalid(f"{path}.deletionGracePeriodSeconds", v, FIELD_IMMUTABLE_ERROR))
    errs.extend(validate_labels(new.get("labels"), f"{path}.labels"))
    errs.extend(validate_annotations(new.get("annotations"), f"{path}.annotations"))
    errs.extend(validate_owner_references(new.get("ownerReferences"), f"{path}.ownerReferences"))
    errs.extend(validate_finalizers(new.get("finalizers"), f"{path}.finalizers"))
    return errs


# ---------------------------------------------------------------------------------------------
# label selectors


def _list(v) -> list:
    return v if isinstance(v, list) else []


def _dict(v) -> dict:
    return v if isinstance(v, dict) else {}


def _str(v) -> str:
    return v if isinstance(v, str) else ("" if v is None else str(v))


def validate_label_selector(sel, path: str, allow_invalid_values: bool = False) -> list[FieldError]:
    errs: list[FieldError] = []
    if not isinstance(sel, dict):
        return errs
    errs.extend(validate_labels(sel.get("matchLabels"), f"{path}.matchLabels"))
    for i, rq in enumerate(_list(sel.get("matchExpressions"))):
        rq = _dict(rq)
        p = f"{path}.matchExpressions[{i}]"
        op = _str(rq.get("operator"))
        values = _list(rq.get("values"))
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            errs.append(invalid(f"{p}.operator", op, "not a valid selector operator"))
        errs.extend(validate_label_name(_str(rq.get("key")), f"{p}.key"))
        if not allow_invalid_values:
            for j, v in enumerate(values):
                errs.extend(invalid(f"{p}.values[{j}]", _str(v), m) for m in is_valid_label_value(_str(v)))
    return errs

