"""The last line of defence (cli/main.py): an exception no layer turned into kubectl's text
prints one line, exit 1, with the stack only at --v=6 or more, and the state is unchanged (the
command's transaction rolled back)."""

from __future__ import annotations

import pytest

from kubesim.testing.cli import snapshot


@pytest.fixture
def broken_scale(monkeypatch):
    """The API client fails with an unexpected exception just after it has written."""
    from kubesim.controlplane.client import LocalClient

    for method in ("update", "patch"):
        def boom(self, *a, _original=getattr(LocalClient, method), **kw):
            _original(self, *a, **kw)
            raise RuntimeError("boom")

        monkeypatch.setattr(LocalClient, method, boom)


def test_an_unexpected_exception_is_one_line_and_changes_nothing(kubesim, broken_scale):
    kubesim.ok("create deployment web --image=nginx --replicas=1")
    before = snapshot(kubesim.state_dir)
    r = kubesim("scale deployment web --replicas=3")
    assert (r.code, r.out) == (1, "")
    assert r.err == ("error: internal error: RuntimeError: boom\n(a kubesim bug: nothing was changed; run the "
                     "command again with --v=6 for the stack)\n")
    assert "Traceback" not in r.err
    assert snapshot(kubesim.state_dir) == before


def test_v6_prints_the_stack_first(kubesim, broken_scale):
    kubesim.ok("create deployment web --image=nginx --replicas=1")
    r = kubesim("scale deployment web --replicas=3 --v=6")
    assert r.code == 1
    assert r.err.startswith("Traceback (most recent call last):\n")
    assert "RuntimeError: boom\nerror: internal error: RuntimeError: boom\n" in r.err
