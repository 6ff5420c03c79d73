"""The PodDisruptionBudget strategy (pkg/registry/policy/poddisruptionbudget): status and
generation."""

import copy

from kubesim.apiserver.objects import prepare_for_update
from tests.api.builders import created, pdb


def test_pdb_defaults_status_and_generation():
    obj = created(pdb())
    assert obj["status"] == {"currentHealthy": 0, "desiredHealthy": 0, "disruptionsAllowed": 0, "expectedPods": 0}
    assert obj["metadata"]["generation"] == 1
    new = copy.deepcopy(obj)
    new["spec"]["minAvailable"] = 2
    prepare_for_update(new, obj)
    assert new["metadata"]["generation"] == 2
