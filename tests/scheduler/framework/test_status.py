"""Status and its codes (after upstream framework/interface_test.go)."""

from kubesim.scheduler.framework.status import (Code, Status, as_status, code_of, is_rejected,
                                                is_success)


def test_status_basics():
    s = Status(Code.Unschedulable, "a", "b")
    assert s.message() == "a, b" and s.is_rejected() and not s.is_success()
    assert Status(Code.Error, "x", err="boom").all_reasons() == ["boom", "x"]
    assert as_status(None) is None and as_status("e").code == Code.Error
    assert code_of(None) == Code.Success and is_success(None) and not is_rejected(None)
    assert Status(Code.Pending).is_rejected()
    assert Status(Code.Skip).as_error() is None
    assert [c.name for c in Code] == ["Success", "Error", "Unschedulable",
                                      "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"]
