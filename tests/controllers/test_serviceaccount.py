"""The service account controller and the root CA publisher as pure functions
(pkg/controller/serviceaccount/serviceaccounts_controller_test.go TestServiceAccountCreation,
pkg/controller/certificates/rootcacertpublisher/publisher_test.go TestConfigMapCreation)."""

from __future__ import annotations

import pytest

from kubesim.controllers import rootcacertpublisher, serviceaccount
from kubesim.controllers.base import View


def ns(name, phase="Active", deleting=False):
    md = {"name": name}
    if deleting:
        md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"kind": "Namespace", "metadata": md, "status": {"phase": phase}}


def sa(name, namespace):
    return {"kind": "ServiceAccount", "metadata": {"name": name, "namespace": namespace}}


@pytest.mark.parametrize("namespaces, accounts, want", [
    ([ns("a")], [], [("a", "default")]),
    ([ns("a")], [sa("default", "a")], []),
    ([ns("a")], [sa("other", "a")], [("a", "default")]),
    ([ns("a", "Terminating")], [], []),
    ([ns("a"), ns("b")], [sa("default", "b")], [("a", "default")]),
], ids=["a new active namespace gets default", "an existing default is left alone",
        "another account does not count", "a terminating namespace gets nothing",
        "only the namespaces that lack it"])
def test_service_account_creation(namespaces, accounts, want):
    changes = serviceaccount.sync(View({"Namespace": namespaces, "ServiceAccount": accounts}))
    assert [(c.op, c.obj["metadata"]["namespace"], c.obj["metadata"]["name"]) for c in changes] == \
        [("create", n, name) for n, name in want]


CA = "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n"
DESC = {rootcacertpublisher.DESCRIPTION_ANNOTATION: rootcacertpublisher.DESCRIPTION}


def cm(data, annotations=None, namespace="a"):
    return {"kind": "ConfigMap", "metadata": {"name": "kube-root-ca.crt", "namespace": namespace,
                                              "annotations": annotations or {}}, "data": data}


@pytest.mark.parametrize("namespaces, maps, want", [
    ([ns("a")], [], [("create", {"ca.crt": CA})]),
    ([ns("a")], [cm({"ca.crt": CA}, DESC)], []),
    ([ns("a")], [cm({"ca.crt": "tampered"}, DESC)], [("update", {"ca.crt": CA})]),
    ([ns("a")], [cm({"ca.crt": CA, "extra": "x"}, DESC)], [("update", {"ca.crt": CA})]),
    ([ns("a")], [cm({"ca.crt": CA})], [("update", {"ca.crt": CA})]),
    ([ns("a", deleting=True)], [], []),
], ids=["a namespace without it gets it", "an unchanged one is left alone", "changed data is put back",
        "an added key is dropped", "a lost description annotation is put back", "a namespace being deleted"])
def test_config_map_creation(namespaces, maps, want):
    changes = rootcacertpublisher.sync(View({"Namespace": namespaces, "ConfigMap": maps}), CA)
    assert [(c.op, c.obj["data"]) for c in changes] == want
    for c in changes:
        assert c.obj["metadata"]["annotations"][rootcacertpublisher.DESCRIPTION_ANNOTATION] == \
            rootcacertpublisher.DESCRIPTION
