"""CycleState (after upstream framework/cycle_state_test.go)."""

import pytest

from kubesim.scheduler.framework.cycle_state import CycleState, StateNotFound


def test_cycle_state_read_write_clone():
    class Counter:
        def __init__(self, n):
            self.n = n

        def clone(self):
            return Counter(self.n)

    st = CycleState()
    st.write("k", Counter(1))
    c = st.clone()
    c.read("k").n = 2
    assert st.read("k").n == 1 and "k" in st
    with pytest.raises(StateNotFound):
        st.read("missing")
