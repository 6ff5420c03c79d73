"""The RBAC objects a v1.35 kubeadm cluster starts with, from kubesim's data file.

Upstream: plugin/pkg/auth/authorizer/rbac/bootstrappolicy (policy.go, controller_policy.go,
namespace_policy.go; their golden files in testdata/ are what ``tools/gen_rbac_bootstrap_policy.py``
converted into ``kubesim/data/rbac-bootstrap-policy.json.xz``), created by the RBAC REST
storage's post-start hook (pkg/registry/rbac/rest/storage_rbac.go); then what ``kubeadm init``
adds (cmd/kubeadm/app/phases: the ``kubeadm:cluster-admins`` binding its admin.conf's group
relies on, the node bootstrap bindings, the kubeadm-config and kubelet-config readers).
"""

from __future__ import annotations

import json
import lzma
import os

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "data",
                     "rbac-bootstrap-policy.json.xz")


def bootstrap_objects() -> list[dict]:
    """Every object, the API server's bootstrap policy first, then kubeadm's (decoded afresh
    on each call: the caller owns them)."""
    with open(_DATA, "rb") as f:
        data = json.loads(lzma.decompress(f.read()))
    return data["apiserver"] + data["kubeadm"]
