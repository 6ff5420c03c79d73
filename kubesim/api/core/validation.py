"""Validation of core/v1 Pods, Nodes, Namespaces and ConfigMaps, as their registry strategies run it.

Written after kubernetes/kubernetes (v1.35) ``pkg/apis/core/validation/validation.go``:
``ValidatePodCreate``/``ValidatePodUpdate`` (``validatePodMetadataAndSpec``,
``ValidatePodSpecificAnnotations``, ``ValidatePodSpecificAnnotationUpdates``,
``validateOnlyAddedTolerations``, ``validateOnlyDeletedSchedulingGates`` and the munged spec
compared with ``apiequality.Semantic.DeepEqual``), ``ValidateNode``/``ValidateNodeUpdate``
(``validateNodeTaints``, pod CIDRs, addresses, resources) and
``ValidateNamespace``/``ValidateNamespaceUpdate`` and ``ValidateConfigMap``/
``ValidateConfigMapUpdate`` (keys, the 1 MiB total, immutability), and core/v1 Events' legacy
validation (events.go legacyValidateEvent, all the v1 API applies). The PodSpec is
``kubesim.api.core.podspec_validation``'s, ObjectMeta ``kubesim.api.meta.validation``'s.

Like the API server, validation runs on the object *after* defaulting and admission; fields
those always set (restartPolicy, dnsPolicy, ...) are still checked, so a caller that skips
defaulting gets upstream's ``Required value`` errors.

Decisions where kubesim cannot be byte-identical, or simplifies:

- The pod-update ``Forbidden`` message is upstream's: the list of updatable fields, a newline,
  then apimachinery's ``diff.Diff`` of the old and the munged internal ``core.PodSpec``
  (``kubesim.api.gojson.diff``).
- Negative ``terminationGracePeriodSeconds`` is accepted on create, as upstream does (only
  ``nil`` is an error; the kubelet treats negatives as 1).
- Ephemeral containers are refused on create, as upstream does, and not validated otherwise.
- ``metadata.resourceVersion`` on update is the store's business and is not checked here.
- Bad values that are not scalars (a ``core.Taint``, a ``[]string``) print as ``json.Marshal``
  writes the internal Go value, as v1.35's ``field.Error`` does (``kubesim.api.gojson``).
- A ConfigMap's key errors come in key order; upstream walks a Go map, so its order varies.
"""

from __future__ import annotations

import re

from kubesim.api.core.container_validation import (
    parse_or_error,
    validate_resource_quantity_value,
)
from kubesim.api.core.podspec_validation import (
    TAINT_EFFECTS,
    validate_pod_spec,
    validate_tolerations,
)
from kubesim.api.equality import semantic_equal
from kubesim.api.gojson import GoJSON, diff
from kubesim.api.meta.validation import (
    inclusive_range_error,
    is_qualified_name,
    is_valid_cidr,
    is_valid_label_value,
    name_is_dns_label,
    name_is_dns_subdomain,
    too_long,
    validate_kube_finalizer_name,
    validate_label_name,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.api.pods import MIRROR_POD_ANNOTATION
from kubesim.errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    required,
    unsupported,
)

_MAX_INT32 = 2**31 - 1

UPDATABLE_POD_SPEC_FIELDS = [
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
]

POD_DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"


def _list(v) -> list:
    return v if isinstance(v, list) else []


def _dict(v) -> dict:
    return v if isinstance(v, dict) else {}


def _str(v) -> str:
    return v if isinstance(v, str) else ("" if v is None else str(v))


def _int(v, default: int = 0) -> int:
    if isinstance(v, bool) or v is None:
        return default
    if isinstance(v, (int, float)):
        return int(v)
    return default


# ---------------------------------------------------------------------------------------------
# pods


def validate_pod_create(pod: dict) -> list[FieldError]:
    errs = _validate_pod_metadata_and_spec(pod)
    spec = _dict(pod.get("spec"))
    if _list(spec.get("ephemeralContainers")):
        errs.append(forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if spec.get("nodeName") and _list(spec.get("schedulingGates")):
        errs.append(forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    return errs


def _validate_pod_metadata_and_spec(pod: dict, old: dict | None = None) -> list[FieldError]:
    meta = _dict(pod.get("metadata"))
    spec = _dict(pod.get("spec"))
    errs = validate_object_meta(meta, True, name_is_dns_subdomain)
    errs.extend(_validate_pod_specific_annotations(meta, spec, old))
    errs.extend(_validate_pod_spec_shared(spec, meta))
    if not spec.get("serviceAccountName"):
        for vi, vol in enumerate(_list(spec.get("volumes"))):
            proj = _dict(_dict(vol).get("projected"))
            for si, src in enumerate(_list(proj.get("sources"))):
                if _dict(src).get("serviceAccountToken") is not None:
                    errs.append(forbidden(f"spec.volumes[{vi}].projected.sources[{si}].serviceAccountToken",
                                          "must not be specified when serviceAccountName is not set"))
    for key in ("containers", "initContainers"):
        for i, c in enumerate(_list(spec.get(key))):
            image = _str(_dict(c).get("image"))
            if len(image) != len(image.strip()):
                errs.append(invalid(f"spec.{key}[{i}].image", image, "must not have leading or trailing whitespace"))
    return errs


# The PodSpecs found valid (``validate_pod_spec`` reads the spec alone): the pods of one file or
# one template repeat a spec, differing only in the ServiceAccount admission plugin's token
# volume name (``kube-api-access-`` and 5 random characters), so each spec is keyed with that
# name replaced by a placeholder no valid name can be. Renaming one valid DNS label to another
# of the same length that the spec does not hold otherwise changes no verdict. Only valid
# specs are kept: an invalid one is validated again for its errors.
_VALID_SPECS: set[bytes] = set()
_VALID_SPECS_MAX = 4096
_TOKEN_VOLUME = re.compile(r"kube-api-access-[a-z0-9]{5}\Z")
_TOKEN_PLACEHOLDER = b"kube-api-access-_____"


def _spec_key(spec: dict) -> bytes | None:
    """The spec's key in ``_VALID_SPECS`` (None: not to be shared)."""
    import marshal

    tokens = [v["name"] for v in _list(spec.get("volumes"))
              if isinstance(v, dict) and isinstance(v.get("name"), str) and _TOKEN_VOLUME.match(v["name"])]
    try:
        raw = marshal.dumps(spec, 2)  # (version 2: no references, so equal specs give equal bytes)
    except ValueError:  # (a value marshal cannot hold: not decoded JSON)
        return None
    if len(tokens) > 1 or _TOKEN_PLACEHOLDER in raw:
        return None
    return raw.replace(tokens[0].encode(), _TOKEN_PLACEHOLDER) if tokens else raw


def _validate_pod_spec_shared(spec: dict, meta: dict) -> list[FieldError]:
    """``validate_pod_spec(spec, meta, "spec")``, once for the pods sharing a spec."""
    key = _spec_key(spec)
    if key is not None and key in _VALID_SPECS:
        return []
    errs = validate_pod_spec(spec, meta, "spec")
    if key is not None and not errs:
        if len(_VALID_SPECS) >= _VALID_SPECS_MAX:
            _VALID_SPECS.clear()
        _VALID_SPECS.add(key)
    return errs


def _validate_pod_specific_annotations(meta: dict, spec: dict, old: dict | None) -> list[FieldError]:
    errs: list[FieldError] = []
    ann = _dict(meta.get("annotations"))
    path = "metadata.annotations"
    if MIRROR_POD_ANNOTATION in ann and not spec.get("nodeName"):
        errs.append(invalid(f"{path}[{MIRROR_POD_ANNOTATION}]", _str(ann[MIRROR_POD_ANNOTATION]),
                            "must set spec.nodeName if mirror pod annotation is set"))
    if POD_DELETION_COST_ANNOTATION in ann:
        allow_invalid = False
        if old is not None:
            old_cost = _dict(_dict(old.get("metadata")).get("annotations")).get(POD_DELETION_COST_ANNOTATION)
            allow_invalid = old_cost is not None and not _is_int32(old_cost)
        if not allow_invalid and not _is_int32(ann[POD_DELETION_COST_ANNOTATION]):
            errs.append(invalid(f"{path}[{POD_DELETION_COST_ANNOTATION}]", _str(ann[POD_DELETION_COST_ANNOTATION]),
                                "must be a 32bit integer"))
    return errs


def _is_int32(s) -> bool:
    s = _str(s)
    if not re.match(r"^[+-]?[0-9]+\Z", s):
        return False
    return -(2**31) <= int(s) <= _MAX_INT32


# -- pod update


def validate_pod_update(new: dict, old: dict) -> list[FieldError]:
    new_meta, old_meta = _dict(new.get("metadata")), _dict(old.get("metadata"))
    errs = validate_object_meta_update(new_meta, old_meta)
    errs.extend(_validate_pod_metadata_and_spec(new, old))
    errs.extend(_validate_pod_annotation_updates(new_meta, old_meta))
    ns, os_ = _dict(new.get("spec")), _dict(old.get("spec"))
    for key in ("containers", "initContainers"):
        nc, oc = _list(ns.get(key)), _list(os_.get(key))
        if len(nc) != len(oc):
            errs.append(forbidden(f"spec.{key}", "pod updates may not add or remove containers"))
            return errs
        for i, c in enumerate(nc):
            image = _str(_dict(c).get("image"))
            if not image:
                errs.append(required(f"spec.{key}[{i}].image", ""))
            if len(image.strip()) != len(image):
                errs.append(invalid(f"spec.{key}[{i}].image", image, "must not have leading or trailing whitespace"))
    nads, oads = ns.get("activeDeadlineSeconds"), os_.get("activeDeadlineSeconds")
    if nads is not None:
        v = _int(nads)
        if v < 0 or v > _MAX_INT32:
            errs.append(invalid("spec.activeDeadlineSeconds", v, inclusive_range_error(0, _MAX_INT32)))
            return errs
        if oads is not None and _int(oads) < v:
            errs.append(invalid("spec.activeDeadlineSeconds", v, "must be less than or equal to previous value"))
            return errs
    elif oads is not None:
        errs.append(invalid("spec.activeDeadlineSeconds", None, "must not update from a positive integer to nil value"))
    errs.extend(_validate_only_added_tolerations(_list(ns.get("tolerations")), _list(os_.get("tolerations"))))
    errs.extend(_validate_only_deleted_scheduling_gates(_list(ns.get("schedulingGates")), _list(os_.get("schedulingGates"))))
    if semantic_equal(ns, os_):
        return errs
    munged = _munge_pod_spec(ns, os_)
    if not semantic_equal(munged, os_):
        errs.append(forbidden("spec", "pod updates may not change fields other than "
                              + ",".join(UPDATABLE_POD_SPEC_FIELDS) + "\n" + diff(os_, munged, "PodSpec")))
    return errs


def _validate_pod_annotation_updates(new_meta: dict, old_meta: dict) -> list[FieldError]:
    errs: list[FieldError] = []
    new_ann, old_ann = _dict(new_meta.get("annotations")), _dict(old_meta.get("annotations"))
    for k in sorted(old_ann):
        if k in new_ann and new_ann[k] == old_ann[k]:
            continue
        if k.startswith("container.apparmor.security.beta.kubernetes.io/"):
            errs.append(forbidden(f"metadata.annotations[{k}]", "may not remove or update AppArmor annotations"))
        if k == MIRROR_POD_ANNOTATION:
            errs.append(forbidden(f"metadata.annotations[{k}]", "may not remove or update mirror pod annotation"))
    for k in sorted(new_ann):
        if k in old_ann:
            continue
        if k.startswith("container.apparmor.security.beta.kubernetes.io/"):
            errs.append(forbidden(f"metadata.annotations[{k}]", "may not add AppArmor annotations"))
        if k == MIRROR_POD_ANNOTATION:
            errs.append(forbidden(f"metadata.annotations[{k}]", "may not add mirror pod annotation"))
    return errs


def _validate_only_added_tolerations(new: list, old: list) -> list[FieldError]:
    for o in old:
        o = _dict(o)
        found = False
        for n in new:
            n = _dict(n)
            clone = dict(o)
            if "tolerationSeconds" in n:
                clone["tolerationSeconds"] = n["tolerationSeconds"]
            else:
                clone.pop("tolerationSeconds", None)
            if semantic_equal(clone, n):
                found = True
                break
        if not found:
            return [forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds")]
    return validate_tolerations(new, "spec.tolerations")


def _validate_only_deleted_scheduling_gates(new: list, old: list) -> list[FieldError]:
    errs: list[FieldError] = []
    old_names = {_str(_dict(g).get("name")) for g in old}
    added: dict[str, int] = {}
    for i, g in enumerate(new):
        added[_str(_dict(g).get("name"))] = i
    for name, i in added.items():
        if name not in old_names:
            errs.append(forbidden(f"spec.schedulingGates[{i}].name",
                                  f"only deletion is allowed, but found new scheduling gate '{name}'"))
    return errs


def _munge_pod_spec(new: dict, old: dict) -> dict:
    import copy

    m = copy.deepcopy(new)
    for key in ("containers", "initContainers"):
        olds = _list(old.get(key))
        for i, c in enumerate(_list(m.get(key))):
            if isinstance(c, dict) and i < len(olds):
                oi = _dict(olds[i]).get("image")
                if oi is None:
                    c.pop("image", None)
                else:
                    c["image"] = oi
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        if key in old:
            m[key] = copy.deepcopy(old[key])
        else:
            m.pop(key, None)
    og = old.get("terminationGracePeriodSeconds")
    if isinstance(og, int) and og < 0 and m.get("terminationGracePeriodSeconds") == 1:
        m["terminationGracePeriodSeconds"] = og
    if _list(old.get("schedulingGates")):
        # gated pods may add to nodeSelector and tighten node affinity; kubesim allows both wholesale
        if "nodeSelector" in old:
            m["nodeSelector"] = copy.deepcopy(old["nodeSelector"])
        else:
            m.pop("nodeSelector", None)
        oaff = _dict(old.get("affinity"))
        if isinstance(m.get("affinity"), dict) or oaff:
            maff = _dict(m.get("affinity"))
            if "nodeAffinity" in oaff:
                maff["nodeAffinity"] = copy.deepcopy(oaff["nodeAffinity"])
            else:
                maff.pop("nodeAffinity", None)
            if maff or "affinity" in old:
                m["affinity"] = maff
            else:
                m.pop("affinity", None)
    return m



# ---------------------------------------------------------------------------------------------
# nodes


def validate_node_taints(taints: list, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    unique: dict[str, set[str]] = {}
    for i, t in enumerate(taints):
        t = _dict(t)
        idx = f"{path}[{i}]"
        key, effect = _str(t.get("key")), _str(t.get("effect"))
        errs.extend(validate_label_name(key, f"{idx}.key"))
        msgs = is_valid_label_value(_str(t.get("value")))
        if msgs:
            errs.append(invalid(f"{idx}.value", _str(t.get("value")), ";".join(msgs)))
        if not effect:
            errs.append(required(f"{idx}.effect", ""))
        elif effect not in TAINT_EFFECTS:
            errs.append(unsupported(f"{idx}.effect", effect, TAINT_EFFECTS))
        if key in unique.get(effect, ()):
            errs.append(FieldError(idx, "Duplicate value", "taints must be unique by key and effect pair",
                                   GoJSON(t, "Taint"), True))
            continue
        unique.setdefault(effect, set()).add(key)
    return errs


def _node_pod_cidrs(spec: dict) -> list:
    cidrs = _list(spec.get("podCIDRs"))
    if not cidrs and spec.get("podCIDR"):
        cidrs = [spec.get("podCIDR")]
    return cidrs


def validate_node_create(node: dict) -> list[FieldError]:
    meta = _dict(node.get("metadata"))
    spec = _dict(node.get("spec"))
    errs = validate_object_meta(meta, False, name_is_dns_subdomain)
    taints = _list(spec.get("taints"))
    if taints:
        # upstream reports node taints under metadata.taints (validation.go passes the metadata path)
        errs.extend(validate_node_taints(taints, "metadata.taints"))
    errs.extend(_validate_node_resources(node))
    cidrs = _node_pod_cidrs(spec)
    if cidrs:
        errs.extend(_validate_pod_cidrs(cidrs))
    return errs


def _validate_pod_cidrs(cidrs: list) -> list[FieldError]:
    import ipaddress

    errs: list[FieldError] = []
    for i, c in enumerate(cidrs):
        errs.extend(is_valid_cidr(f"spec.podCIDRs[{i}]", _str(c)))
    if len(cidrs) > 1:
        families = []
        for c in cidrs:
            try:
                families.append(ipaddress.ip_network(_str(c), strict=False).version)
            except ValueError:
                families.append(0)
        if len(cidrs) > 2 or len(set(families)) != 2:
            errs.append(invalid("spec.podCIDRs", GoJSON(cidrs), "may specify no more than one CIDR for each IP family"))
        seen: set[str] = set()
        for i, c in enumerate(cidrs):
            if c in seen:
                errs.append(duplicate(f"spec.podCIDRs[{i}]", _str(c)))
            seen.add(c)
    return errs


def _validate_node_resources(node: dict) -> list[FieldError]:
    errs: list[FieldError] = []
    status = _dict(node.get("status"))
    for fld in ("capacity", "allocatable"):
        res = _dict(status.get(fld))
        for name in sorted(res):
            path = f"status.{fld}.{name}"
            q = parse_or_error(res[name], path, errs)
            if q is not None:
                errs.extend(validate_resource_quantity_value(name, q, path))
    return errs


def validate_node_update(new: dict, old: dict) -> list[FieldError]:
    errs = validate_object_meta_update(_dict(new.get("metadata")), _dict(old.get("metadata")))
    errs.extend(_validate_node_resources(new))
    seen: list = []
    for i, a in enumerate(_list(_dict(new.get("status")).get("addresses"))):
        if a in seen:
            errs.append(duplicate(f"status.addresses[{i}]", GoJSON(a, "NodeAddress")))
        seen.append(a)
    ns, os_ = _dict(new.get("spec")), _dict(old.get("spec"))
    old_cidrs, new_cidrs = _node_pod_cidrs(os_), _node_pod_cidrs(ns)
    if old_cidrs:
        msg = "node updates may not change podCIDR except from \"\" to valid"
        if len(old_cidrs) != len(new_cidrs):
            errs.append(forbidden("spec.podCIDRs", msg))
        else:
            for a, b in zip(old_cidrs, new_cidrs):
                if a != b:
                    errs.append(forbidden("spec.podCIDRs", msg))
    if os_.get("providerID") and os_.get("providerID") != ns.get("providerID"):
        errs.append(forbidden("spec.providerID", "node updates may not change providerID except from \"\" to valid"))
    taints = _list(ns.get("taints"))
    if taints:
        errs.extend(validate_node_taints(taints, "metadata.taints"))
    if _str(ns.get("externalID")) != _str(os_.get("externalID")):
        errs.append(forbidden("spec.externalID", "may not be updated"))
    return errs


# ---------------------------------------------------------------------------------------------
# namespaces


def validate_namespace_create(ns: dict) -> list[FieldError]:
    errs = validate_object_meta(_dict(ns.get("metadata")), False, name_is_dns_label)
    for f in _list(_dict(ns.get("spec")).get("finalizers")):
        f = _str(f)
        errs.extend(invalid("spec.finalizers", f, m) for m in is_qualified_name(f))
        errs.extend(validate_kube_finalizer_name(f, "spec.finalizers"))
    return errs


def validate_namespace_update(new: dict, old: dict) -> list[FieldError]:
    return validate_object_meta_update(_dict(new.get("metadata")), _dict(old.get("metadata")))


# ---------------------------------------------------------------------------------------------
# config maps

MAX_CONFIG_MAP_SIZE = 1024 * 1024  # core.MaxSecretSize, which ConfigMaps share


def validate_config_map(cm: dict) -> list[FieldError]:
    """ValidateConfigMap: the name, every key (IsConfigMapKey), a key in both data and
    binaryData, and the total size of the values (binaryData counted decoded)."""
    import base64
    import binascii

    from kubesim.api.content import config_map_key_errors

    errs = validate_object_meta(_dict(cm.get("metadata")), True, name_is_dns_subdomain)
    data, binary = _dict(cm.get("data")), _dict(cm.get("binaryData"))
    total = 0
    for key in sorted(data):
        errs.extend(invalid(f"data[{key}]", key, m) for m in config_map_key_errors(key))
        if key in binary:
            errs.append(invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
        total += len(_str(data[key]).encode())
    for key in sorted(binary):
        errs.extend(invalid(f"binaryData[{key}]", key, m) for m in config_map_key_errors(key))
        try:
            total += len(base64.b64decode(_str(binary[key]), validate=True))
        except (binascii.Error, ValueError):
            pass  # refused when the request is decoded
    if total > MAX_CONFIG_MAP_SIZE:
        errs.append(too_long("[]", MAX_CONFIG_MAP_SIZE))  # the whole object
    return errs


def validate_config_map_update(new: dict, old: dict) -> list[FieldError]:
    """ValidateConfigMapUpdate: an immutable ConfigMap keeps its data, binaryData and immutable."""
    errs = validate_object_meta_update(_dict(new.get("metadata")), _dict(old.get("metadata")))
    if old.get("immutable") is True:
        message = "field is immutable when `immutable` is set"
        if new.get("immutable") is not True:
            errs.append(forbidden("immutable", message))
        if _dict(new.get("data")) != _dict(old.get("data")):
            errs.append(forbidden("data", message))
        if _dict(new.get("binaryData")) != _dict(old.get("binaryData")):
            errs.append(forbidden("binaryData", message))
    return errs + validate_config_map(new)


# ---------------------------------------------------------------------------------------------
# events (core/v1: only legacyValidateEvent applies; events.k8s.io's stricter rules do not)

_EVENT_LIMITS = (("reportingInstance", 128), ("action", 128), ("reason", 128))


def validate_event(ev: dict) -> list[FieldError]:
    """legacyValidateEvent: the namespaces agree, and an event with an eventTime names its
    reporter, action and reason within their limits."""
    meta, involved = _dict(ev.get("metadata")), _dict(ev.get("involvedObject"))
    ns, involved_ns = _str(meta.get("namespace")), _str(involved.get("namespace"))
    errs: list[FieldError] = []
    mismatch = invalid("involvedObject.namespace", involved_ns, "does not match event.namespace")
    if not ev.get("eventTime"):
        if (not involved_ns and ns not in ("", "default")) or (involved_ns and ns != involved_ns):
            errs.append(mismatch)
    else:
        if not involved_ns and ns not in ("default", "kube-system"):
            errs.append(mismatch)
        # core/v1 calls the internal ReportingController reportingComponent, and so do the errors
        controller = _str(ev.get("reportingComponent"))
        if not controller:
            errs.append(required("reportingComponent"))
        errs.extend(invalid("reportingComponent", controller, m) for m in is_qualified_name(controller))
        for field, limit in _EVENT_LIMITS:
            value = _str(ev.get(field))
            if not value:
                errs.append(required(field))
            if len(value) > limit:
                errs.append(invalid(field, "", f"can have at most {limit} characters"))
        if len(_str(ev.get("message"))) > 1024:
            errs.append(invalid("message", "", "can have at most 1024 characters"))
    errs.extend(invalid("namespace", ns, m) for m in name_is_dns_subdomain(ns, False))
    return errs
