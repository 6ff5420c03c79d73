"""RuntimeClass admission (plugin/pkg/admission/runtimeclass/admission_test.go's cases)."""

import pytest

from kubesim.apiserver.admission import CREATE, Attributes
from kubesim.apiserver.admission.runtimeclass import admit_pod
from kubesim.errors import Forbidden

RC = {"metadata": {"name": "kata"}, "handler": "kata", "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
      "scheduling": {"nodeSelector": {"sandbox": "true"},
                     "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}}


def pod(**spec):
    return {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"runtimeClassName": "kata", "containers": [{"name": "c"}], **spec}}


def admit(pod: dict, runtime_class: dict | None) -> None:
    admit_pod(Attributes(CREATE, pod), runtime_class)


def test_the_class_overhead_selector_and_tolerations_are_applied():
    p = pod()
    admit(p, RC)
    assert p["spec"]["overhead"] == {"cpu": "250m", "memory": "120Mi"}
    assert p["spec"]["nodeSelector"] == {"sandbox": "true"}
    assert p["spec"]["tolerations"] == RC["scheduling"]["tolerations"]


@pytest.mark.parametrize("p, rc, message", [
    pytest.param(pod(), None, 'pod rejected: RuntimeClass "kata" not found', id="an unknown class is refused"),
    pytest.param(pod(overhead={"cpu": "1"}), RC, "Pod's Overhead doesn't match RuntimeClass's defined Overhead",
                 id="a different overhead on the pod is refused"),
    pytest.param(pod(overhead={"cpu": "1"}), {"handler": "x"},
                 "Pod Overhead set without corresponding RuntimeClass defined Overhead",
                 id="an overhead without one on the class is refused"),
    pytest.param(pod(nodeSelector={"sandbox": "false"}), RC, "conflict: runtimeClass.scheduling.nodeSelector[sandbox]",
                 id="a conflicting node selector is refused"),
])
def test_refusals(p, rc, message):
    with pytest.raises(Forbidden) as e:
        admit(p, rc)
    assert message in str(e.value)


def test_a_pod_without_a_class_is_untouched():
    p = {"metadata": {"name": "p"}, "spec": {"containers": []}}
    admit(p, None)
    assert p == {"metadata": {"name": "p"}, "spec": {"containers": []}}
