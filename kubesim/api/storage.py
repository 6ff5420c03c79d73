"""PersistentVolume, PersistentVolumeClaim (v1), StorageClass and CSINode (storage.k8s.io/v1):
defaulting, the storage admission plugins and validation, as a v1.35 API server applies them.

Upstream (kubernetes/kubernetes):

- ``pkg/apis/core/v1/defaults.go`` (``SetDefaults_PersistentVolume``: reclaim policy ``Retain``,
  volumeMode ``Filesystem``, phase ``Pending``; ``SetDefaults_PersistentVolumeClaim``: volumeMode
  ``Filesystem``, phase ``Pending``; ``SetDefaults_HostPathVolumeSource``: ``type: ""``) and
  ``pkg/apis/storage/v1/defaults.go`` (``SetDefaults_StorageClass``: reclaimPolicy ``Delete``,
  volumeBindingMode ``Immediate``);
- ``pkg/registry/core/persistentvolume/strategy.go`` (``PrepareForCreate``: status reset to
  ``Pending`` with ``lastPhaseTransitionTime``) and ``.../persistentvolumeclaim/strategy.go``;
- ``plugin/pkg/admission/storage/storageclass/setdefault/admission.go`` (DefaultStorageClass: a
  claim without ``storageClassName`` gets the default class; ``pkg/volume/util``
  ``GetDefaultClass``: the newest of several defaults, then the name) and
  ``plugin/pkg/admission/storage/storageobjectinuseprotection/admission.go`` (the
  ``kubernetes.io/pvc-protection`` / ``kubernetes.io/pv-protection`` finalizers on create);
- ``pkg/apis/core/validation/validation.go`` (``ValidatePersistentVolume[Spec|Update]``,
  ``validateVolumeNodeAffinity``, ``ValidatePersistentVolumeClaim[Spec|Update]``,
  ``ValidateClassName``) and ``pkg/apis/storage/validation/validation.go``
  (``ValidateStorageClass[Update]``, ``validateProvisioner``, ``validateParameters``,
  ``validateReclaimPolicy``, ``validateVolumeBindingMode``, ``validateAllowedTopologies``,
  ``ValidateCSINode``).

Simplified: volume sources are checked for the one-source rule and, for hostPath, local, nfs
and csi, their required fields; other sources are accepted as given. The immutable-spec
messages carry kubesim's rendering of go-cmp's diff (see ``kubesim.api.validation``).
"""

from __future__ import annotations

import copy

from kubesim.errors import FieldError, duplicate, forbidden, invalid, required, unsupported

DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
BETA_DEFAULT_CLASS_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class"
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection"
PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection"

ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]  # sets.List: sorted
PV_RECLAIM_POLICIES = ["Delete", "Recycle", "Retain"]
SC_RECLAIM_POLICIES = ["Delete", "Retain"]
VOLUME_MODES = ["Block", "Filesystem"]
BINDING_MODES = ["Immediate", "WaitForFirstConsumer"]

# the PersistentVolumeSource members, in ValidatePersistentVolumeSpec's order
PV_SOURCES = ("hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd",
              "quobyte", "cephfs", "iscsi", "cinder", "fc", "flexVolume", "azureFile", "vsphereVolume",
              "photonPersistentDisk", "portworxVolume", "azureDisk", "scaleIO", "local", "storageos", "csi")
# the field path upstream names for the "more than 1 volume type" error (a few differ from the JSON name)
_SOURCE_ERROR_PATH = {"cephfs": "cephFS"}

MAX_PARAMETERS = 512
MAX_PARAMETERS_SIZE = 256 * 1024


def is_default_class(sc: dict) -> bool:
    """storageutil.IsDefaultAnnotation: either annotation set to "true"."""
    ann = (sc.get("metadata") or {}).get("annotations") or {}
    return ann.get(DEFAULT_CLASS_ANNOTATION) == "true" or ann.get(BETA_DEFAULT_CLASS_ANNOTATION) == "true"


def default_class(classes: list[dict]) -> dict | None:
    """GetDefaultClass: of the classes marked default, the newest (then by name)."""
    defaults = [c for c in classes if is_default_class(c)]
    if not defaults:
        return None
    defaults.sort(key=lambda c: (c["metadata"].get("name", "")))
    defaults.sort(key=lambda c: c["metadata"].get("creationTimestamp") or "", reverse=True)
    return defaults[0]


# ---------------------------------------------------------------------------------------------
# defaulting and admission

def _canonical_quantities(rl) -> None:
    from kubesim.api.defaults import _resource_list

    if isinstance(rl, dict):
        _resource_list(rl)


def _add_finalizer(obj: dict, name: str) -> None:
    md = obj.setdefault("metadata", {})
    fins = md.get("finalizers")
    if not isinstance(fins, list):
        fins = []
    if name not in fins:
        fins.append(name)
    md["finalizers"] = fins


def _pv_scheme_defaults(pv: dict) -> None:
    spec = pv.get("spec")
    if not isinstance(spec, dict):
        spec = pv["spec"] = {}
    if not spec.get("persistentVolumeReclaimPolicy"):
        spec["persistentVolumeReclaimPolicy"] = "Retain"
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    hp = spec.get("hostPath")
    if isinstance(hp, dict) and hp.get("type") is None:
        hp["type"] = ""
    _canonical_quantities(spec.get("capacity"))


def default_pv(pv: dict, now: str | None) -> None:
    _pv_scheme_defaults(pv)
    _add_finalizer(pv, PV_PROTECTION_FINALIZER)
    status = {"phase": "Pending"}
    if now:
        status["lastPhaseTransitionTime"] = now
    pv["status"] = status


def _pvc_scheme_defaults(pvc: dict) -> None:
    spec = pvc.get("spec")
    if not isinstance(spec, dict):
        spec = pvc["spec"] = {}
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    res = spec.get("resources")
    if isinstance(res, dict):
        _canonical_quantities(res.get("requests"))
        _canonical_quantities(res.get("limits"))


def default_pvc(pvc: dict, storage_classes: list[dict] | None) -> None:
    _pvc_scheme_defaults(pvc)
    spec = pvc["spec"]
    # DefaultStorageClass: only a claim that names no class (nil, not "") and no beta annotation
    ann = (pvc.get("metadata") or {}).get("annotations") or {}
    if spec.get("storageClassName") is None and BETA_STORAGE_CLASS_ANNOTATION not in ann:
        dc = default_class(storage_classes or [])
        if dc is not None:
            spec["storageClassName"] = dc["metadata"]["name"]
    _add_finalizer(pvc, PVC_PROTECTION_FINALIZER)
    pvc["status"] = {"phase": "Pending"}


def default_storage_class(sc: dict) -> None:
    if not sc.get("reclaimPolicy"):
        sc["reclaimPolicy"] = "Delete"
    if not sc.get("volumeBindingMode"):
        sc["volumeBindingMode"] = "Immediate"


def default_update(new: dict, old: dict) -> None:
    """Scheme defaults of an update (status is the status subresource's: kept by the caller)."""
    kind = new.get("kind")
    if kind == "PersistentVolume":
        _pv_scheme_defaults(new)
    elif kind == "PersistentVolumeClaim":
        _pvc_scheme_defaults(new)
    elif kind == "StorageClass":
        default_storage_class(new)
    if "status" in old:
        new["status"] = copy.deepcopy(old["status"])


# ---------------------------------------------------------------------------------------------
# StorageClass

def _validate_provisioner(prov, path: str) -> list[FieldError]:
    from kubesim.api.meta.validation import is_qualified_name

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
    from kubesim.api.meta.validation import is_valid_label_value, validate_label_name

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
    from kubesim.api.meta.validation import name_is_dns_subdomain, validate_object_meta

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
    from kubesim.api.meta.validation import FIELD_IMMUTABLE_ERROR, validate_object_meta_update

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
    from kubesim.api.meta.validation import name_is_dns_subdomain, validate_object_meta

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
            from kubesim.api.meta.validation import IS_NEGATIVE_ERROR

            errs.append(invalid(f"{path}.allocatable.count", count, IS_NEGATIVE_ERROR))
    return errs


def validate_csinode_update(new: dict, old: dict) -> list[FieldError]:
    from kubesim.api.meta.validation import validate_object_meta_update

    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errs += validate_csinode(new)
    return [e for e in errs if not e.field.startswith("metadata.name")]


from kubesim.api.core.persistentvolume_validation import (validate_pv, validate_pv_update,  # noqa: E402
                                                          validate_pvc, validate_pvc_update)

VALIDATORS = {
    "PersistentVolume": (validate_pv, validate_pv_update),
    "PersistentVolumeClaim": (validate_pvc, validate_pvc_update),
    "StorageClass": (validate_storage_class, validate_storage_class_update),
    "CSINode": (validate_csinode, validate_csinode_update),
}
