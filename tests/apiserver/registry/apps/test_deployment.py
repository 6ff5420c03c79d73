"""The Deployment strategy (pkg/registry/apps/deployment): a new Deployment as the API server
stores it, and the generation on update."""

import copy

from kubesim.apiserver.objects import prepare_for_create, prepare_for_update
from tests.api.builders import SERVER_SPEC, deploy


def test_deployment_defaults_as_the_api_server_stores_them():
    d = deploy()
    prepare_for_create(d)
    assert d["spec"] == SERVER_SPEC
    assert d["status"] == {} and d["metadata"]["generation"] == 1


def test_an_update_bumps_generation_only_when_the_spec_changes():
    old = deploy()
    prepare_for_create(old)
    old["status"] = {"replicas": 2}
    same = copy.deepcopy(old)
    prepare_for_update(same, old)
    assert same["metadata"]["generation"] == 1 and same["status"] == {"replicas": 2}
    scaled = copy.deepcopy(old)
    scaled["spec"]["replicas"] = 5
    prepare_for_update(scaled, old)
    assert scaled["metadata"]["generation"] == 2
