"""PersistentVolume / PersistentVolumeClaim matching: the rules the PV controller and the
scheduler's VolumeBinding plugin share, in one place.

Upstream: staging/src/k8s.io/component-helpers/storage/volume/pv_helpers.go (``FindMatchingVolume``,
``CheckVolumeModeMismatches``, ``CheckAccessModes``, ``IsVolumeBoundToClaim``,
``GetBindVolumeToClaim``, ``IsDelayBindingMode``, the ``pv.kubernetes.io/...`` annotation names),
staging/src/k8s.io/component-helpers/storage/volume/helpers.go (``CheckNodeAffinity``,
``GetPersistentVolumeClaimClass``, ``GetPersistentVolumeClass``),
pkg/controller/volume/persistentvolume/index.go (``findByClaim``: volumes grouped by their set of
access modes, the sets that contain every requested mode tried fewest-modes first) and
pkg/apis/core/v1/helper/helpers.go (``GetAccessModesAsString``, ``MatchTopologySelectorTerms``).

Objects are the JSON-shaped dicts as stored. Pure functions; nothing here reads the store.
"""

from __future__ import annotations

from fractions import Fraction

from kubesim.api import quantity, selectors

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_DYNAMICALLY_PROVISIONED = "pv.kubernetes.io/provisioned-by"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
ANN_BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection"
PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection"

WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"

# GetAccessModesAsString's fixed order and short names
ACCESS_MODE_ORDER = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                     ("ReadWriteOncePod", "RWOP"))


def _md(obj: dict) -> dict:
    return obj.get("metadata") or {}


def _spec(obj: dict) -> dict:
    return obj.get("spec") or {}


def annotations(obj: dict) -> dict:
    return _md(obj).get("annotations") or {}


def claim_key(claim: dict) -> str:
    return f'{_md(claim).get("namespace", "")}/{_md(claim).get("name", "")}'


def claim_class(claim: dict) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation wins, then spec.storageClassName."""
    ann = annotations(claim)
    if ANN_BETA_STORAGE_CLASS in ann:
        return ann[ANN_BETA_STORAGE_CLASS]
    return _spec(claim).get("storageClassName") or ""


def volume_class(pv: dict) -> str:
    """GetPersistentVolumeClass."""
    ann = annotations(pv)
    if ANN_BETA_STORAGE_CLASS in ann:
        return ann[ANN_BETA_STORAGE_CLASS]
    return _spec(pv).get("storageClassName") or ""


def requested_storage(claim: dict) -> Fraction:
    req = ((_spec(claim).get("resources") or {}).get("requests") or {}).get("storage")
    return quantity.parse_quantity(req) if req is not None else Fraction(0)


def requested_storage_text(claim: dict) -> str | None:
    return ((_spec(claim).get("resources") or {}).get("requests") or {}).get("storage")


def volume_capacity(pv: dict) -> Fraction:
    cap = (_spec(pv).get("capacity") or {}).get("storage")
    return quantity.parse_quantity(cap) if cap is not None else Fraction(0)


def access_modes_string(modes) -> str:
    """GetAccessModesAsString: the short names in a fixed order, comma-separated."""
    modes = set(modes or ())
    return ",".join(short for long, short in ACCESS_MODE_ORDER if long in modes)


def check_access_modes(claim: dict, pv: dict) -> bool:
    """CheckAccessModes: the PV offers every mode the claim asks for."""
    have = set(_spec(pv).get("accessModes") or ())
    return all(m in have for m in _spec(claim).get("accessModes") or ())


def volume_mode_mismatch(claim: dict, pv: dict) -> bool:
    """CheckVolumeModeMismatches (an unset mode is Filesystem)."""
    return (_spec(claim).get("volumeMode") or "Filesystem") != (_spec(pv).get("volumeMode") or "Filesystem")


def is_volume_bound_to_claim(pv: dict, claim: dict) -> bool:
    """IsVolumeBoundToClaim: claimRef names the claim (and, when it has a uid, the same uid)."""
    ref = _spec(pv).get("claimRef")
    if not ref:
        return False
    md = _md(claim)
    if ref.get("name") != md.get("name") or (ref.get("namespace") or "") != (md.get("namespace") or ""):
        return False
    return not ref.get("uid") or ref.get("uid") == md.get("uid")


def check_node_affinity(pv: dict, node_labels: dict | None) -> str | None:
    """CheckNodeAffinity: None when the PV's required node affinity admits a node with these
    labels, else the error text."""
    na = _spec(pv).get("nodeAffinity")
    if not na or na.get("required") is None:
        return None
    if selectors.node_selector_matches(na["required"], node_labels or {}, None):
        return None
    return "no matching NodeSelectorTerms"


def _claim_selector(claim: dict):
    sel = _spec(claim).get("selector")
    if sel is None:
        return None
    return selectors.from_label_selector(sel)


def find_matching_volume(claim: dict, volumes, node: dict | None = None,
                         excluded: set[str] | dict | None = None,
                         delay_binding: bool = False) -> dict | None:
    """FindMatchingVolume: a volume pre-bound to the claim (returned at once), else the smallest
    Available volume of the claim's class (and VolumeAttributesClass, GA since v1.34) that is
    big enough, of the same volumeMode, matching the claim's selector, not being deleted; with ``node`` (the scheduler's path) its node
    affinity must admit the node and its access modes cover the claim's. With
    ``delay_binding`` and no node (the PV controller for a WaitForFirstConsumer claim) only a
    pre-bound volume is returned."""
    excluded = excluded or ()
    requested = requested_storage(claim)
    requested_class = claim_class(claim)
    requested_vac = _spec(claim).get("volumeAttributesClassName") or ""
    selector = _claim_selector(claim)
    node_labels = _md(node).get("labels") or {} if node is not None else None
    smallest = None
    smallest_qty = None
    for pv in volumes:
        name = _md(pv).get("name", "")
        if name in excluded:
            continue
        ref = _spec(pv).get("claimRef")
        bound_to_claim = is_volume_bound_to_claim(pv, claim)
        if ref and not bound_to_claim:
            continue
        qty = volume_capacity(pv)
        if qty < requested:
            continue
        if volume_mode_mismatch(claim, pv):
            continue
        if _md(pv).get("deletionTimestamp"):
            continue
        affinity_ok = True
        if node is not None:
            affinity_ok = check_node_affinity(pv, node_labels) is None
        if bound_to_claim:
            return pv if affinity_ok else None
        if node is None and delay_binding:
            continue
        if ((pv.get("status") or {}).get("phase") or "Pending") != "Available":
            continue
        if selector is not None and not selector.matches(_md(pv).get("labels") or {}):
            continue
        if volume_class(pv) != requested_class:
            continue
        if (_spec(pv).get("volumeAttributesClassName") or "") != requested_vac:
            continue
        if not affinity_ok:
            continue
        if node is not None and not check_access_modes(claim, pv):
            continue
        if smallest is None or smallest_qty > qty:
            smallest, smallest_qty = pv, qty
    return smallest


def find_best_match_for_claim(claim: dict, volumes, delay_binding: bool = False) -> dict | None:
    """The PV controller's ``findBestMatchForClaim`` (index.go findByClaim): volumes grouped by
    their access-mode set; the sets containing every requested mode are tried with the fewest
    modes first (then by name, for a stable order), the first match wins."""
    groups: dict[str, list[dict]] = {}
    for pv in volumes:
        groups.setdefault(access_modes_string(_spec(pv).get("accessModes")), []).append(pv)
    requested = set(_spec(claim).get("accessModes") or ())
    keys = []
    for key in groups:
        modes = {long for long, short in ACCESS_MODE_ORDER if short in key.split(",")}
        if requested <= modes:
            keys.append((len(modes), key))
    for _, key in sorted(keys):
        pv = find_matching_volume(claim, groups[key], None, None, delay_binding)
        if pv is not None:
            return pv
    return None


def claim_reference(claim: dict) -> dict:
    """reference.GetReference for a claim: the ObjectReference a PV's claimRef holds."""
    md = _md(claim)
    ref = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": md.get("name", ""),
           "namespace": md.get("namespace", "")}
    if md.get("resourceVersion"):
        ref["resourceVersion"] = str(md["resourceVersion"])
    if md.get("uid"):
        ref["uid"] = md["uid"]
    return ref


def bind_volume_to_claim(pv: dict, claim: dict) -> tuple[dict, bool]:
    """GetBindVolumeToClaim: a copy of ``pv`` with claimRef naming the claim and, unless the user
    pre-bound it, ``pv.kubernetes.io/bound-by-controller: "yes"``; and whether anything changed."""
    import copy

    set_by_controller = not is_volume_bound_to_claim(pv, claim)
    new = copy.deepcopy(pv)
    dirty = False
    ref = _spec(pv).get("claimRef") or {}
    md = _md(claim)
    if not ref or ref.get("name") != md.get("name") or ref.get("namespace") != md.get("namespace") \
            or ref.get("uid") != md.get("uid"):
        new.setdefault("spec", {})["claimRef"] = claim_reference(claim)
        dirty = True
    if set_by_controller and ANN_BOUND_BY_CONTROLLER not in annotations(new):
        new.setdefault("metadata", {}).setdefault("annotations", {})[ANN_BOUND_BY_CONTROLLER] = "yes"
        dirty = True
    return new, dirty


def is_delay_binding_mode(claim: dict, get_class) -> bool:
    """IsDelayBindingMode: the claim's StorageClass (``get_class(name)``) binds
    WaitForFirstConsumer. No class, or a class that does not exist, is Immediate."""
    name = claim_class(claim)
    if not name:
        return False
    sc = get_class(name)
    if sc is None:
        return False
    return (sc.get("volumeBindingMode") or "Immediate") == WAIT_FOR_FIRST_CONSUMER


def is_pvc_fully_bound(claim: dict) -> bool:
    """isPVCFullyBound: spec.volumeName set and the bind-completed annotation present."""
    return bool(_spec(claim).get("volumeName")) and ANN_BIND_COMPLETED in annotations(claim)


def ephemeral_claim_name(pod: dict, volume: dict) -> str:
    """ephemeral.VolumeClaimName: a generic ephemeral volume's claim is ``<pod>-<volume>``."""
    return f'{_md(pod).get("name", "")}-{volume.get("name", "")}'


def pod_claims(pod: dict) -> list[tuple[dict, str, bool]]:
    """(volume, claim name, is ephemeral) for each of the pod's volumes backed by a claim: a
    persistentVolumeClaim source, or a generic ephemeral volume."""
    out = []
    for v in _spec(pod).get("volumes") or ():
        if not isinstance(v, dict):
            continue
        if v.get("persistentVolumeClaim"):
            out.append((v, v["persistentVolumeClaim"].get("claimName", ""), False))
        elif v.get("ephemeral"):
            out.append((v, ephemeral_claim_name(pod, v), True))
    return out


def pod_uses_claim(pod: dict, claim: dict) -> bool:
    """Whether one of the pod's volumes is backed by ``claim`` (same namespace; a
    persistentVolumeClaim source or a generic ephemeral volume's claim): the volume plugins'
    queueing hints for a claim event."""
    md = _md(claim)
    if md.get("namespace") != _md(pod).get("namespace"):
        return False
    for v in _spec(pod).get("volumes") or ():  # (a source that is set, even empty, as Go's != nil)
        if v.get("persistentVolumeClaim") is not None:
            name = v["persistentVolumeClaim"].get("claimName")
        elif v.get("ephemeral") is not None:
            name = ephemeral_claim_name(pod, v)
        else:
            continue
        if name == md.get("name"):
            return True
    return False


def pod_claim_names(pod: dict) -> list[tuple[str, str]]:
    """(volume name, claim name) for each of the pod's volumes backed by a claim."""
    return [(v.get("name", ""), claim) for v, claim, _ in pod_claims(pod)]


def volume_is_for_pod(pod: dict, claim: dict) -> str | None:
    """ephemeral.VolumeIsForPod: None when the pod controls the claim (same namespace, its
    controller owner reference has the pod's uid), else the error upstream reports."""
    pmd, cmd = _md(pod), _md(claim)
    if cmd.get("namespace", "") == pmd.get("namespace", "") and any(
            r.get("controller") and r.get("uid") == pmd.get("uid") for r in cmd.get("ownerReferences") or ()):
        return None
    return (f'PVC {cmd.get("namespace", "")}/{cmd.get("name", "")} was not created for pod '
            f'{pmd.get("namespace", "")}/{pmd.get("name", "")} (pod is not owner)')


def match_topology_selector_terms(terms, labels: dict | None) -> bool:
    """MatchTopologySelectorTerms (StorageClass.allowedTopologies): no terms match everything;
    otherwise some term whose every matchLabelExpressions entry has the label with one of the
    values."""
    if not terms:
        return True
    labels = labels or {}
    for term in terms:
        exprs = term.get("matchLabelExpressions") or ()
        if all(labels.get(e.get("key")) in (e.get("values") or ()) for e in exprs):
            return True
    return False


# Well-known topology labels (VolumeZone); the beta ones are still honoured.
ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
