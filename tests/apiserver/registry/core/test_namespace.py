"""The Namespace strategy (pkg/registry/core/namespace/strategy.go): a new namespace is Active
with its finalizer and name label; an update keeps the finalizers and status."""

from __future__ import annotations

import copy
import random

from kubesim.apiserver.objects import prepare_for_create, prepare_for_update


def defaulted(obj: dict, seed: int = 0) -> dict:
    out = copy.deepcopy(obj)
    prepare_for_create(out, rng=random.Random(seed))
    return out


def test_a_namespace_is_stored_active_with_its_finalizer_and_name_label():
    assert defaulted({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev"}}) == {
        "apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": "dev", "labels": {"kubernetes.io/metadata.name": "dev"}},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def test_namespace_finalizers_and_labels_are_merged():
    ns = {"apiVersion": "v1", "kind": "Namespace",
          "metadata": {"name": "dev", "labels": {"team": "a", "kubernetes.io/metadata.name": "wrong"}},
          "spec": {"finalizers": ["example.com/x"]}, "status": {"phase": "Terminating"}}
    got = defaulted(ns)
    assert got["metadata"]["labels"] == {"team": "a", "kubernetes.io/metadata.name": "dev"}
    assert got["spec"]["finalizers"] == ["example.com/x", "kubernetes"]
    assert got["status"] == {"phase": "Active"}


def test_namespace_updates_keep_finalizers_and_status():
    old = defaulted({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev"}})
    new = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev", "labels": {"x": "y"}}}
    prepare_for_update(new, old)
    assert new["spec"] == {"finalizers": ["kubernetes"]} and new["status"] == {"phase": "Active"}
    assert new["metadata"]["labels"] == {"x": "y", "kubernetes.io/metadata.name": "dev"}
