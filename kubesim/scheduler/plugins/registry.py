"""The in-tree plugin registry: upstream plugin names to kubesim classes, and the legacy names.

Upstream: pkg/scheduler/framework/plugins/registry.go (``NewInTreeRegistry``) and
pkg/scheduler/framework/plugins/names/names.go. This is the only module that imports every
plugin. Adding a plugin is a new module plus one line in ``REGISTRY``; plugins that v1.35 ships
but kubesim does not implement yet are listed in ``IN_TREE_PLUGINS`` so profiles naming them still
load (the framework skips them and records them as unimplemented).

``LEGACY_NAMES`` maps each plugin to the predicate / priority names of the pre-framework
scheduler (removed in v1.23) that older material and logs use.
"""

from __future__ import annotations

from kubesim.scheduler.plugins.defaultbinder import DefaultBinder
from kubesim.scheduler.plugins.defaultpreemption import DefaultPreemption
from kubesim.scheduler.plugins.dynamicresources import DynamicResources
from kubesim.scheduler.plugins.imagelocality import ImageLocality
from kubesim.scheduler.plugins.interpodaffinity import InterPodAffinity
from kubesim.scheduler.plugins.nodeaffinity import NodeAffinity
from kubesim.scheduler.plugins.nodename import NodeName
from kubesim.scheduler.plugins.nodeports import NodePorts
from kubesim.scheduler.plugins.noderesources.balanced_allocation import (
    BalancedAllocation,
)
from kubesim.scheduler.plugins.noderesources.fit import Fit
from kubesim.scheduler.plugins.nodeunschedulable import NodeUnschedulable
from kubesim.scheduler.plugins.nodevolumelimits import NodeVolumeLimits
from kubesim.scheduler.plugins.podtopologyspread.plugin import PodTopologySpread
from kubesim.scheduler.plugins.prioritysort import PrioritySort
from kubesim.scheduler.plugins.schedulinggates import SchedulingGates
from kubesim.scheduler.plugins.tainttoleration import TaintToleration
from kubesim.scheduler.plugins.volumebinding import VolumeBinding
from kubesim.scheduler.plugins.volumerestrictions import VolumeRestrictions
from kubesim.scheduler.plugins.volumezone import VolumeZone

REGISTRY: dict[str, type] = {
    "PrioritySort": PrioritySort,
    "SchedulingGates": SchedulingGates,
    "NodeUnschedulable": NodeUnschedulable,
    "NodeName": NodeName,
    "TaintToleration": TaintToleration,
    "NodeAffinity": NodeAffinity,
    "NodePorts": NodePorts,
    "NodeResourcesFit": Fit,
    "NodeResourcesBalancedAllocation": BalancedAllocation,
    "ImageLocality": ImageLocality,
    "InterPodAffinity": InterPodAffinity,
    "PodTopologySpread": PodTopologySpread,
    "DefaultBinder": DefaultBinder,
    "VolumeRestrictions": VolumeRestrictions,
    "NodeVolumeLimits": NodeVolumeLimits,
    "VolumeBinding": VolumeBinding,
    "VolumeZone": VolumeZone,
    "DynamicResources": DynamicResources,
    "DefaultPreemption": DefaultPreemption,
}

# names.go (v1.35): every in-tree plugin name, implemented here or not.
IN_TREE_PLUGINS: frozenset[str] = frozenset({
    "PrioritySort", "DefaultBinder", "DefaultPreemption", "DynamicResources", "ImageLocality",
    "InterPodAffinity", "NodeAffinity", "NodeName", "NodePorts",
    "NodeResourcesBalancedAllocation", "NodeResourcesFit", "NodeUnschedulable",
    "NodeVolumeLimits", "PodTopologySpread", "SchedulingGates", "TaintToleration",
    "VolumeBinding", "VolumeRestrictions", "VolumeZone", "NodeDeclaredFeatures",
    "GangScheduling",
})

LEGACY_NAMES: dict[str, dict[str, str | None]] = {
    "NodeResourcesFit": {"predicate": "PodFitsResources", "priority": "LeastRequestedPriority"},
    "NodeResourcesBalancedAllocation": {"predicate": None,
                                        "priority": "BalancedResourceAllocation"},
    "NodePorts": {"predicate": "PodFitsHostPorts", "priority": None},
    "TaintToleration": {"predicate": "PodToleratesNodeTaints",
                        "priority": "TaintTolerationPriority"},
    "NodeAffinity": {"predicate": "MatchNodeSelector", "priority": "NodeAffinityPriority"},
    "NodeName": {"predicate": "HostName", "priority": None},
    "NodeUnschedulable": {"predicate": "CheckNodeUnschedulable", "priority": None},
    "ImageLocality": {"predicate": None, "priority": "ImageLocalityPriority"},
    "InterPodAffinity": {"predicate": "MatchInterPodAffinity",
                         "priority": "InterPodAffinityPriority"},
    "PodTopologySpread": {"predicate": "EvenPodsSpread", "priority": "EvenPodsSpreadPriority"},
    "VolumeBinding": {"predicate": "CheckVolumeBinding", "priority": None},
    "VolumeRestrictions": {"predicate": "NoDiskConflict", "priority": None},
    "VolumeZone": {"predicate": "NoVolumeZoneConflict", "priority": None},
    "NodeVolumeLimits": {"predicate": "MaxCSIVolumeCountPred", "priority": None},
    "DynamicResources": {"predicate": None, "priority": None},
    "DefaultPreemption": {"predicate": None, "priority": None},
    "PrioritySort": {"predicate": None, "priority": None},
    "SchedulingGates": {"predicate": None, "priority": None},
    "DefaultBinder": {"predicate": None, "priority": None},
}

# NodeResourcesFit's legacy priority depends on its scoring strategy.
FIT_STRATEGY_LEGACY_PRIORITY: dict[str, str] = {
    "LeastAllocated": "LeastRequestedPriority",
    "MostAllocated": "MostRequestedPriority",
    "RequestedToCapacityRatio": "RequestedToCapacityRatioPriority",
}


def legacy_name(plugin: str, point: str = "filter") -> str | None:
    """The predicate (point "filter") or priority (point "score") name of a plugin, if any."""
    names = LEGACY_NAMES.get(plugin) or {}
    return names.get("predicate" if point == "filter" else "priority")
