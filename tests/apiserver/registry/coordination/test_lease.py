"""The Lease strategy (pkg/registry/coordination/lease/strategy.go): CoordinatedLeaderElection's
fields are dropped while its gate is off (v1.35's default), and MicroTimes are stored in UTC
with six fractional digits, as the API server encodes them."""

from __future__ import annotations

import copy
import random

import pytest

from kubesim.apiserver.objects import prepare_for_create, prepare_for_update
from kubesim.apiserver.registry.coordination.lease import strategy


def lease(**spec) -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "l", "namespace": "default"}, "spec": spec}


def test_a_new_lease_loses_the_gated_fields():
    obj = lease(holderIdentity="me", strategy="OldestEmulationVersion", preferredHolder="you")
    prepare_for_create(obj, rng=random.Random(0))
    assert obj["spec"] == {"holderIdentity": "me"}


@pytest.mark.parametrize("old_spec,kept", [
    ({}, {}),
    ({"strategy": "OldestEmulationVersion", "preferredHolder": "x"},
     {"strategy": "OldestEmulationVersion", "preferredHolder": "you"}),
], ids=["an update may not add them", "an update keeps them where the old lease had them"])
def test_an_update_keeps_the_gated_fields_only_where_they_were(old_spec, kept):
    new = lease(holderIdentity="me", strategy="OldestEmulationVersion", preferredHolder="you")
    prepare_for_update(new, lease(holderIdentity="me", **old_spec))
    assert {k: v for k, v in new["spec"].items() if k != "holderIdentity"} == kept


@pytest.mark.parametrize("given,stored", [
    ("2026-11-22T10:00:00.000000Z", "2026-11-22T10:00:00.000000Z"),
    ("2026-11-22T11:00:00.250000+01:00", "2026-11-22T10:00:00.250000Z"),
], ids=["UTC stays", "an offset is converted to UTC"])
def test_micro_times_are_stored_in_utc_with_six_digits(given, stored):
    obj = lease(renewTime=given, acquireTime=given)
    strategy.canonicalize(obj)
    assert obj["spec"] == {"renewTime": stored, "acquireTime": stored}
    assert copy.deepcopy(obj) == obj
