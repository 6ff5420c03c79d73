"""The service account controller: every active namespace has the ``default`` ServiceAccount.

Upstream: pkg/controller/serviceaccount/serviceaccounts_controller.go (``syncNamespace``: for an
Active namespace, each account of ``serviceAccountsToEnsure`` — only ``default`` — that its
lister does not have is created; a namespace being deleted gets none). It syncs a namespace when
the namespace is added or updated, or when one of its ServiceAccounts is deleted.

``sync(view)`` reads Namespaces and ServiceAccounts; the engine (``kubesim.controlplane.
components.service_accounts``) runs it only when one of those was written.
"""

from __future__ import annotations

from kubesim.controllers.base import Change, View

DEFAULT_SERVICE_ACCOUNT_NAME = "default"
SERVICE_ACCOUNTS_TO_ENSURE = (DEFAULT_SERVICE_ACCOUNT_NAME,)


def missing(namespaces: list[dict], existing: set[tuple[str, str]]) -> list[dict]:
    """The ServiceAccounts syncNamespace creates: one per account to ensure, per Active
    namespace that lacks it."""
    out = []
    for ns in namespaces:
        md = ns.get("metadata") or {}
        if (ns.get("status") or {}).get("phase") != "Active" or md.get("deletionTimestamp"):
            continue
        for name in SERVICE_ACCOUNTS_TO_ENSURE:
            if (md.get("name", ""), name) not in existing:
                out.append({"apiVersion": "v1", "kind": "ServiceAccount",
                            "metadata": {"name": name, "namespace": md.get("name", "")}})
    return out


def sync(view: View) -> list[Change]:
    existing = {((sa.get("metadata") or {}).get("namespace", ""), (sa.get("metadata") or {}).get("name", ""))
                for sa in view.list("ServiceAccount")}
    return [Change("create", obj) for obj in missing(view.list("Namespace"), existing)]
