"""Validation of PersistentVolumes and PersistentVolumeClaims (core/v1), as their registry
strategies run it.

Written after kubernetes/kubernetes (v1.35) ``pkg/apis/core/validation/validation.go``
(``ValidatePersistentVolume``, ``ValidatePersistentVolumeSpec``, ``validateVolumeNodeAffinity``,
``ValidatePersistentVolumeUpdate``, ``ValidatePersistentVolumeClaim``,
``ValidatePersistentVolumeClaimSpec``, ``ValidatePersistentVolumeClaimUpdate``,
``ValidateClassName``, ``ValidatePositiveQuantityValue``).

Simplified: volume sources are checked for the one-source rule and, for hostPath, local, nfs
and csi, their required fields; other sources are accepted as given. The immutable-spec
messages carry apimachinery's ``diff.Diff`` of the internal types (``kubesim.api.gojson.diff``).
"""

from __future__ import annotations

import copy

from kubesim.api.core.podspec_validation import validate_node_selector_term
from kubesim.api.equality import semantic_equal
from kubesim.api.gojson import GoJSON, diff
from kubesim.api.meta.validation import (
    FIELD_IMMUTABLE_ERROR,
    IS_NOT_POSITIVE_ERROR,
    is_dns1123_subdomain,
    name_is_dns_subdomain,
    validate_label_selector,
    validate_object_meta,
    validate_object_meta_update,
)
from kubesim.api.volumes import ANN_BETA_STORAGE_CLASS
from kubesim.errors import FieldError, forbidden, invalid, required, unsupported

ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]  # sets.List: sorted
PV_RECLAIM_POLICIES = ["Delete", "Recycle", "Retain"]
VOLUME_MODES = ["Block", "Filesystem"]

# the PersistentVolumeSource members, in ValidatePersistentVolumeSpec's order
PV_SOURCES = ("hostPath", "gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "flocker", "nfs", "rbd",
              "quobyte", "cephfs", "iscsi", "cinder", "fc", "flexVolume", "azureFile", "vsphereVolume",
              "photonPersistentDisk", "portworxVolume", "azureDisk", "scaleIO", "local", "storageos", "csi")
# the field path upstream names for the "more than 1 volume type" error (a few differ from the JSON name)
_SOURCE_ERROR_PATH = {"cephfs": "cephFS"}


# ---------------------------------------------------------------------------------------------
# helpers

def _class_name_errors(name: str) -> list[str]:
    return name_is_dns_subdomain(name, False)


def _validate_access_modes(modes, path: str, required_detail: str) -> list[FieldError]:
    errs: list[FieldError] = []
    modes = modes if isinstance(modes, list) else []
    if not modes:
        errs.append(required(path, required_detail))
    rwop = other = False
    for m in modes:
        if m not in ACCESS_MODES:
            errs.append(unsupported(path, m, ACCESS_MODES))
        if m == "ReadWriteOncePod":
            rwop = True
        elif m in ACCESS_MODES:
            other = True
    if rwop and other:
        errs.append(forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errs


def _positive_quantity(value, path: str) -> list[FieldError]:
    """validateBasicResource + ValidatePositiveQuantityValue."""
    from kubesim.api.quantity import from_json

    try:
        q = from_json(value)
    except ValueError as e:
        return [invalid(path, value if isinstance(value, str) else str(value), str(e))]
    if q.value <= 0:
        return [invalid(path, str(q), IS_NOT_POSITIVE_ERROR)]
    return []


def _validate_node_affinity(na, path: str) -> tuple[bool, list[FieldError]]:
    """validateVolumeNodeAffinity: a required node selector with at least one term."""
    if not isinstance(na, dict):
        return False, []
    req = na.get("required")
    if req is None:
        return False, [required(f"{path}.required", "must specify required node constraints")]
    errs: list[FieldError] = []
    terms = (req or {}).get("nodeSelectorTerms") if isinstance(req, dict) else None
    terms = terms if isinstance(terms, list) else []
    if not terms:
        errs.append(required(f"{path}.required.nodeSelectorTerms", "must have at least one node selector term"))
    for i, term in enumerate(terms):
        errs += validate_node_selector_term(term if isinstance(term, dict) else {}, False,
                                             f"{path}.required.nodeSelectorTerms[{i}]")
    return True, errs


def _validate_source(name: str, src, path: str, pv_name: str) -> list[FieldError]:
    src = src if isinstance(src, dict) else {}
    errs: list[FieldError] = []
    if name == "hostPath":
        if not src.get("path"):
            errs.append(required(f"{path}.path", ""))
        else:
            parts = str(src["path"]).split("/")
            if ".." in parts:
                errs.append(invalid(f"{path}.path", src["path"], "must not contain '..'"))
        htype = src.get("type")
        valid = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"]
        if htype is not None and htype not in valid:
            errs.append(unsupported(f"{path}.type", htype, valid))
    elif name == "local":
        if not src.get("path"):
            errs.append(required(f"{path}.path", ""))
        elif ".." in str(src["path"]).split("/"):
            errs.append(invalid(f"{path}.path", src["path"], "must not contain '..'"))
    elif name == "nfs":
        if not src.get("server"):
            errs.append(required(f"{path}.server", ""))
        if not src.get("path"):
            errs.append(required(f"{path}.path", ""))
        elif not str(src["path"]).startswith("/"):
            errs.append(invalid(f"{path}.path", src["path"], "must be an absolute path"))
    elif name == "csi":
        driver = src.get("driver") or ""
        if not driver:
            errs.append(required(f"{path}.driver", ""))
        elif len(driver) > 63:
            errs.append(FieldError(f"{path}.driver", "Too long", "must have at most 63 bytes", driver, False))
        else:
            errs.extend(invalid(f"{path}.driver", driver, m) for m in is_dns1123_subdomain(driver.lower()))
        if not src.get("volumeHandle"):
            errs.append(required(f"{path}.volumeHandle", ""))
    return errs


# ---------------------------------------------------------------------------------------------
# PersistentVolume

def validate_pv_spec(spec: dict, pv_name: str, path: str = "spec") -> list[FieldError]:
    errs = _validate_access_modes(spec.get("accessModes"), f"{path}.accessModes", "")
    cap = spec.get("capacity") if isinstance(spec.get("capacity"), dict) else {}
    if not cap:
        errs.append(required(f"{path}.capacity", ""))
    if "storage" not in cap or len(cap) > 1:
        errs.append(unsupported(f"{path}.capacity", GoJSON(spec.get("capacity"), "map[string]Quantity"), ["storage"]))
    for r in sorted(cap):
        errs += _positive_quantity(cap[r], f"{path}.capacity[{r}]")
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy and policy not in PV_RECLAIM_POLICIES:
        errs.append(unsupported(f"{path}.persistentVolumeReclaimPolicy", policy, PV_RECLAIM_POLICIES))
    affinity_set = False
    if spec.get("nodeAffinity") is not None:
        affinity_set, aerrs = _validate_node_affinity(spec.get("nodeAffinity"), f"{path}.nodeAffinity")
        errs += aerrs
    n = 0
    for name in PV_SOURCES:
        if spec.get(name) is None:
            continue
        if n > 0 and name != "flexVolume":
            errs.append(forbidden(f"{path}.{_SOURCE_ERROR_PATH.get(name, name)}", "may not specify more than 1 volume type"))
            continue
        n += 1
        errs += _validate_source(name, spec.get(name), f"{path}.{name}", pv_name)
        if name == "local" and not affinity_set:
            errs.append(required(f"{path}.nodeAffinity", "Local volume requires node affinity"))
    if n == 0:
        errs.append(required(path, "must specify a volume type"))
    hp = spec.get("hostPath")
    if isinstance(hp, dict) and _clean(str(hp.get("path") or "")) == "/" and policy == "Recycle":
        errs.append(forbidden(f"{path}.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"))
    scn = spec.get("storageClassName")
    if scn:
        errs.extend(invalid(f"{path}.storageClassName", scn, m) for m in _class_name_errors(scn))
    vm = spec.get("volumeMode")
    if vm is not None and vm not in VOLUME_MODES:
        errs.append(unsupported(f"{path}.volumeMode", vm, VOLUME_MODES))
    vac = spec.get("volumeAttributesClassName")
    if vac is not None:
        if vac == "":
            errs.append(required(f"{path}.volumeAttributesClassName", "an empty string is disallowed"))
        else:
            errs.extend(invalid(f"{path}.volumeAttributesClassName", vac, m) for m in _class_name_errors(vac))
        if spec.get("csi") is None:
            errs.append(required(f"{path}.csi", "has to be specified when using volumeAttributesClassName"))
    return errs


def _clean(p: str) -> str:
    import posixpath

    return posixpath.normpath(p) if p else "."


def validate_pv(pv: dict) -> list[FieldError]:
    meta = pv.get("metadata") or {}
    errs = validate_object_meta(meta, False, name_is_dns_subdomain)
    errs += validate_pv_spec(pv.get("spec") or {}, meta.get("name") or "")
    return errs


def _source_of(spec: dict) -> dict:
    return {k: spec.get(k) for k in PV_SOURCES if spec.get(k) is not None}


def validate_pv_update(new: dict, old: dict) -> list[FieldError]:
    errs = validate_pv(new)
    errs += validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    nspec, ospec = new.get("spec") or {}, old.get("spec") or {}
    nsrc, osrc = _source_of(nspec), _source_of(ospec)
    # a CSI volume may gain a controllerExpandSecretRef
    if isinstance(osrc.get("csi"), dict) and isinstance(nsrc.get("csi"), dict) and \
            osrc["csi"].get("controllerExpandSecretRef") is None:
        nsrc = copy.deepcopy(nsrc)
        nsrc["csi"].pop("controllerExpandSecretRef", None)
    if not semantic_equal(nsrc, osrc):
        errs.append(forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after "
                                                             "creation\n" + diff(osrc, nsrc, "PersistentVolumeSource")))
    if nspec.get("volumeMode") != ospec.get("volumeMode"):
        errs.append(invalid("volumeMode", nspec.get("volumeMode"), FIELD_IMMUTABLE_ERROR))
    if ospec.get("nodeAffinity") is not None and not semantic_equal(nspec.get("nodeAffinity"), ospec.get("nodeAffinity")):
        errs.append(invalid("nodeAffinity", GoJSON(nspec.get("nodeAffinity"), "*VolumeNodeAffinity"),
                            FIELD_IMMUTABLE_ERROR + ", except for updating from beta label to GA"))
    if ospec.get("volumeAttributesClassName") is not None and nspec.get("volumeAttributesClassName") is None:
        errs.append(forbidden("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"))
    return errs


# ---------------------------------------------------------------------------------------------
# PersistentVolumeClaim

def validate_pvc_spec(spec: dict, path: str = "spec") -> list[FieldError]:
    errs = _validate_access_modes(spec.get("accessModes"), f"{path}.accessModes", "at least 1 access mode is required")
    # upstream checks the selector right after the (missing) access modes, before their values
    if spec.get("selector") is not None:
        sel_errs = validate_label_selector(spec.get("selector"), f"{path}.selector")
        first_mode_err = next((i for i, e in enumerate(errs) if e.type != "Required value"), len(errs))
        errs = errs[:first_mode_err] + sel_errs + errs[first_mode_err:]
    requests = ((spec.get("resources") or {}).get("requests") or {}) if isinstance(spec.get("resources"), dict) else {}
    rpath = f"{path}.resources[storage]"
    if "storage" not in requests:
        errs.append(required(rpath, ""))
    else:
        errs += _positive_quantity(requests["storage"], rpath)
    scn = spec.get("storageClassName")
    if scn:
        errs.extend(invalid(f"{path}.storageClassName", scn, m) for m in _class_name_errors(scn))
    vm = spec.get("volumeMode")
    if vm is not None and vm not in VOLUME_MODES:
        errs.append(unsupported(f"{path}.volumeMode", vm, VOLUME_MODES))
    for key in ("dataSource", "dataSourceRef"):
        ds = spec.get(key)
        if not isinstance(ds, dict):
            continue
        if not ds.get("name"):
            errs.append(required(f"{path}.{key}.name", ""))
        if not ds.get("kind"):
            errs.append(required(f"{path}.{key}.kind", ""))
        if not ds.get("apiGroup") and ds.get("kind") != "PersistentVolumeClaim":
            errs.append(invalid(f"{path}.{key}", ds.get("kind") or "",
                                "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
    vac = spec.get("volumeAttributesClassName")
    if vac:
        errs.extend(invalid(f"{path}.volumeAttributesClassName", vac, m) for m in _class_name_errors(vac))
    return errs


def validate_pvc(pvc: dict) -> list[FieldError]:
    errs = validate_object_meta(pvc.get("metadata") or {}, True, name_is_dns_subdomain)
    errs += validate_pvc_spec(pvc.get("spec") or {})
    return errs


def validate_pvc_update(new: dict, old: dict) -> list[FieldError]:
    from kubesim.api.quantity import from_json

    errs = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errs += validate_pvc(new)
    nspec = copy.deepcopy(new.get("spec") or {})
    ospec = copy.deepcopy(old.get("spec") or {})
    if not ospec.get("volumeName"):
        if nspec.get("volumeName") is not None:
            ospec["volumeName"] = nspec["volumeName"]
        else:
            ospec.pop("volumeName", None)
    # a claim that had no class (and no beta annotation) may be given one (retroactive default class)
    old_ann = (old.get("metadata") or {}).get("annotations") or {}
    if ospec.get("storageClassName") is None and ANN_BETA_STORAGE_CLASS not in old_ann and \
            nspec.get("storageClassName") is not None:
        ospec["storageClassName"] = nspec["storageClassName"]
    phase = (new.get("status") or {}).get("phase")
    if phase == "Bound" and isinstance((nspec.get("resources") or {}).get("requests"), dict):
        old_req = (ospec.get("resources") or {}).get("requests") or {}
        if "storage" in old_req:
            nspec["resources"]["requests"]["storage"] = old_req["storage"]
        else:
            nspec["resources"]["requests"].pop("storage", None)
    nspec["volumeAttributesClassName"] = ospec.get("volumeAttributesClassName")
    if not semantic_equal(nspec, ospec):
        errs.append(forbidden("spec", "spec is immutable after creation except resources.requests and "
                                      "volumeAttributesClassName for bound claims\n"
                              + diff(ospec, nspec, "PersistentVolumeClaimSpec")))
    try:
        old_size = from_json((((old.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage", 0))
        new_size = from_json((((new.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage", 0))
        status_cap = from_json(((old.get("status") or {}).get("capacity") or {}).get("storage", 0))
    except ValueError:
        old_size = new_size = status_cap = None
    if old_size is not None and new_size.value < old_size.value and new_size.value <= status_cap.value:
        # RecoverVolumeExpansionFailure (GA in v1.34): shrinking is allowed down to above status.capacity
        errs.append(forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"))
    if (new.get("spec") or {}).get("volumeMode") != (old.get("spec") or {}).get("volumeMode"):
        errs.append(invalid("volumeMode", (new.get("spec") or {}).get("volumeMode"), FIELD_IMMUTABLE_ERROR))
    if (old.get("spec") or {}).get("volumeAttributesClassName") is not None:
        nvac = (new.get("spec") or {}).get("volumeAttributesClassName")
        if nvac is None:
            errs.append(forbidden("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"))
        elif nvac == "":
            errs.append(forbidden("spec.volumeAttributesClassName",
                                  "update from non-nil value to an empty string is forbidden"))
    return errs
