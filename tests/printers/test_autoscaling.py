"""formatHPAMetrics and printHorizontalPodAutoscaler (pkg/printers/internalversion/printers.go;
printers_test.go's TestPrintHPA cases, and what the v1.35 oracle printed)."""

from __future__ import annotations

import pytest

from kubesim.printers.autoscaling import format_hpa_metrics


def res(name, **target):
    return {"type": "Resource", "resource": {"name": name, "target": target}}


def res_status(name, **current):
    return {"type": "Resource", "resource": {"name": name, "current": current}}


PODS = {"type": "Pods", "pods": {"metric": {"name": "packets"}, "target": {"type": "AverageValue", "averageValue": "1k"}}}
EXTERNAL_AVG = {"type": "External", "external": {"metric": {"name": "q"}, "target": {"type": "AverageValue", "averageValue": "10"}}}
OBJECT_VALUE = {"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "s"}, "metric": {"name": "hits"},
                                             "target": {"type": "Value", "value": "2"}}}


@pytest.mark.parametrize("specs,statuses,want", [
    pytest.param([], None, "<none>", id="no metrics"),
    pytest.param([res("cpu", type="Utilization", averageUtilization=80)], None, "cpu: <unknown>/80%",
                 id="a cpu target before the first measurement"),
    pytest.param([res("cpu", type="Utilization", averageUtilization=50)], [{"type": ""}], "cpu: <unknown>/50%",
                 id="a failed measurement leaves an empty status"),
    pytest.param([res("cpu", type="Utilization", averageUtilization=50)],
                 [res_status("cpu", averageUtilization=45, averageValue="45m")], "cpu: 45%/50%", id="a measured cpu"),
    pytest.param([res("memory", type="AverageValue", averageValue="100Mi")],
                 [res_status("memory", averageValue="52428800")], "memory: 52428800/100Mi", id="an average value"),
    pytest.param([res("cpu", type="Utilization")], None, "cpu: <unknown>/<auto>", id="a utilization without a value"),
    pytest.param([PODS], None, "<unknown>/1k", id="a pods metric"),
    pytest.param([EXTERNAL_AVG], None, "<unknown>/10 (avg)", id="an external average value"),
    pytest.param([OBJECT_VALUE], None, "<unknown>/2", id="an object value"),
    pytest.param([res("memory", type="AverageValue", averageValue="100Mi"), res("cpu", type="Utilization", averageUtilization=60),
                  PODS], None, "memory: <unknown>/100Mi, cpu: <unknown>/60% + 1 more...",
                 id="past two metrics the rest are counted as the oracle printed"),
])
def test_format_hpa_metrics(specs, statuses, want):
    assert format_hpa_metrics(specs, statuses) == want
