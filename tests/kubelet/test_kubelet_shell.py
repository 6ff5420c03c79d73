"""The shell-script reader (kubesim.kubelet.shell)."""

from __future__ import annotations

import pytest

from kubesim.kubelet.shell import FOREVER, parse_sleep


@pytest.mark.parametrize("text,seconds", [("10", 10.0), ("1.5", 1.5), ("2m", 120.0), ("1h", 3600.0), ("1d", 86400.0),
                                          ("infinity", FOREVER), ("x", None)],
                         ids=lambda v: str(v))
def test_sleep_operands(text, seconds):
    assert parse_sleep(text) == seconds
