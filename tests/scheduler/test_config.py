"""KubeSchedulerConfiguration defaults, merging and validation (after upstream
apis/config/v1/default_plugins_test.go, defaults_test.go and validation/validation_test.go)."""

import random

import pytest

from kubesim.scheduler.config import (ConfigError, complete, default_plugins, load,
                                      merge_plugin_set, merge_plugins, validate)
from kubesim.scheduler.scheduler import Scheduler

DEFAULT_NAMES = [
    "SchedulingGates", "PrioritySort", "NodeUnschedulable", "NodeName", "TaintToleration",
    "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
    "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources",
    "DefaultPreemption", "NodeResourcesBalancedAllocation", "ImageLocality", "DefaultBinder",
]


def test_default_profile_is_upstreams_multi_point_list_with_weights():
    mp = default_plugins()["multiPoint"]["enabled"]
    assert [p["name"] for p in mp] == DEFAULT_NAMES
    weights = {p["name"]: p["weight"] for p in mp if "weight" in p}
    assert weights == {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1,
                       "PodTopologySpread": 2, "InterPodAffinity": 2,
                       "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}


def test_complete_fills_upstream_defaults():
    cfg = complete(None)
    assert cfg["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert cfg["kind"] == "KubeSchedulerConfiguration"
    assert (cfg["parallelism"], cfg["percentageOfNodesToScore"], cfg["podInitialBackoffSeconds"],
            cfg["podMaxBackoffSeconds"]) == (16, 0, 1, 10)
    (prof,) = cfg["profiles"]
    assert prof["schedulerName"] == "default-scheduler"
    args = {pc["name"]: pc["args"] for pc in prof["pluginConfig"]}
    assert sorted(args) == ["DefaultPreemption", "DynamicResources", "InterPodAffinity",
                            "NodeAffinity", "NodeResourcesBalancedAllocation", "NodeResourcesFit",
                            "PodTopologySpread", "VolumeBinding"]
    assert args["NodeResourcesFit"]["scoringStrategy"] == {
        "type": "LeastAllocated",
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    assert args["NodeResourcesFit"]["kind"] == "NodeResourcesFitArgs"
    assert args["NodeResourcesBalancedAllocation"]["resources"] == [
        {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
    assert args["DefaultPreemption"]["minCandidateNodesPercentage"] == 10


def test_user_args_are_defaulted_in_place():
    cfg = complete({"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}]}}}]}]})
    args = cfg["profiles"][0]["pluginConfig"][0]["args"]
    assert args["scoringStrategy"] == {"type": "MostAllocated",
                                       "resources": [{"name": "cpu", "weight": 1}]}


MERGE_CASES = [
    pytest.param({"enabled": [{"name": "A"}, {"name": "B"}]},
                 {"enabled": [{"name": "C"}]},
                 {"enabled": [{"name": "A"}, {"name": "B"}, {"name": "C"}]},
                 id="custom plugins are appended"),
    pytest.param({"enabled": [{"name": "A"}, {"name": "B"}]},
                 {"disabled": [{"name": "A"}]},
                 {"enabled": [{"name": "B"}], "disabled": [{"name": "A"}]},
                 id="a disabled default is removed"),
    pytest.param({"enabled": [{"name": "A"}, {"name": "B"}]},
                 {"enabled": [{"name": "C"}], "disabled": [{"name": "*"}]},
                 {"enabled": [{"name": "C"}], "disabled": [{"name": "*"}]},
                 id="star disables every default"),
    pytest.param({"enabled": [{"name": "A", "weight": 1}, {"name": "B"}]},
                 {"enabled": [{"name": "A", "weight": 5}]},
                 {"enabled": [{"name": "A", "weight": 5}, {"name": "B"}]},
                 id="a re-configured default is replaced in place"),
    pytest.param({"enabled": [{"name": "A"}]},
                 {"enabled": [{"name": "B"}, {"name": "B"}]},
                 {"enabled": [{"name": "A"}, {"name": "B"}, {"name": "B"}]},
                 id="duplicates are kept for the framework to reject"),
]


@pytest.mark.parametrize("default, custom, expected", MERGE_CASES)
def test_merge_plugin_set(default, custom, expected):
    assert merge_plugin_set(default, custom) == expected


def test_merge_plugins_touches_every_extension_point():
    merged = merge_plugins(default_plugins(), {"score": {"disabled": [{"name": "ImageLocality"}]}})
    assert merged["score"] == {"disabled": [{"name": "ImageLocality"}]}
    assert len(merged["multiPoint"]["enabled"]) == len(DEFAULT_NAMES)


@pytest.mark.parametrize("cfg, error", [
    pytest.param({"profiles": [{"schedulerName": "a"}, {"schedulerName": "a"}]},
                 'profiles[1].schedulerName: Duplicate value: "a"', id="duplicate profile name"),
    pytest.param({"profiles": [{"schedulerName": "a"}, {}]},
                 "profiles[1].schedulerName: Required value", id="missing profile name"),
    pytest.param({"percentageOfNodesToScore": 101},
                 "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
                 id="percentage out of range"),
    pytest.param({"profiles": [{"percentageOfNodesToScore": -1}]},
                 "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]",
                 id="profile percentage out of range"),
    pytest.param({"podInitialBackoffSeconds": 0},
                 "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0",
                 id="zero initial backoff"),
    pytest.param({"podInitialBackoffSeconds": 5, "podMaxBackoffSeconds": 2},
                 "podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to "
                 "PodInitialBackoffSeconds", id="max backoff below initial"),
    pytest.param({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "EBSLimits"}]}}}]},
                 'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid '
                 'in version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is '
                 'version "kubescheduler.config.k8s.io/v1")', id="a removed plugin"),
    pytest.param({"profiles": [{"pluginConfig": [{"name": "NodeAffinity", "args": {}},
                                                 {"name": "NodeAffinity", "args": {}}]}]},
                 'profiles[0].pluginConfig[1]: Duplicate value: "NodeAffinity"',
                 id="duplicate plugin config"),
    pytest.param({"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"resources": [{"name": "cpu", "weight": 200}]}}}]}]},
        "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: "
        "200: resource weight of cpu not in valid range (0, 100]", id="plugin args are validated"),
    pytest.param({"profiles": [{"plugins": {"score": {"enabled": [
        {"name": "ImageLocality", "weight": 3000000000}]}}}]},
        "json: cannot unmarshal number 3000000000 into Go struct field "
        "Plugin.profiles.plugins.score.enabled.weight of type int32", id="a weight beyond int32"),
    pytest.param({"profiles": [{"schedulerName": "a"}, {"schedulerName": "b", "plugins": {
        "queueSort": {"disabled": [{"name": "*"}]}}}]},
        "profiles[1].plugins.queueSort: Invalid value:", id="queue sort differs between profiles"),
])
def test_validation_errors(cfg, error):
    errs = validate(complete(cfg))
    assert any(e.startswith(error) for e in errs), errs
    with pytest.raises(ConfigError):
        load(cfg)


def test_defaults_validate():
    assert validate(complete(None)) == []


@pytest.mark.parametrize("cfg, error", [
    pytest.param({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "Nope"}]}}}]},
                 'initializing profiles: creating profile for scheduler name default-scheduler: '
                 'FilterPlugin "Nope" does not exist', id="unknown plugin"),
    pytest.param({"profiles": [{"plugins": {"multiPoint": {"enabled": [{"name": "Nope"}]}}}]},
                 'initializing profiles: creating profile for scheduler name default-scheduler: '
                 'PreFilterPlugin "Nope" does not exist', id="unknown multiPoint plugin"),
    pytest.param({"profiles": [{"plugins": {"score": {"enabled": [
        {"name": "ImageLocality", "weight": 2 ** 31 - 1}]}}}]},
        None, id="a large but valid weight loads"),
    pytest.param({"profiles": [{"plugins": {"bind": {"disabled": [{"name": "*"}]}}}]},
                 'initializing profiles: creating profile for scheduler name default-scheduler: '
                 'at least one bind plugin is needed for profile with scheduler name '
                 '"default-scheduler"', id="every binder disabled"),
])
def test_framework_errors_surface_as_config_errors(cfg, error):
    if error is None:
        Scheduler(cfg, random.Random(0))
        return
    with pytest.raises(ConfigError) as e:
        Scheduler(cfg, random.Random(0))
    assert str(e.value) == error


def test_two_profiles_and_custom_weights():
    s = Scheduler({"profiles": [
        {"schedulerName": "default-scheduler"},
        {"schedulerName": "bin-packer", "plugins": {
            "multiPoint": {"enabled": [{"name": "NodeResourcesFit", "weight": 5}]},
            "score": {"disabled": [{"name": "NodeResourcesBalancedAllocation"}]}},
         "pluginConfig": [{"name": "NodeResourcesFit", "args": {
             "scoringStrategy": {"type": "MostAllocated"}}}]},
    ]}, random.Random(0))
    bp = s.profiles["bin-packer"]
    assert bp.weights["NodeResourcesFit"] == 5
    assert "NodeResourcesBalancedAllocation" not in [p.name for p in bp.score]
    assert bp.plugins["NodeResourcesFit"].scorer.name == "MostAllocated"
    assert s.responsible_for({"spec": {"schedulerName": "bin-packer"}})
    assert not s.responsible_for({"spec": {"schedulerName": "other"}})
