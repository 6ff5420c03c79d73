"""The registry of kinds: one small record per kind, keyed by (apiVersion, kind).

Mirrors what ``kubectl api-resources`` reports for a v1.35 API server (names, short names,
group/version, namespaced). Adding a kind is one ``register`` call here (plus its validation,
printer and defaults where it has them). Lookups accept every spelling kubectl accepts:
plural, singular, short name, Kind, and any of them qualified by group (``deployments.apps``).
"""

from __future__ import annotations

from collections.abc import Callable

from kubesim.api.record import FrozenRecord, Record
from kubesim.errors import UsageError


class KindInfo(FrozenRecord):
    __slots__ = ("categories", "crd", "group", "kind", "namespaced", "plural", "served", "short_names", "verbs",
                 "version")
    _uncompared = ("crd",)

    def __init__(self, kind: str, group: str, version: str, plural: str, namespaced: bool,
                 short_names: tuple[str, ...] = (),
                 verbs: tuple[str, ...] = ("create", "delete", "deletecollection", "get", "list", "patch", "update",
                                           "watch"),
                 categories: tuple[str, ...] = (), served: bool = True, crd: dict | None = None):
        self.kind = kind
        self.group = group  # "" for the core group
        self.version = version
        self.plural = plural
        self.namespaced = namespaced
        self.short_names = short_names
        self.verbs = verbs
        self.categories = categories
        # Kinds that only exist in kubesim's own store (scheduler configuration) are not served by
        # an API server; they are still listed so `get` and `apply` find them.
        self.served = served
        # A custom resource's kind: the CustomResourceDefinition that serves it (its printer
        # columns, schema and subresources are read from it); None for every built-in kind.
        self.crd = crd

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def resource(self) -> str:
        """The qualified resource name kubectl uses in messages: ``pods``, ``deployments.apps``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def ref(self) -> str:
        """``kind.group`` as kubectl prints it in ``-o name`` and apply lines: ``pod``, ``deployment.apps``."""
        return f"{self.singular}.{self.group}" if self.group else self.singular


class Registry(Record):
    # by_gvk, by_name, other_versions; custom_source: the stored CustomResourceDefinitions, asked
    # only when a name or kind is not built in (kubectl's RESTMapper falls back to discovery the
    # same way): set per opened state by ``attach_custom``; the kinds they serve are built once
    # per change of that list (``_custom``).
    __slots__ = ("_custom", "by_gvk", "by_name", "custom_source", "other_versions")

    def __init__(self, by_gvk: dict[tuple[str, str], KindInfo] | None = None,
                 by_name: dict[str, KindInfo] | None = None,
                 other_versions: dict[tuple[str, str], KindInfo] | None = None,
                 custom_source: Callable[[], list[dict]] | None = None,
                 _custom: tuple[object, Registry | None] = (None, None)):
        self.by_gvk = {} if by_gvk is None else by_gvk
        self.by_name = {} if by_name is None else by_name
        self.other_versions = {} if other_versions is None else other_versions
        self.custom_source = custom_source
        self._custom = _custom

    def attach_custom(self, source: Callable[[], list[dict]] | None) -> None:
        """Serve the custom kinds of the CRDs ``source()`` returns (None: none)."""
        self.custom_source = source
        self._custom = (None, None)

    def custom(self) -> Registry | None:
        """The registry of the established CRDs' kinds (None without any)."""
        if self.custom_source is None:
            return None
        crds = self.custom_source()
        stamp = tuple((c["metadata"]["name"], c["metadata"].get("resourceVersion")) for c in crds)
        if self._custom[0] != stamp:
            reg = None
            if crds:
                from kubesim.api.apiextensions.helpers import custom_kind_infos

                reg = Registry()
                for info in custom_kind_infos(crds):
                    if (info.api_version, info.kind) not in self.by_gvk and (info.api_version, info.kind) not in reg.by_gvk:
                        reg.register(info)
            self._custom = (stamp, reg)
        return self._custom[1]

    def register(self, info: KindInfo) -> None:
        key = (info.api_version, info.kind)
        if key in self.by_gvk:
            raise ValueError(f"kind {key} registered twice")
        self.by_gvk[key] = info
        names = {info.plural, info.singular, info.kind.lower(), *info.short_names}
        for n in names:
            for spelling in (n, f"{n}.{info.group}" if info.group else None,
                             f"{n}.{info.version}.{info.group}" if info.group else f"{n}.{info.version}"):
                if spelling and spelling not in self.by_name:
                    self.by_name[spelling] = info

    def register_version(self, info: KindInfo) -> None:
        """Another version the API server serves a registered kind at (autoscaling/v1's
        HorizontalPodAutoscaler, converted to and from the stored one): it decodes manifests
        and answers the version-qualified names (``horizontalpodautoscalers.v1.autoscaling``),
        and is left out of ``all()``, as discovery lists the preferred version."""
        key = (info.api_version, info.kind)
        if key in self.by_gvk or key in self.other_versions:
            raise ValueError(f"kind {key} registered twice")
        self.other_versions[key] = info
        for n in (info.plural, info.singular):
            self.by_name.setdefault(f"{n}.{info.version}.{info.group}", info)

    def for_object(self, api_version: str, kind: str) -> KindInfo | None:
        info = self.by_gvk.get((api_version, kind)) or self.other_versions.get((api_version, kind))
        if info is None and (custom := self.custom()) is not None:
            return custom.for_object(api_version, kind)
        return info

    def kinds_named(self, kind: str) -> list[KindInfo]:
        found = [k for k in self.by_gvk.values() if k.kind == kind]
        if not found and (custom := self.custom()) is not None:
            return custom.kinds_named(kind)
        return found

    def lookup(self, name: str) -> KindInfo:
        """Resolve a user's resource name; kubectl's error when it means nothing."""
        info = self.find_name(name)
        if info is None:
            raise UsageError(f'the server doesn\'t have a resource type "{name}"')
        return info

    def find_name(self, name: str) -> KindInfo | None:
        """The kind a user's resource name means (built-in first, then custom), or None."""
        info = self.by_name.get(name.lower()) if name else None
        if info is None and name and (custom := self.custom()) is not None:
            info = custom.find_name(name)
        return info

    def all(self) -> list[KindInfo]:
        """Every kind served: the built-in ones, then the custom ones."""
        custom = self.custom()
        return list(self.by_gvk.values()) + (custom.all() if custom is not None else [])

    def builtin(self) -> list[KindInfo]:
        """The built-in kinds only."""
        return list(self.by_gvk.values())


REGISTRY = Registry()
_R = REGISTRY.register
_RO = ("get", "list", "watch")

_R(KindInfo("Namespace", "", "v1", "namespaces", False, ("ns",),
            ("create", "delete", "get", "list", "patch", "update", "watch")))
_R(KindInfo("Node", "", "v1", "nodes", False, ("no",)))
_R(KindInfo("Pod", "", "v1", "pods", True, ("po",), categories=("all",)))
_R(KindInfo("Event", "", "v1", "events", True, ("ev",)))
_R(KindInfo("ConfigMap", "", "v1", "configmaps", True, ("cm",)))
_R(KindInfo("Secret", "", "v1", "secrets", True))
_R(KindInfo("ServiceAccount", "", "v1", "serviceaccounts", True, ("sa",)))
_R(KindInfo("LimitRange", "", "v1", "limitranges", True, ("limits",)))
_R(KindInfo("ResourceQuota", "", "v1", "resourcequotas", True, ("quota",)))
_R(KindInfo("RuntimeClass", "node.k8s.io", "v1", "runtimeclasses", False))
_R(KindInfo("Deployment", "apps", "v1", "deployments", True, ("deploy",), categories=("all",)))
_R(KindInfo("ReplicaSet", "apps", "v1", "replicasets", True, ("rs",), categories=("all",)))
_R(KindInfo("DaemonSet", "apps", "v1", "daemonsets", True, ("ds",), categories=("all",)))
_R(KindInfo("ControllerRevision", "apps", "v1", "controllerrevisions", True))
_R(KindInfo("PriorityClass", "scheduling.k8s.io", "v1", "priorityclasses", False, ("pc",)))
_R(KindInfo("PodDisruptionBudget", "policy", "v1", "poddisruptionbudgets", True, ("pdb",)))
_R(KindInfo("PersistentVolume", "", "v1", "persistentvolumes", False, ("pv",)))
_R(KindInfo("PersistentVolumeClaim", "", "v1", "persistentvolumeclaims", True, ("pvc",)))
_R(KindInfo("StorageClass", "storage.k8s.io", "v1", "storageclasses", False, ("sc",)))
_R(KindInfo("CSINode", "storage.k8s.io", "v1", "csinodes", False))
_R(KindInfo("Lease", "coordination.k8s.io", "v1", "leases", True))
_R(KindInfo("ClusterRoleBinding", "rbac.authorization.k8s.io", "v1", "clusterrolebindings", False))
_R(KindInfo("ClusterRole", "rbac.authorization.k8s.io", "v1", "clusterroles", False))
_R(KindInfo("RoleBinding", "rbac.authorization.k8s.io", "v1", "rolebindings", True))
_R(KindInfo("Role", "rbac.authorization.k8s.io", "v1", "roles", True))
_R(KindInfo("NetworkPolicy", "networking.k8s.io", "v1", "networkpolicies", True, ("netpol",)))
_R(KindInfo("Ingress", "networking.k8s.io", "v1", "ingresses", True, ("ing",)))
_R(KindInfo("IngressClass", "networking.k8s.io", "v1", "ingressclasses", False))
_R(KindInfo("Job", "batch", "v1", "jobs", True, categories=("all",)))
_R(KindInfo("CronJob", "batch", "v1", "cronjobs", True, ("cj",), categories=("all",)))
_R(KindInfo("StatefulSet", "apps", "v1", "statefulsets", True, ("sts",), categories=("all",)))
_R(KindInfo("Service", "", "v1", "services", True, ("svc",), categories=("all",)))
_R(KindInfo("Endpoints", "", "v1", "endpoints", True, ("ep",)))
_R(KindInfo("EndpointSlice", "discovery.k8s.io", "v1", "endpointslices", True))
_R(KindInfo("HorizontalPodAutoscaler", "autoscaling", "v2", "horizontalpodautoscalers", True, ("hpa",),
            categories=("all",)))
REGISTRY.register_version(KindInfo("HorizontalPodAutoscaler", "autoscaling", "v1", "horizontalpodautoscalers",
                                   True, ("hpa",), categories=("all",)))
_R(KindInfo("CustomResourceDefinition", "apiextensions.k8s.io", "v1", "customresourcedefinitions", False,
            ("crd", "crds"), categories=("api-extensions",)))
# Not an API object: the cluster's scheduler configuration, applied like a manifest (DESIGN §1.3).
_R(KindInfo("KubeSchedulerConfiguration", "kubescheduler.config.k8s.io", "v1", "kubeschedulerconfigurations",
            False, (), ("apply", "get"), served=False))


def lookup(name: str) -> KindInfo:
    return REGISTRY.lookup(name)


def for_object(obj: dict) -> KindInfo | None:
    return REGISTRY.for_object(obj.get("apiVersion", ""), obj.get("kind", ""))


def by_kind(kind: str) -> KindInfo:
    """The preferred registration of a Kind (``Pod`` → v1 pods)."""
    found = REGISTRY.kinds_named(kind)
    if not found:
        raise KeyError(kind)
    return found[0]
