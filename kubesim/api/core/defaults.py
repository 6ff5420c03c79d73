"""core/v1 scheme defaulting: what the API server fills in when it decodes a Pod, Node,
Namespace, PersistentVolume or PersistentVolumeClaim (and the pod template of a workload).

Written after kubernetes/kubernetes (v1.35) ``pkg/apis/core/v1/defaults.go``
(``SetDefaults_Pod``, ``SetDefaults_PodSpec``, ``SetDefaults_Container``, ``SetDefaults_Probe``,
``SetDefaults_HTTPGetAction``, ``SetDefaults_Volume`` and the volume sources' ``defaultMode``,
``SetDefaults_ResourceList``, ``SetDefaults_NodeStatus``, ``SetDefaults_Namespace``,
``SetDefaults_PersistentVolume``, ``SetDefaults_PersistentVolumeClaim``,
``SetDefaults_HostPathVolumeSource``), the generated ``zz_generated.defaults.go``
(``SetObjectDefaults_*``: each member's defaulter), the declarative ``+default`` markers of
``k8s.io/api/core/v1/types.go`` (container port protocol ``TCP``), ``conversion.go`` (the
deprecated ``serviceAccount`` and ``podCIDR`` fields kept in step with their successors) and
``pkg/kubelet/util/parsers.ParseImageName`` (the image tag that decides ``imagePullPolicy``).

Only what the scheme does at decode time: admission (the service account's token volume,
priority, default tolerations, the not-ready taint) is ``kubesim.apiserver.admission``'s, and
what the strategies' ``PrepareForCreate`` sets (a new pod's status and QoS class, generation,
a namespace's finalizer and phase) is ``kubesim.apiserver.registry``'s. Quantities are rewritten
in the form the server stores them (``cpu: 1`` -> ``"1"``, ``0.5`` -> ``500m``, ``1024Mi`` ->
``1Gi``).

Not modelled: pod-level ``spec.resources`` defaulting.
"""

from __future__ import annotations

import copy
import re

DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30
DEFAULT_SCHEDULER_NAME = "default-scheduler"
TERMINATION_MESSAGE_PATH = "/dev/termination-log"
METADATA_NAME_LABEL = "kubernetes.io/metadata.name"


def set_defaults_resource_list(rl: dict | None) -> None:
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


def set_defaults_container(c: dict) -> None:
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
    set_defaults_resource_list(res.get("limits"))
    set_defaults_resource_list(res.get("requests"))
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


def set_object_defaults_pod(pod: dict) -> None:
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
                set_defaults_container(c)
    set_defaults_resource_list(spec.get("overhead"))
    if spec.get("serviceAccountName"):
        spec["serviceAccount"] = spec["serviceAccountName"]


def set_defaults_pod_template(template: dict) -> None:
    """The scheme defaults of a v1.PodTemplateSpec (a workload's ``spec.template``), in place:
    a PodSpec's (``SetDefaults_PodSpec``, containers, probes, volumes), not a Pod's: no
    ``enableServiceLinks``, no requests copied from limits, no host ports from container ports."""
    spec = template.get("spec")
    if not isinstance(spec, dict):
        spec = template["spec"] = {}
    original = copy.deepcopy(spec)
    set_object_defaults_pod({"spec": spec})
    # SetDefaults_Pod only (not PodSpec): undo it for a template
    if original.get("enableServiceLinks") is None:
        spec.pop("enableServiceLinks", None)
    for key in ("containers", "initContainers"):
        for c, orig in zip(spec.get(key) or (), original.get(key) or ()):
            if not isinstance(c, dict) or not isinstance(orig, dict):
                continue
            res, ores = c.get("resources"), orig.get("resources") if isinstance(orig.get("resources"), dict) else {}
            if isinstance(res, dict) and isinstance(res.get("requests"), dict):
                kept = {k: v for k, v in res["requests"].items() if k in (ores.get("requests") or {})}
                if kept or isinstance(ores.get("requests"), dict):
                    res["requests"] = kept
                else:
                    res.pop("requests", None)
            for p, op in zip(c.get("ports") or (), orig.get("ports") or ()):
                if isinstance(p, dict) and isinstance(op, dict) and "hostPort" not in op:
                    p.pop("hostPort", None)


# ---------------------------------------------------------------------------------------------
# nodes and namespaces


def set_object_defaults_node(node: dict) -> None:
    """SetObjectDefaults_Node: podCIDR/podCIDRs in step, SetDefaults_NodeStatus (allocatable from
    capacity), canonical quantities."""
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
        set_defaults_resource_list(status.get("capacity"))
        set_defaults_resource_list(status.get("allocatable"))


def set_defaults_namespace(ns: dict) -> None:
    """SetDefaults_Namespace: the ``kubernetes.io/metadata.name`` label, once the name is known."""
    meta = ns.setdefault("metadata", {})
    if meta.get("name"):
        labels = meta.get("labels")
        if not isinstance(labels, dict):
            labels = meta["labels"] = {}
        labels[METADATA_NAME_LABEL] = meta["name"]


# ---------------------------------------------------------------------------------------------
# persistent volumes and claims


def set_defaults_persistent_volume(pv: dict) -> None:
    """SetObjectDefaults_PersistentVolume: reclaim policy Retain, volumeMode Filesystem, hostPath type ""."""
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
    set_defaults_resource_list(spec.get("capacity"))


def set_defaults_persistent_volume_claim(pvc: dict) -> None:
    """SetObjectDefaults_PersistentVolumeClaim: volumeMode Filesystem, canonical quantities."""
    spec = pvc.get("spec")
    if not isinstance(spec, dict):
        spec = pvc["spec"] = {}
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    res = spec.get("resources")
    if isinstance(res, dict):
        set_defaults_resource_list(res.get("requests"))
        set_defaults_resource_list(res.get("limits"))


# ---------------------------------------------------------------------------------------------
# secrets


def set_defaults_secret(secret: dict) -> None:
    """SetDefaults_Secret (type ``Opaque``), then what conversion.go's
    ``Convert_v1_Secret_To_core_Secret`` does with ``stringData``: each value, encoded, replaces
    the ``data`` key of its name; the field itself is never stored."""
    if not secret.get("type"):
        secret["type"] = "Opaque"
    string_data = secret.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        import base64

        data = secret.get("data")
        # a copy: the object being updated may share its maps with the stored one
        data = secret["data"] = dict(data) if isinstance(data, dict) else {}
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()
# services

DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS = 10800


def set_defaults_service(svc: dict) -> None:
    """SetDefaults_Service: sessionAffinity None (and no affinity config), or ClientIP's
    three-hour timeout; type ClusterIP; every port's protocol TCP and targetPort its port;
    externalTrafficPolicy Cluster where the service is externally accessible;
    internalTrafficPolicy Cluster; a LoadBalancer allocates node ports."""
    spec = svc.get("spec")
    if not isinstance(spec, dict):
        spec = svc["spec"] = {}
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    if spec["sessionAffinity"] == "ClientIP":
        cfg = spec.get("sessionAffinityConfig")
        if not isinstance(cfg, dict) or not isinstance(cfg.get("clientIP"), dict) \
                or cfg["clientIP"].get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": DEFAULT_CLIENT_IP_SERVICE_AFFINITY_SECONDS}}
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    for p in spec.get("ports") or []:
        if not isinstance(p, dict):
            continue
        if not p.get("protocol"):
            p["protocol"] = "TCP"
        if p.get("targetPort") in (None, 0, ""):
            p["targetPort"] = p.get("port", 0)
    t = spec["type"]
    if (t in ("LoadBalancer", "NodePort") or (t == "ClusterIP" and spec.get("externalIPs"))) \
            and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and t in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if t == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        spec["allocateLoadBalancerNodePorts"] = True
    if t == "LoadBalancer":
        for ing in ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []:
            if isinstance(ing, dict) and ing.get("ip") and ing.get("ipMode") is None:
                ing["ipMode"] = "VIP"


# ---------------------------------------------------------------------------------------------
# limit ranges


_LIMIT_RANGE_LISTS = ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")


def set_defaults_limit_range(lr: dict) -> None:
    """SetObjectDefaults_LimitRange: each item's ``SetDefaults_LimitRangeItem`` (a Container
    item's default limit is its max, its default request its default limit, else its min),
    then ``SetDefaults_ResourceList`` on each of its resource lists."""
    spec = lr.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("limits"), list):
        return
    for item in spec["limits"]:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "Container":
            default = dict(item.get("default") or {})
            request = dict(item.get("defaultRequest") or {})
            for key, value in (item.get("max") or {}).items():
                default.setdefault(key, value)
            for key, value in default.items():
                request.setdefault(key, value)
            for key, value in (item.get("min") or {}).items():
                request.setdefault(key, value)
            if default:
                item["default"] = default
            if request:
                item["defaultRequest"] = request
        for name in _LIMIT_RANGE_LISTS:
            set_defaults_resource_list(item.get(name))
