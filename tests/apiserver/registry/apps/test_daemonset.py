"""The DaemonSet strategy (pkg/registry/apps/daemonset): a new DaemonSet as stored, with its
template generation."""

from kubesim.apiserver.objects import prepare_for_create
from tests.api.builders import deploy


def test_daemonset_defaults():
    ds = deploy()
    ds["kind"] = "DaemonSet"
    del ds["spec"]["replicas"]
    prepare_for_create(ds)
    assert ds["spec"]["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert ds["spec"]["revisionHistoryLimit"] == 10
    assert ds["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    assert ds["status"] == {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                            "numberReady": 0}
