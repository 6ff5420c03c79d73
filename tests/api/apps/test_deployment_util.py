"""The Deployment helpers the controller and kubectl share (deploymentutil)."""

import pytest

from kubesim.api.apps import deployment_util as du


@pytest.mark.parametrize("a,b,expected", [
    ({"metadata": {"labels": {"app": "x", "pod-template-hash": "abc"}}, "spec": {"containers": [{"name": "c"}]}},
     {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c"}]}}, True),
    ({"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "a"}]}},
     {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "b"}]}}, False),
], ids=["the pod-template-hash label is ignored", "another image is another template"])
def test_equal_ignore_hash(a, b, expected):
    assert du.equal_ignore_hash(a, b) is expected
