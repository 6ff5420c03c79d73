import pytest

from kubesim.testing.cli import Harness


@pytest.fixture
def kubesim(tmp_path):
    """A CLI harness on a fresh state, with the clock pinned and names seeded."""
    return Harness(tmp_path / "state")
