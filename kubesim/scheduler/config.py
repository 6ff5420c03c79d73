"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as a dict: defaults, merging, checks.

Upstream: pkg/scheduler/apis/config/v1/default_plugins.go (the default profile, all in
multiPoint, with weights TaintToleration 3, NodeAffinity 2, PodTopologySpread 2,
InterPodAffinity 2, NodeResourcesFit 1, NodeResourcesBalancedAllocation 1, ImageLocality 1;
DynamicResources inserted before DefaultPreemption because DRA is on in v1.35; ``mergePluginSet``:
custom disabled (``*`` for all) removes defaults, a custom enabled plugin that is also a default
replaces it in place, the other custom ones are appended), pkg/scheduler/apis/config/v1/defaults.go
(parallelism 16, one ``default-scheduler`` profile, percentageOfNodesToScore 0 meaning adaptive,
podInitialBackoffSeconds 1, podMaxBackoffSeconds 10, default plugin args for every enabled plugin
that has an args type), pkg/scheduler/apis/config/validation/validation.go (the error texts),
pkg/scheduler/profile/profile.go and pkg/scheduler/scheduler.go (how framework errors are worded:
"initializing profiles: creating profile for scheduler name X: ...").

``complete(cfg)`` returns a fully defaulted copy; ``validate(cfg)`` the list of error strings
(empty when valid); ``load(cfg)`` does both and raises :class:`ConfigError`.
"""

from __future__ import annotations

import copy
from typing import Any

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE = 0
DEFAULT_POD_INITIAL_BACKOFF_SECONDS = 1
DEFAULT_POD_MAX_BACKOFF_SECONDS = 10
DEFAULT_PARALLELISM = 16

# v1 Plugins fields, in the order upstream's mergePlugins walks them.
PLUGIN_SET_KEYS = ("multiPoint", "preEnqueue", "queueSort", "preFilter", "filter", "postFilter",
                   "preScore", "score", "reserve", "permit", "preBind", "bind", "postBind")

DEFAULT_MULTI_POINT: tuple[dict, ...] = (
    {"name": "SchedulingGates"},
    {"name": "PrioritySort"},
    {"name": "NodeUnschedulable"},
    {"name": "NodeName"},
    {"name": "TaintToleration", "weight": 3},
    {"name": "NodeAffinity", "weight": 2},
    {"name": "NodePorts"},
    {"name": "NodeResourcesFit", "weight": 1},
    {"name": "VolumeRestrictions"},
    {"name": "NodeVolumeLimits"},
    {"name": "VolumeBinding"},
    {"name": "VolumeZone"},
    {"name": "PodTopologySpread", "weight": 2},
    {"name": "InterPodAffinity", "weight": 2},
    {"name": "DynamicResources"},
    {"name": "DefaultPreemption"},
    {"name": "NodeResourcesBalancedAllocation", "weight": 1},
    {"name": "ImageLocality", "weight": 1},
    {"name": "DefaultBinder"},
)

# Plugins removed from the v1 API (validation.go invalidPluginsByVersion).
INVALID_PLUGINS_V1 = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")

_DEFAULT_RESOURCES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


class ConfigError(ValueError):
    """An invalid scheduler configuration; ``errors`` holds upstream-worded field errors."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = list(errors)
        if len(self.errors) == 1:
            msg = self.errors[0]
        else:
            msg = "[" + ", ".join(self.errors) + "]"
        super().__init__(msg)


def default_plugins() -> dict:
    """``getDefaultPlugins`` for v1.35 (feature gates at their defaults)."""
    return {"multiPoint": {"enabled": [dict(p) for p in DEFAULT_MULTI_POINT]}}


def merge_plugin_set(default: dict | None, custom: dict | None) -> dict:
    """``mergePluginSet``."""
    default = default or {}
    custom = custom or {}
    disabled: list[dict] = []
    disabled_names: set[str] = set()
    for p in (custom.get("disabled") or []) + (default.get("disabled") or []):
        disabled.append({"name": p.get("name", "")})
        disabled_names.add(p.get("name", ""))
    custom_enabled = list(custom.get("enabled") or [])
    index_of = {p.get("name"): i for i, p in enumerate(custom_enabled)}
    replaced: set[int] = set()
    enabled: list[dict] = []
    if "*" not in disabled_names:
        for p in default.get("enabled") or []:
            name = p.get("name")
            if name in disabled_names:
                continue
            if name in index_of:
                i = index_of[name]
                p = custom_enabled[i]
                replaced.add(i)
            enabled.append(dict(p))
    for i, p in enumerate(custom_enabled):
        if i not in replaced:
            enabled.append(dict(p))
    out: dict[str, Any] = {}
    if enabled:
        out["enabled"] = enabled
    if disabled:
        out["disabled"] = disabled
    return out


def merge_plugins(default: dict, custom: dict | None) -> dict:
    """``mergePlugins``: each extension point's set merged."""
    if custom is None:
        return default
    out: dict[str, Any] = {}
    for key in PLUGIN_SET_KEYS:
        merged = merge_plugin_set(default.get(key), custom.get(key))
        if merged:
            out[key] = merged
    return out


def enabled_plugin_names(plugins: dict | None) -> list[str]:
    """``pluginsNames``: sorted names enabled at any extension point."""
    names: set[str] = set()
    for key in PLUGIN_SET_KEYS:
        for p in ((plugins or {}).get(key) or {}).get("enabled") or []:
            names.add(p.get("name", ""))
    return sorted(names)


# -- plugin args ---------------------------------------------------------------------------------
def _default_fit_args(args: dict) -> None:
    s = args.get("scoringStrategy")
    if s is None:
        args["scoringStrategy"] = {"type": "LeastAllocated",
                                   "resources": copy.deepcopy(_DEFAULT_RESOURCES)}
        return
    s.setdefault("type", "LeastAllocated")
    if not s.get("resources"):
        s["resources"] = copy.deepcopy(_DEFAULT_RESOURCES)
    for r in s["resources"]:
        if not r.get("weight"):
            r["weight"] = 1


def _default_balanced_args(args: dict) -> None:
    if not args.get("resources"):
        args["resources"] = copy.deepcopy(_DEFAULT_RESOURCES)
        return
    for r in args["resources"]:
        if not r.get("weight"):
            r["weight"] = 1


def _default_preemption_args(args: dict) -> None:
    args.setdefault("minCandidateNodesPercentage", 10)
    args.setdefault("minCandidateNodesAbsolute", 100)


def _default_inter_pod_affinity_args(args: dict) -> None:
    args.setdefault("hardPodAffinityWeight", 1)
    args.setdefault("ignorePreferredTermsOfExistingPods", False)


def _default_pod_topology_spread_args(args: dict) -> None:
    args.setdefault("defaultingType", "System")


def _default_volume_binding_args(args: dict) -> None:
    args.setdefault("bindTimeoutSeconds", 600)


def _default_dynamic_resources_args(args: dict) -> None:
    args.setdefault("filterTimeout", "10s")


def _no_defaults(args: dict) -> None:
    return None


# Plugins with an args type in kubescheduler.config.k8s.io/v1, and their defaulting.
ARGS_DEFAULTERS = {
    "DefaultPreemption": _default_preemption_args,
    "DynamicResources": _default_dynamic_resources_args,
    "InterPodAffinity": _default_inter_pod_affinity_args,
    "NodeAffinity": _no_defaults,
    "NodeResourcesBalancedAllocation": _default_balanced_args,
    "NodeResourcesFit": _default_fit_args,
    "PodTopologySpread": _default_pod_topology_spread_args,
    "VolumeBinding": _default_volume_binding_args,
}


def default_args(name: str, args: dict | None = None) -> dict:
    """The plugin's args with apiVersion/kind and defaults filled in."""
    out = copy.deepcopy(args) if args else {}
    out.setdefault("apiVersion", API_VERSION)
    out.setdefault("kind", name + "Args")
    ARGS_DEFAULTERS.get(name, _no_defaults)(out)
    return out


def _complete_profile(prof: dict) -> None:
    prof["plugins"] = merge_plugins(default_plugins(), prof.get("plugins"))
    existing: set[str] = set()
    configs = prof.get("pluginConfig") or []
    for pc in configs:
        name = pc.get("name", "")
        existing.add(name)
        if name in ARGS_DEFAULTERS:
            pc["args"] = default_args(name, pc.get("args"))
    for name in enabled_plugin_names(prof["plugins"]):
        if name in existing or name not in ARGS_DEFAULTERS:
            continue
        configs.append({"name": name, "args": default_args(name)})
    prof["pluginConfig"] = configs


def complete(cfg: dict | None) -> dict:
    """``SetDefaults_KubeSchedulerConfiguration`` on a copy."""
    out = copy.deepcopy(cfg) if cfg else {}
    out.setdefault("apiVersion", API_VERSION)
    out.setdefault("kind", KIND)
    if out.get("parallelism") is None:
        out["parallelism"] = DEFAULT_PARALLELISM
    profiles = out.get("profiles") or []
    if not profiles:
        profiles = [{}]
    if len(profiles) == 1 and profiles[0].get("schedulerName") is None:
        profiles[0]["schedulerName"] = DEFAULT_SCHEDULER_NAME
    for prof in profiles:
        _complete_profile(prof)
    out["profiles"] = profiles
    if out.get("percentageOfNodesToScore") is None:
        out["percentageOfNodesToScore"] = DEFAULT_PERCENTAGE_OF_NODES_TO_SCORE
    if out.get("podInitialBackoffSeconds") is None:
        out["podInitialBackoffSeconds"] = DEFAULT_POD_INITIAL_BACKOFF_SECONDS
    if out.get("podMaxBackoffSeconds") is None:
        out["podMaxBackoffSeconds"] = DEFAULT_POD_MAX_BACKOFF_SECONDS
    le = out.setdefault("leaderElection", {})
    le.setdefault("leaderElect", True)
    le.setdefault("leaseDuration", "15s")
    le.setdefault("renewDeadline", "10s")
    le.setdefault("retryPeriod", "2s")
    le.setdefault("resourceLock", "leases")
    le.setdefault("resourceName", "kube-scheduler")
    le.setdefault("resourceNamespace", "kube-system")
    cc = out.setdefault("clientConnection", {})
    cc.setdefault("acceptContentTypes", "")
    cc.setdefault("burst", 100)
    cc.setdefault("contentType", "application/vnd.kubernetes.protobuf")
    cc.setdefault("kubeconfig", "")
    cc.setdefault("qps", 50)
    out.setdefault("enableProfiling", True)
    if out["enableProfiling"]:
        out.setdefault("enableContentionProfiling", True)
    return out


# -- validation ----------------------------------------------------------------------------------
def _quote(v: Any) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _int32(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and -(1 << 31) <= v < (1 << 31)


def _percentage(path: str, v: Any) -> list[str]:
    if v is None:
        return []
    if not _int32(v) or v < 0 or v > 100:
        return [f"{path}: Invalid value: {_quote(v)}: not in valid range [0-100]"]
    return []


def validate(cfg: dict) -> list[str]:
    """``ValidateKubeSchedulerConfiguration`` for a completed config (and the weight types)."""
    from kubesim.scheduler.plugins import interpodaffinity
    from kubesim.scheduler.plugins.noderesources import balanced_allocation, fit
    from kubesim.scheduler.plugins.podtopologyspread import plugin as podtopologyspread

    errs: list[str] = []
    if cfg.get("apiVersion", API_VERSION) != API_VERSION:
        errs.append(f'apiVersion: Unsupported value: {_quote(cfg.get("apiVersion"))}: supported '
                    f'values: "{API_VERSION}"')
    par = cfg.get("parallelism", DEFAULT_PARALLELISM)
    if not _int32(par) or par <= 0:
        errs.append(f"parallelism: Invalid value: {_quote(par)}: should be an integer value "
                    "greater than zero")
    profiles = cfg.get("profiles") or []
    if not profiles:
        errs.append("profiles: Required value")
    seen: dict[str, int] = {}
    for i, prof in enumerate(profiles):
        path = f"profiles[{i}]"
        name = prof.get("schedulerName") or ""
        if not name:
            errs.append(f"{path}.schedulerName: Required value")
        errs += _percentage(f"{path}.percentageOfNodesToScore",
                            prof.get("percentageOfNodesToScore"))
        plugins = prof.get("plugins") or {}
        for key in PLUGIN_SET_KEYS:
            for j, p in enumerate((plugins.get(key) or {}).get("enabled") or []):
                if p.get("name") in INVALID_PLUGINS_V1:
                    errs.append(f"{path}.plugins.{key}.enabled[{j}]: Invalid value: "
                                f"{_quote(p.get('name'))}: was invalid in version "
                                f'"{API_VERSION}" (KubeSchedulerConfiguration is version '
                                f'"{API_VERSION}")')
                w = p.get("weight")
                if w is not None and not _int32(w):
                    errs.append(f"json: cannot unmarshal number {w} into Go struct field "
                                "Plugin.profiles.plugins." + key + ".enabled.weight of type int32")
        seen_cfg: set[str] = set()
        for j, pc in enumerate(prof.get("pluginConfig") or []):
            pname = pc.get("name", "")
            ppath = f"{path}.pluginConfig[{j}]"
            if pname in seen_cfg:
                errs.append(f"{ppath}: Duplicate value: {_quote(pname)}")
            seen_cfg.add(pname)
            args = pc.get("args") or {}
            if pname == "NodeResourcesFit":
                errs += fit.validate_args(args, f"{ppath}.args")
            elif pname == "NodeResourcesBalancedAllocation":
                errs += balanced_allocation.validate_args(args, f"{ppath}.args")
            elif pname == "InterPodAffinity":
                errs += interpodaffinity.validate_args(args, f"{ppath}.args")
            elif pname == "PodTopologySpread":
                errs += podtopologyspread.validate_args(args, f"{ppath}.args")
        if name in seen:
            errs.append(f"{path}.schedulerName: Duplicate value: {_quote(name)}")
        else:
            seen[name] = i
    if len(profiles) > 1:
        canon = ((profiles[0].get("plugins") or {}).get("queueSort")) or {}
        for i in range(1, len(profiles)):
            cur = ((profiles[i].get("plugins") or {}).get("queueSort")) or {}
            if cur != canon:
                errs.append(f"profiles[{i}].plugins.queueSort: Invalid value: {cur}: must be the "
                            "same for all profiles")
    errs += _percentage("percentageOfNodesToScore", cfg.get("percentageOfNodesToScore"))
    ini = cfg.get("podInitialBackoffSeconds", DEFAULT_POD_INITIAL_BACKOFF_SECONDS)
    mx = cfg.get("podMaxBackoffSeconds", DEFAULT_POD_MAX_BACKOFF_SECONDS)
    if not isinstance(ini, int) or ini <= 0:
        errs.append(f"podInitialBackoffSeconds: Invalid value: {_quote(ini)}: must be greater "
                    "than 0")
    if isinstance(ini, int) and isinstance(mx, int) and mx < ini:
        errs.append(f"podMaxBackoffSeconds: Invalid value: {_quote(mx)}: must be greater than or "
                    "equal to PodInitialBackoffSeconds")
    return errs


def load(cfg: dict | None) -> dict:
    """Complete and validate; raises ConfigError with upstream-worded errors."""
    if cfg is not None and cfg.get("kind", KIND) != KIND:
        raise ConfigError([(f'kind: Unsupported value: {_quote(cfg.get("kind"))}: supported '
                            f'values: "{KIND}"')])
    out = complete(cfg)
    errs = validate(out)
    if errs:
        raise ConfigError(errs)
    return out
