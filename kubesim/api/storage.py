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
# validation helpers

def _class_name_errors(name: str) -> list[str]:
    from kubesim.api.meta.validation import name_is_dns_subdomain

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
    from kubesim.api.meta.validation import IS_NOT_POSITIVE_ERROR

    try:
        q = from_json(value)
    except ValueError as e:
        return [invalid(path, value if isinstance(value, str) else str(value), str(e))]
    if q.value <= 0:
        return [invalid(path, str(q), IS_NOT_POSITIVE_ERROR)]
    return []


def _go_resource_list(rl: dict):
    from kubesim.api.gofmt import GoValue

    parts = ", ".join(f'"{k}":{rl[k]}' for k in sorted(rl))
    return GoValue("core.ResourceList{" + parts + "}")


def _validate_node_affinity(na, path: str) -> tuple[bool, list[FieldError]]:
    """validateVolumeNodeAffinity: a required node selector with at least one term."""
    from kubesim.api.validation import _validate_node_selector_term

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
        errs += _validate_node_selector_term(term if isinstance(term, dict) else {}, False,
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
        from kubesim.api.meta.validation import is_dns1123_subdomain

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
        errs.append(unsupported(f"{path}.capacity", _go_resource_list(cap), ["storage"]))
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
    from kubesim.api.meta.validation import name_is_dns_subdomain, validate_object_meta

    meta = pv.get("metadata") or {}
    errs = validate_object_meta(meta, False, name_is_dns_subdomain)
    errs += validate_pv_spec(pv.get("spec") or {}, meta.get("name") or "")
    return errs


def _source_of(spec: dict) -> dict:
    return {k: spec.get(k) for k in PV_SOURCES if spec.get(k) is not None}


def _diff(type_name: str, old, new) -> str:
    from kubesim.api.equality import cmp_diff

    return cmp_diff(old, new, type_name)


def validate_pv_update(new: dict, old: dict) -> list[FieldError]:
    from kubesim.api.equality import semantic_equal
    from kubesim.api.meta.validation import FIELD_IMMUTABLE_ERROR, validate_object_meta_update

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
                                                             "creation\n" + _diff("core.PersistentVolumeSource", osrc, nsrc)))
    if nspec.get("volumeMode") != ospec.get("volumeMode"):
        errs.append(invalid("volumeMode", nspec.get("volumeMode"), FIELD_IMMUTABLE_ERROR))
    if ospec.get("nodeAffinity") is not None and not semantic_equal(nspec.get("nodeAffinity"), ospec.get("nodeAffinity")):
        errs.append(invalid("nodeAffinity", _go_node_affinity(nspec.get("nodeAffinity")), FIELD_IMMUTABLE_ERROR))
    if ospec.get("volumeAttributesClassName") is not None and nspec.get("volumeAttributesClassName") is None:
        errs.append(forbidden("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"))
    return errs


def _go_node_affinity(na):
    from kubesim.api.gofmt import GoValue

    return GoValue("null" if na is None else "core.VolumeNodeAffinity{Required:(*core.NodeSelector)(0xc000a1c050)}")


# ---------------------------------------------------------------------------------------------
# PersistentVolumeClaim

def validate_pvc_spec(spec: dict, path: str = "spec") -> list[FieldError]:
    from kubesim.api.meta.validation import validate_label_selector

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
    from kubesim.api.meta.validation import name_is_dns_subdomain, validate_object_meta

    errs = validate_object_meta(pvc.get("metadata") or {}, True, name_is_dns_subdomain)
    errs += validate_pvc_spec(pvc.get("spec") or {})
    return errs


def validate_pvc_update(new: dict, old: dict) -> list[FieldError]:
    from kubesim.api.quantity import from_json
    from kubesim.api.equality import semantic_equal
    from kubesim.api.meta.validation import FIELD_IMMUTABLE_ERROR, validate_object_meta_update

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
    if ospec.get("storageClassName") is None and BETA_STORAGE_CLASS_ANNOTATION not in old_ann and \
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
                              + _diff("core.PersistentVolumeClaimSpec", ospec, nspec)))
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


VALIDATORS = {
    "PersistentVolume": (validate_pv, validate_pv_update),
    "PersistentVolumeClaim": (validate_pvc, validate_pvc_update),
    "StorageClass": (validate_storage_class, validate_storage_class_update),
    "CSINode": (validate_csinode, validate_csinode_update),
}
