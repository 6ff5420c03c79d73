"""Defaulting and mutating admission, as the API server applies them to a new object.

What a v1.35 API server does to a Pod/Node/Namespace between decoding a create request and
storing it, in upstream's order (kubernetes/kubernetes):

1. scheme defaulting at decode time - ``pkg/apis/core/v1/defaults.go`` (``SetDefaults_Pod``,
   ``SetDefaults_PodSpec``, ``SetDefaults_Container``, ``SetDefaults_Probe``, ``SetDefaults_Volume``,
   volume-source ``defaultMode``s, ``SetDefaults_ResourceList``, ``SetDefaults_NodeStatus``,
   ``SetDefaults_Namespace``...) and the declarative ``+default`` markers of
   ``k8s.io/api/core/v1/types.go`` (container port protocol ``TCP``);
2. mutating admission, default plugin order (``pkg/kubeapiserver/options/plugins.go``):
   ``ServiceAccount`` (``plugin/pkg/admission/serviceaccount/admission.go``: ``serviceAccountName:
   default`` and the projected ``kube-api-access-xxxxx`` token volume mounted in every container),
   ``TaintNodesByCondition`` (``plugin/pkg/admission/nodetaint``: new nodes get
   ``node.kubernetes.io/not-ready:NoSchedule``; the node lifecycle controller removes it once the
   node is Ready), ``Priority`` (``plugin/pkg/admission/priority/admission.go``),
   ``DefaultTolerationSeconds`` (``plugin/pkg/admission/defaulttolerationseconds``);
3. the registry strategy's ``PrepareForCreate``/``Canonicalize`` and ``rest.BeforeCreate``
   (``pkg/registry/core/pod/strategy.go``: generation 1, status ``Pending`` with its QoS class,
   the SchedulingGated condition, matchLabelKeys merged into selectors;
   ``pkg/registry/core/namespace/strategy.go``: the ``kubernetes`` finalizer, phase ``Active``,
   the ``kubernetes.io/metadata.name`` label; cluster-scoped objects lose ``metadata.namespace``;
   ``generateName`` becomes a name).

Then come validation (``kubesim.api.validation``) and storage. The store, not this module, sets
``uid``, ``creationTimestamp`` and ``resourceVersion``. Quantities are rewritten in the form the
server stores them (``cpu: 1`` -> ``"1"``, ``0.5`` -> ``500m``, ``1024Mi`` -> ``1Gi``).

Random suffixes (the token volume's, generated names) come from the ``rng`` argument
(``random.Random``), so a seeded generator gives repeatable objects. Adding a kind is one entry
in ``DEFAULTERS``.

Not modelled: ServiceAccount objects (the pod's service account is assumed to exist and to allow
automounting), LimitRanger, PodSecurity, pod-level ``spec.resources`` defaulting.
"""

from __future__ import annotations

import re

from kubesim.api.names import generate_name
from kubesim.errors import Forbidden

DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
DEFAULT_SCHEDULER_NAME = "default-scheduler"
TERMINATION_MESSAGE_PATH = "/dev/termination-log"
TOKEN_VOLUME_PREFIX = "kube-api-access-"
TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_EXPIRATION_SECONDS = 3607  # serviceaccount.WarnOnlyBoundTokenExpirationSeconds
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
DEFAULT_TOLERATION_SECONDS = 300
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
METADATA_NAME_LABEL = "kubernetes.io/metadata.name"

# PriorityClasses every cluster has (pkg/apis/scheduling SystemPriorityClasses).
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": {"value": 2000001000, "preemptionPolicy": "PreemptLowerPriority"},
    "system-cluster-critical": {"value": 2000000000, "preemptionPolicy": "PreemptLowerPriority"},
}


def apply_defaults(obj: dict, *, rng=None, priority_classes=None, lister=None, now: str | None = None) -> None:
    """Default and admit ``obj`` in place, as the API server does on create.

    ``priority_classes`` maps PriorityClass names to PriorityClass objects (or dicts with
    ``value``, ``globalDefault``, ``preemptionPolicy``); the two system classes are always known.
    ``lister(kind)`` returns the stored objects of a cluster-scoped kind, for the admission
    plugins that read them (Priority: the stored PriorityClasses, when ``priority_classes`` is
    not given; DefaultStorageClass: the StorageClasses); it is called only when needed. ``now``
    (RFC 3339) stamps a new PersistentVolume's ``lastPhaseTransitionTime``.
    Raises ``kubesim.errors.Forbidden`` where admission refuses the object (unknown
    priorityClassName, a spec.priority that contradicts it)."""
    kind = obj.get("kind", "")
    if kind in _APPS_KINDS:
        from kubesim.api import apps

        apps.DEFAULTERS[kind](obj)
        return
    if kind not in _GROUP_KINDS and kind not in DEFAULTERS:
        return
    if rng is None:
        import random

        rng = random.Random()
    if kind in _GROUP_KINDS:
        _default_group_kind(obj, kind, rng, lister, now)
        return
    fn = DEFAULTERS[kind]
    if kind == "Pod" and priority_classes is None and lister is not None and _needs_priority_classes(obj):
        priority_classes = {pc["metadata"]["name"]: pc for pc in lister("PriorityClass")}
    fn(obj, rng, priority_classes)


def _needs_priority_classes(pod: dict) -> bool:
    """A pod naming a system class resolves without the store; any other pod needs the stored
    classes (its class, or the globalDefault one)."""
    name = (pod.get("spec") or {}).get("priorityClassName") if isinstance(pod.get("spec"), dict) else None
    return name not in SYSTEM_PRIORITY_CLASSES


def _default_group_kind(obj: dict, kind: str, rng, lister, now: str | None) -> None:
    """PriorityClass, PodDisruptionBudget, PersistentVolume(Claim), StorageClass, CSINode."""
    _before_create(obj, rng, namespaced=kind in ("PodDisruptionBudget", "PersistentVolumeClaim"))
    if kind == "PriorityClass":
        from kubesim.api import scheduling

        scheduling.default_priority_class(obj)
    elif kind == "PodDisruptionBudget":
        from kubesim.api import policy

        policy.default_pdb(obj)
    elif kind == "PersistentVolume":
        from kubesim.api import storage

        storage.default_pv(obj, now)
    elif kind == "PersistentVolumeClaim":
        from kubesim.api import storage

        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        needs = spec.get("storageClassName") is None and lister is not None
        storage.default_pvc(obj, lister("StorageClass") if needs else None)
    elif kind == "StorageClass":
        from kubesim.api import storage

        storage.default_storage_class(obj)


def validating_admission(obj: dict, old: dict | None, lister) -> None:
    """The validating admission plugins that read other objects, after validation: Priority's
    check that only one PriorityClass is the global default. Raises ``Forbidden``."""
    if obj.get("kind") == "PriorityClass" and obj.get("globalDefault") and lister is not None:
        from kubesim.api import scheduling

        name = (obj.get("metadata") or {}).get("name")
        others = [pc for pc in lister("PriorityClass") if pc["metadata"].get("name") != name or old is not None]
        scheduling.admit_priority_class(obj, old, others)


def check_delete(kind: str, name: str) -> None:
    """What the REST storage refuses to delete: the system PriorityClasses."""
    if kind == "PriorityClass":
        from kubesim.api import scheduling

        scheduling.check_delete(name)


def apply_update_defaults(new: dict, old: dict) -> None:
    """Defaulting and the admission/strategy steps that run on an update of ``old`` to ``new``."""
    kind = new.get("kind", "")
    if kind in _APPS_KINDS:
        from kubesim.api import apps

        apps.default_update(new, old)
        return
    if kind == "PriorityClass":
        from kubesim.api import scheduling

        scheduling.default_priority_class_update(new, old)
        return
    if kind == "PodDisruptionBudget":
        from kubesim.api import policy

        policy.default_pdb_update(new, old)
        return
    if kind in ("PersistentVolume", "PersistentVolumeClaim", "StorageClass"):
        from kubesim.api import storage

        storage.default_update(new, old)
        return
    if kind == "Pod":
        default_pod_schema(new)
        spec, old_spec = new.setdefault("spec", {}), old.get("spec") or {}
        for key in ("priority", "preemptionPolicy"):
            if spec.get(key) is None and old_spec.get(key) is not None:
                spec[key] = old_spec[key]
        admit_default_toleration_seconds(new)
        new["status"] = _deepcopy(old.get("status") or {})
        meta, old_meta = new.setdefault("metadata", {}), old.get("metadata") or {}
        generation = old_meta.get("generation") or 0
        from kubesim.api.equality import semantic_equal

        meta["generation"] = generation if semantic_equal(spec, old_spec) else generation + 1
    elif kind == "Node":
        default_node_schema(new)
    elif kind == "Namespace":
        new.setdefault("spec", {})["finalizers"] = list((old.get("spec") or {}).get("finalizers") or [])
        new["status"] = _deepcopy(old.get("status") or {})
        _namespace_label(new)


# ---------------------------------------------------------------------------------------------
# shared


def _before_create(obj: dict, rng, namespaced: bool) -> None:
    meta = obj.setdefault("metadata", {})
    if not namespaced:
        meta.pop("namespace", None)
    meta.pop("deletionTimestamp", None)
    meta.pop("deletionGracePeriodSeconds", None)
    if meta.get("generateName") and not meta.get("name"):
        meta["name"] = generate_name(meta["generateName"], rng)


def _deepcopy(v):
    import copy

    return copy.deepcopy(v)


def _resource_list(rl: dict | None) -> None:
    """SetDefaults_ResourceList: round up to milli scale and store the canonical string."""
    if not isinstance(rl, dict):
        return
    from kubesim.api.quantity import round_up_milli

    for k, v in list(rl.items()):
        try:
            rl[k] = round_up_milli(v)
        except ValueError:
            pass  # left for validation to report


# ---------------------------------------------------------------------------------------------
# pods


_TAG_RE = re.compile(r"^[\w][\w.-]{0,127}\Z")
_COMPONENT_RE = re.compile(r"^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*\Z")
_DOMAIN_RE = re.compile(r"^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*"
                        r"|\[[0-9a-fA-F:]+\])(?::[0-9]+)?\Z")
_DIGEST_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}\Z")


def image_tag(image: str) -> str | None:
    """The tag parsers.ParseImageName finds: ``latest`` when there is neither tag nor digest,
    ``""`` for a digest-only reference, None when the reference does not parse."""
    name, at, digest = image.partition("@")
    if at and not _DIGEST_RE.match(digest):
        return None
    tag = ""
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = name.rsplit(":", 1)
        if not _TAG_RE.match(tag):
            return None
    parts = name.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost" or parts[0] != parts[0].lower()):
        if not _DOMAIN_RE.match(parts[0]):
            return None
        parts = parts[1:]
    if not parts or not all(_COMPONENT_RE.match(p) for p in parts) or len(name) > 255:
        return None
    if not tag and not at:
        return "latest"
    return tag


def default_container(c: dict) -> None:
    """SetDefaults_Container plus the generated defaulters for its members."""
    if not c.get("imagePullPolicy"):
        tag = image_tag(c.get("image") or "")
        c["imagePullPolicy"] = "Always" if tag == "latest" else "IfNotPresent"
    if not c.get("terminationMessagePath"):
        c["terminationMessagePath"] = TERMINATION_MESSAGE_PATH
    if not c.get("terminationMessagePolicy"):
        c["terminationMessagePolicy"] = "File"
    for p in c.get("ports") or ():
        if isinstance(p, dict) and not p.get("protocol"):
            p["protocol"] = "TCP"
    for ev in c.get("env") or ():
        fr = ((ev or {}).get("valueFrom") or {}).get("fieldRef") if isinstance(ev, dict) else None
        if isinstance(fr, dict) and not fr.get("apiVersion"):
            fr["apiVersion"] = "v1"
    res = c.get("resources")
    if not isinstance(res, dict):
        res = c["resources"] = {}
    _resource_list(res.get("limits"))
    _resource_list(res.get("requests"))
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        _default_probe(c.get(probe))
    lc = c.get("lifecycle")
    if isinstance(lc, dict):
        for hook in ("postStart", "preStop"):
            h = lc.get(hook)
            if isinstance(h, dict):
                _default_http_get(h.get("httpGet"))


def _default_probe(probe) -> None:
    if not isinstance(probe, dict):
        return
    for fld, val in (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3)):
        if not probe.get(fld):
            probe[fld] = val
    _default_http_get(probe.get("httpGet"))


def _default_http_get(h) -> None:
    if isinstance(h, dict):
        if not h.get("path"):
            h["path"] = "/"
        if not h.get("scheme"):
            h["scheme"] = "HTTP"


_VOLUME_SOURCE_KEYS = (
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte", "downwardAPI", "fc",
    "flexVolume", "configMap", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume", "azureDisk",
    "storageos", "projected", "scaleIO", "csi", "ephemeral", "image",
)


def _default_volume(v: dict) -> None:
    if not any(v.get(k) is not None for k in _VOLUME_SOURCE_KEYS):
        v["emptyDir"] = {}
    for key in ("secret", "configMap", "downwardAPI", "projected"):
        src = v.get(key)
        if isinstance(src, dict) and src.get("defaultMode") is None:
            src["defaultMode"] = 420
    hp = v.get("hostPath")
    if isinstance(hp, dict) and hp.get("type") is None:
        hp["type"] = ""
    for item in ((v.get("downwardAPI") or {}).get("items") or ()) if isinstance(v.get("downwardAPI"), dict) else ():
        fr = (item or {}).get("fieldRef") if isinstance(item, dict) else None
        if isinstance(fr, dict) and not fr.get("apiVersion"):
            fr["apiVersion"] = "v1"
    proj = v.get("projected")
    if isinstance(proj, dict):
        for src in proj.get("sources") or ():
            if not isinstance(src, dict):
                continue
            sat = src.get("serviceAccountToken")
            if isinstance(sat, dict) and sat.get("expirationSeconds") is None:
                sat["expirationSeconds"] = 3600
            for item in (src.get("downwardAPI") or {}).get("items") or () if isinstance(src.get("downwardAPI"), dict) else ():
                fr = (item or {}).get("fieldRef") if isinstance(item, dict) else None
                if isinstance(fr, dict) and not fr.get("apiVersion"):
                    fr["apiVersion"] = "v1"
    eph = v.get("ephemeral")
    if isinstance(eph, dict):
        tmpl = (eph.get("volumeClaimTemplate") or {}).get("spec")
        if isinstance(tmpl, dict) and tmpl.get("volumeMode") is None:
            tmpl["volumeMode"] = "Filesystem"


def default_pod_schema(pod: dict) -> None:
    """Decode-time defaulting of a v1 Pod (SetObjectDefaults_Pod)."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        spec = pod["spec"] = {}
    # SetDefaults_Pod: requests default to limits, per container
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or ():
            if not isinstance(c, dict):
                continue
            res = c.get("resources")
            if isinstance(res, dict) and isinstance(res.get("limits"), dict):
                req = res.get("requests")
                if not isinstance(req, dict):
                    req = res["requests"] = {}
                for k, v in res["limits"].items():
                    req.setdefault(k, v)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for c in spec.get(key) or ():
                for p in (c or {}).get("ports") or () if isinstance(c, dict) else ():
                    if isinstance(p, dict) and not p.get("hostPort"):
                        p["hostPort"] = p.get("containerPort")
    # SetDefaults_PodSpec
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS
    if not spec.get("schedulerName"):
        spec["schedulerName"] = DEFAULT_SCHEDULER_NAME
    # the deprecated serviceAccount field is an alias (Convert_v1_PodSpec_To_core_PodSpec)
    if not spec.get("serviceAccountName") and spec.get("serviceAccount"):
        spec["serviceAccountName"] = spec["serviceAccount"]
    for v in spec.get("volumes") or ():
        if isinstance(v, dict):
            _default_volume(v)
    for key in ("containers", "initContainers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            if isinstance(c, dict):
                default_container(c)
    _resource_list(spec.get("overhead"))
    if spec.get("serviceAccountName"):
        spec["serviceAccount"] = spec["serviceAccountName"]


def admit_service_account(pod: dict, rng) -> None:
    """The ServiceAccount admission plugin on create."""
    meta = pod.get("metadata") or {}
    spec = pod.setdefault("spec", {})
    if MIRROR_POD_ANNOTATION in (meta.get("annotations") or {}):
        _validate_mirror_pod(pod)  # mirror pods are left alone, and may not reference credentials
        return
    if not spec.get("serviceAccountName"):
        spec["serviceAccountName"] = "default"
    spec["serviceAccount"] = spec["serviceAccountName"]
    if spec.get("automountServiceAccountToken") is False:
        return
    volumes = spec.get("volumes")
    if not isinstance(volumes, list):
        volumes = []
    token_volume = ""
    for v in volumes:
        if isinstance(v, dict) and str(v.get("name", "")).startswith(TOKEN_VOLUME_PREFIX):
            token_volume = v["name"]
            break
    has_volume = bool(token_volume)
    if not token_volume:
        token_volume = generate_name(TOKEN_VOLUME_PREFIX, rng)
    needs_volume = False
    for key in ("initContainers", "containers"):
        for c in spec.get(key) or ():
            if not isinstance(c, dict):
                continue
            mounts = c.get("volumeMounts")
            if not isinstance(mounts, list):
                mounts = []
            if any(isinstance(m, dict) and m.get("mountPath") == TOKEN_MOUNT_PATH for m in mounts):
                continue
            mounts.append({"name": token_volume, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH})
            c["volumeMounts"] = mounts
            needs_volume = True
    if not has_volume and needs_volume:
        volumes.append(token_volume_source(token_volume))
        spec["volumes"] = volumes


def _validate_mirror_pod(pod: dict) -> None:
    """The ServiceAccount plugin's Validate for mirror pods (no service account, secret or configmap)."""
    spec = pod.get("spec") or {}
    if spec.get("serviceAccountName"):
        raise _forbidden_pod(pod, "a mirror pod may not reference service accounts")
    secrets = configmaps = False
    for v in spec.get("volumes") or ():
        if not isinstance(v, dict):
            continue
        secrets |= v.get("secret") is not None
        configmaps |= v.get("configMap") is not None
        for src in (v.get("projected") or {}).get("sources") or () if isinstance(v.get("projected"), dict) else ():
            if isinstance(src, dict):
                secrets |= src.get("secret") is not None
                configmaps |= src.get("configMap") is not None
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            if not isinstance(c, dict):
                continue
            for ev in c.get("env") or ():
                vf = (ev or {}).get("valueFrom") if isinstance(ev, dict) else None
                if isinstance(vf, dict):
                    secrets |= vf.get("secretKeyRef") is not None
                    configmaps |= vf.get("configMapKeyRef") is not None
            for ef in c.get("envFrom") or ():
                if isinstance(ef, dict):
                    secrets |= ef.get("secretRef") is not None
                    configmaps |= ef.get("configMapRef") is not None
    if secrets:
        raise _forbidden_pod(pod, "a mirror pod may not reference secrets")
    if configmaps:
        raise _forbidden_pod(pod, "a mirror pod may not reference configmaps")


def token_volume_source(name: str) -> dict:
    """The projected volume the ServiceAccount admission plugin adds (TokenVolumeSource)."""
    return {
        "name": name,
        "projected": {
            "defaultMode": 420,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace",
                                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
            ],
        },
    }


def _forbidden_pod(pod: dict, detail: str) -> Forbidden:
    name = (pod.get("metadata") or {}).get("name") or ""
    if name:
        return Forbidden(f'pods "{name}" is forbidden: {detail}')
    return Forbidden(f"pods is forbidden: {detail}")


def _class_fields(pc) -> tuple[int, str, bool]:
    if isinstance(pc, (int, float)) and not isinstance(pc, bool):
        return int(pc), "PreemptLowerPriority", False
    pc = pc or {}
    return (int(pc.get("value") or 0), pc.get("preemptionPolicy") or "PreemptLowerPriority",
            bool(pc.get("globalDefault")))


def admit_priority(pod: dict, priority_classes=None) -> None:
    """The Priority admission plugin on create: resolve spec.priority from the class."""
    spec = pod.setdefault("spec", {})
    classes = dict(SYSTEM_PRIORITY_CLASSES)
    for name, pc in (priority_classes or {}).items():
        classes[name] = pc
    pc_name = spec.get("priorityClassName") or ""
    if not pc_name:
        default = None
        for name, pc in classes.items():
            value, policy, global_default = _class_fields(pc)
            if global_default and (default is None or value < default[1]):
                default = (name, value, policy)
        if default is None:
            default = ("", 0, "PreemptLowerPriority")
        pc_name, priority, policy = default
        if pc_name:
            spec["priorityClassName"] = pc_name
    else:
        if pc_name not in classes:
            raise _forbidden_pod(pod, f"no PriorityClass with name {pc_name} was found")
        priority, policy, _ = _class_fields(classes[pc_name])
    given = spec.get("priority")
    if given is not None and given != priority:
        raise _forbidden_pod(pod, f"the integer value of priority ({given}) must not be provided in pod spec; "
                                  f"priority admission controller computed {priority} from the given PriorityClass name")
    spec["priority"] = priority
    given_policy = spec.get("preemptionPolicy")
    if given_policy is not None and given_policy != policy:
        raise _forbidden_pod(pod, f"the string value of PreemptionPolicy ({given_policy}) must not be provided in "
                                  f"pod spec; priority admission controller computed {policy} from the given "
                                  "PriorityClass name")
    spec["preemptionPolicy"] = policy


def admit_default_toleration_seconds(pod: dict) -> None:
    """DefaultTolerationSeconds: tolerate not-ready/unreachable NoExecute taints for 300s."""
    spec = pod.setdefault("spec", {})
    tolerations = spec.get("tolerations")
    if not isinstance(tolerations, list):
        tolerations = []
    not_ready = unreachable = False
    for t in tolerations:
        if not isinstance(t, dict):
            continue
        key, effect = t.get("key") or "", t.get("effect") or ""
        if effect in ("NoExecute", ""):
            if key in (NOT_READY_TAINT, ""):
                not_ready = True
            if key in (UNREACHABLE_TAINT, ""):
                unreachable = True
    if not_ready and unreachable:
        return
    for flag, key in ((not_ready, NOT_READY_TAINT), (unreachable, UNREACHABLE_TAINT)):
        if not flag:
            tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                                "tolerationSeconds": DEFAULT_TOLERATION_SECONDS})
    spec["tolerations"] = tolerations


def _merge_match_label_keys(selector, keys, labels: dict, operator: str) -> None:
    if not isinstance(selector, dict):
        return  # a nil selector matches nothing and is left alone
    for key in keys or ():
        if key in labels:
            selector.setdefault("matchExpressions", []).append(
                {"key": key, "operator": operator, "values": [labels[key]]})


def _mutate_affinity_and_spread(pod: dict) -> None:
    """mutatePodAffinity / mutateTopologySpreadConstraints (matchLabelKeys, mismatchLabelKeys)."""
    spec = pod.get("spec") or {}
    labels = (pod.get("metadata") or {}).get("labels") or {}
    aff = spec.get("affinity") if isinstance(spec.get("affinity"), dict) else {}
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = aff.get(kind)
        if not isinstance(pa, dict):
            continue
        terms = [t for t in pa.get("requiredDuringSchedulingIgnoredDuringExecution") or () if isinstance(t, dict)]
        terms += [t.get("podAffinityTerm") for t in pa.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
                  if isinstance(t, dict) and isinstance(t.get("podAffinityTerm"), dict)]
        for term in terms:
            _merge_match_label_keys(term.get("labelSelector"), term.get("matchLabelKeys"), labels, "In")
            _merge_match_label_keys(term.get("labelSelector"), term.get("mismatchLabelKeys"), labels, "NotIn")
    for c in spec.get("topologySpreadConstraints") or ():
        if isinstance(c, dict):
            _merge_match_label_keys(c.get("labelSelector"), c.get("matchLabelKeys"), labels, "In")


def _default_pod(pod: dict, rng, priority_classes) -> None:
    from kubesim.api.pods import qos_class

    default_pod_schema(pod)
    admit_service_account(pod, rng)
    admit_priority(pod, priority_classes)
    admit_default_toleration_seconds(pod)
    _before_create(pod, rng, namespaced=True)
    # podStrategy.PrepareForCreate
    meta = pod.setdefault("metadata", {})
    meta["generation"] = 1
    old_status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    qos = old_status.get("qosClass") or qos_class(pod)  # GetPodQOS keeps a class already set
    status = {"phase": "Pending", "qosClass": qos}
    spec = pod["spec"]
    if spec.get("schedulingGates"):
        status["conditions"] = [{"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                 "lastTransitionTime": None, "reason": "SchedulingGated",
                                 "message": "Scheduling is blocked due to non-empty scheduling gates"}]
    pod["status"] = status
    _mutate_affinity_and_spread(pod)


# ---------------------------------------------------------------------------------------------
# nodes


def default_node_schema(node: dict) -> None:
    spec = node.get("spec")
    if not isinstance(spec, dict):
        spec = node["spec"] = {}
    # v1 podCIDR/podCIDRs are one internal field (Convert_v1_NodeSpec_To_core_NodeSpec and back)
    cidrs = spec.get("podCIDRs")
    if not cidrs and spec.get("podCIDR"):
        spec["podCIDRs"] = [spec["podCIDR"]]
    elif cidrs and isinstance(cidrs, list):
        spec["podCIDR"] = cidrs[0]
    status = node.get("status")
    if isinstance(status, dict):
        if status.get("allocatable") is None and isinstance(status.get("capacity"), dict):
            status["allocatable"] = dict(status["capacity"])
        _resource_list(status.get("capacity"))
        _resource_list(status.get("allocatable"))


def admit_node_taint(node: dict) -> None:
    """TaintNodesByCondition: a new node starts tainted not-ready:NoSchedule."""
    spec = node.setdefault("spec", {})
    taints = spec.get("taints")
    if not isinstance(taints, list):
        taints = []
    for t in taints:
        if isinstance(t, dict) and t.get("key") == NOT_READY_TAINT and t.get("effect") == "NoSchedule":
            return
    taints.append({"key": NOT_READY_TAINT, "effect": "NoSchedule"})
    spec["taints"] = taints


def _default_node(node: dict, rng, priority_classes) -> None:
    default_node_schema(node)
    admit_node_taint(node)
    _before_create(node, rng, namespaced=False)


# ---------------------------------------------------------------------------------------------
# namespaces


def _namespace_label(ns: dict) -> None:
    meta = ns.setdefault("metadata", {})
    if meta.get("name"):
        labels = meta.get("labels")
        if not isinstance(labels, dict):
            labels = meta["labels"] = {}
        labels[METADATA_NAME_LABEL] = meta["name"]


def _default_namespace(ns: dict, rng, priority_classes) -> None:
    _before_create(ns, rng, namespaced=False)
    spec = ns.get("spec")
    if not isinstance(spec, dict):
        spec = ns["spec"] = {}
    finalizers = spec.get("finalizers")
    if not isinstance(finalizers, list):
        finalizers = []
    if "kubernetes" not in finalizers:
        finalizers.append("kubernetes")
    spec["finalizers"] = finalizers
    ns["status"] = {"phase": "Active"}
    _namespace_label(ns)


_APPS_KINDS = ("Deployment", "ReplicaSet", "DaemonSet")  # defaulted by kubesim.api.apps
# defaulted by kubesim.api.scheduling, .policy and .storage
_GROUP_KINDS = ("PriorityClass", "PodDisruptionBudget", "PersistentVolume", "PersistentVolumeClaim",
                "StorageClass", "CSINode")

DEFAULTERS = {
    "Pod": _default_pod,
    "Node": _default_node,
    "Namespace": _default_namespace,
}
