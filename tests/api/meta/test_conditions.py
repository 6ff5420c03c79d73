"""apimeta.SetStatusCondition."""

from kubesim.api.meta.conditions import set_status_condition

OLD = [{"type": "Ready", "status": "True", "lastTransitionTime": "t0", "reason": "A", "message": ""}]


def test_a_new_condition_gets_the_transition_time_now():
    got = set_status_condition([], {"type": "Ready", "status": "True", "reason": "A"}, "t1")
    assert got == [{"type": "Ready", "status": "True", "lastTransitionTime": "t1", "reason": "A", "message": ""}]


def test_the_transition_time_moves_only_with_the_status():
    assert set_status_condition(OLD, {"type": "Ready", "status": "True", "reason": "B"}, "t1")[0]["lastTransitionTime"] == "t0"
    assert set_status_condition(OLD, {"type": "Ready", "status": "False", "reason": "B"}, "t1")[0]["lastTransitionTime"] == "t1"
