"""Lease validation, after pkg/apis/coordination/validation/validation_test.go
(TestValidateLease, TestValidateLeaseSpec, TestValidateLeaseSpecUpdate); texts checked against a
real v1.35 API server (``kubectl create --dry-run=server``)."""

from __future__ import annotations

import pytest

from kubesim.api.coordination.validation import validate_lease, validate_lease_spec, validate_lease_update

NAME_ERROR = ('metadata.name: Invalid value: "invalidName++": a lowercase RFC 1123 subdomain must consist of lower '
              "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
              "(e.g. 'example.com', regex used for validation is "
              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


def lease(name="holder", namespace="holder-namespace", **spec) -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def test_a_lease_with_a_bad_name_and_namespace_has_two_errors():
    errs = [str(e) for e in validate_lease(lease("invalidName++", "==invalid_Namespace=="))]
    assert len(errs) == 2 and errs[0] == NAME_ERROR and errs[1].startswith('metadata.namespace: Invalid value: "==')


SPECS = [
    ("valid", dict(holderIdentity="holder", leaseDurationSeconds=10, leaseTransitions=1), []),
    ("valid with a preferred holder and a strategy",
     dict(holderIdentity="holder", leaseDurationSeconds=10, leaseTransitions=1, strategy="OldestEmulationVersion",
          preferredHolder="someotherholder"), []),
    ("a zero duration and negative transitions",
     dict(holderIdentity="holder", leaseDurationSeconds=0, leaseTransitions=-1),
     ["foo.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "foo.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"]),
    ("a preferred holder without a strategy",
     dict(holderIdentity="holder", leaseDurationSeconds=0, leaseTransitions=-1, preferredHolder="holder2"),
     ["foo.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "foo.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
      "foo.preferredHolder: Forbidden: may only be specified if `strategy` is defined"]),
]


@pytest.mark.parametrize("spec,errors", [c[1:] for c in SPECS], ids=[c[0] for c in SPECS])
def test_lease_spec(spec, errors):
    assert [str(e) for e in validate_lease_spec(spec, "foo")] == errors


def test_an_update_validates_the_new_spec_whatever_the_old_one():
    bad = lease(holderIdentity="holder", leaseDurationSeconds=0, leaseTransitions=-1)
    old = lease(holderIdentity="oldHolder", leaseDurationSeconds=3, leaseTransitions=3)
    assert [str(e) for e in validate_lease_update(bad, old)] == [
        "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
        "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"]
    good = lease(holderIdentity="holder", leaseDurationSeconds=10, leaseTransitions=20)
    assert validate_lease_update(good, old) == []
