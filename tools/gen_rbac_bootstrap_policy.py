"""Generate kubesim/data/rbac-bootstrap-policy.json.xz: the RBAC objects a v1.35 kubeadm cluster
starts with.

Sources:

- the API server's bootstrap policy, as upstream's own golden files hold it
  (kubernetes v1.35.4 ``plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/``:
  ``cluster-roles.yaml`` and ``controller-roles.yaml`` (the ClusterRoles with the default feature
  gates; ``cluster-roles-featuregates.yaml`` is every gate on, which a default cluster is not),
  ``cluster-role-bindings.yaml``, ``controller-role-bindings.yaml``, ``namespace-roles.yaml``,
  ``namespace-role-bindings.yaml``). The RBAC REST storage's post-start hook
  (pkg/registry/rbac/rest/storage_rbac.go) creates exactly these; the aggregated roles (admin,
  edit, view) start without rules and the aggregation controller fills them;
- what ``kubeadm init`` adds (cmd/kubeadm/app/phases, written out below): kubeconfig.go's
  ``kubeadm:cluster-admins`` binding, bootstraptoken/node/tlsbootstrap.go's bindings and
  ``kubeadm:get-nodes``, bootstraptoken/clusterinfo/clusterinfo.go's role in kube-public,
  uploadconfig/uploadconfig.go's and kubelet/config.go's roles in kube-system. (The CoreDNS and
  kube-proxy add-ons' RBAC comes with those add-ons.)

Each object is stored as the API server would store it after defaulting (a subject's apiGroup).

    python tools/gen_rbac_bootstrap_policy.py [KUBERNETES_MODULE_DIR]
"""

from __future__ import annotations

import json
import lzma
import os
import sys

import yaml

MODULE = "/root/go/pkg/mod/k8s.io/kubernetes@v1.35.4"
OUT = os.path.join(os.path.dirname(__file__), "..", "kubesim", "data", "rbac-bootstrap-policy.json.xz")
FILES = ["cluster-roles.yaml", "controller-roles.yaml", "cluster-role-bindings.yaml",
         "controller-role-bindings.yaml", "namespace-roles.yaml", "namespace-role-bindings.yaml"]
RBAC = "rbac.authorization.k8s.io"
V1 = f"{RBAC}/v1"
NODES_GROUP = "system:nodes"
NODE_BOOTSTRAP_TOKEN_GROUP = "system:bootstrappers:kubeadm:default-node-token"


def _group(name: str) -> dict:
    return {"apiGroup": RBAC, "kind": "Group", "name": name}


def _crb(name: str, role: str, *subjects: dict) -> dict:
    return {"apiVersion": V1, "kind": "ClusterRoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": role}, "subjects": list(subjects)}


def _role(ns: str, name: str, rules: list[dict]) -> dict:
    return {"apiVersion": V1, "kind": "Role", "metadata": {"name": name, "namespace": ns}, "rules": rules}


def _rb(ns: str, name: str, role: str, *subjects: dict) -> dict:
    return {"apiVersion": V1, "kind": "RoleBinding", "metadata": {"name": name, "namespace": ns},
            "roleRef": {"apiGroup": RBAC, "kind": "Role", "name": role}, "subjects": list(subjects)}


def _get_configmap(name: str) -> list[dict]:
    return [{"apiGroups": [""], "resourceNames": [name], "resources": ["configmaps"], "verbs": ["get"]}]


KUBEADM = [
    # phases/kubeconfig/kubeconfig.go EnsureAdminClusterRoleBinding
    _crb("kubeadm:cluster-admins", "cluster-admin", _group("kubeadm:cluster-admins")),
    # phases/bootstraptoken/node/tlsbootstrap.go
    _crb("kubeadm:kubelet-bootstrap", "system:node-bootstrapper", _group(NODE_BOOTSTRAP_TOKEN_GROUP)),
    {"apiVersion": V1, "kind": "ClusterRole", "metadata": {"name": "kubeadm:get-nodes"},
     "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}]},
    _crb("kubeadm:get-nodes", "kubeadm:get-nodes", _group(NODE_BOOTSTRAP_TOKEN_GROUP)),
    _crb("kubeadm:node-autoapprove-bootstrap", "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
         _group(NODE_BOOTSTRAP_TOKEN_GROUP)),
    _crb("kubeadm:node-autoapprove-certificate-rotation",
         "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", _group(NODES_GROUP)),
    # phases/bootstraptoken/clusterinfo/clusterinfo.go
    _role("kube-public", "kubeadm:bootstrap-signer-clusterinfo", _get_configmap("cluster-info")),
    _rb("kube-public", "kubeadm:bootstrap-signer-clusterinfo", "kubeadm:bootstrap-signer-clusterinfo",
        {"apiGroup": RBAC, "kind": "User", "name": "system:anonymous"}),
    # phases/uploadconfig/uploadconfig.go
    _role("kube-system", "kubeadm:nodes-kubeadm-config", _get_configmap("kubeadm-config")),
    _rb("kube-system", "kubeadm:nodes-kubeadm-config", "kubeadm:nodes-kubeadm-config",
        _group(NODE_BOOTSTRAP_TOKEN_GROUP), _group(NODES_GROUP)),
    # phases/kubelet/config.go
    _role("kube-system", "kubeadm:kubelet-config", _get_configmap("kubelet-config")),
    _rb("kube-system", "kubeadm:kubelet-config", "kubeadm:kubelet-config",
        _group(NODES_GROUP), _group(NODE_BOOTSTRAP_TOKEN_GROUP)),
]


def main(module: str = MODULE) -> None:
    testdata = os.path.join(module, "plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata")
    apiserver: list[dict] = []
    for fname in FILES:
        with open(os.path.join(testdata, fname)) as f:
            for obj in yaml.safe_load(f)["items"]:
                if obj.get("rules") is None:
                    obj.pop("rules", None)
                apiserver.append(obj)
    data = {"apiserver": apiserver, "kubeadm": KUBEADM}
    with open(OUT, "wb") as f:
        f.write(lzma.compress(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()))
    print(f"{OUT}: {len(apiserver)} bootstrap policy objects, {len(KUBEADM)} of kubeadm's")


if __name__ == "__main__":
    main(*sys.argv[1:])
