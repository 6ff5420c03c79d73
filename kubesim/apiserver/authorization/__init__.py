"""Who makes a request and whether they may: the request's user (kubesim's own, or the one it
impersonates) and the RBAC authorizer.

Upstream: staging/src/k8s.io/apiserver/pkg/authentication/user (``user.Info``, the
``system:authenticated`` group), pkg/endpoints/filters/impersonation/impersonation.go (what
``--as``/``--as-group`` make of the request's user), pkg/authorization/authorizer (the request's
``Attributes``), pkg/endpoints/handlers/responsewriters/errors.go (``ForbiddenStatusError``'s
text); the authorizer itself is ``rbac.py`` (plugin/pkg/auth/authorizer/rbac and
pkg/registry/rbac/validation/rule.go).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

ALL_AUTHENTICATED = "system:authenticated"
ALL_UNAUTHENTICATED = "system:unauthenticated"
ANONYMOUS = "system:anonymous"
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"
CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"

# kubeadm's admin.conf: a client certificate for kubernetes-admin in kubeadm:cluster-admins
# (cmd/kubeadm/app/phases/kubeconfig; bound to cluster-admin by kubeadm:cluster-admins)
ADMIN_USER = "kubernetes-admin"
ADMIN_GROUP = "kubeadm:cluster-admins"


@dataclass(frozen=True)
class UserInfo:
    name: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: dict = field(default_factory=dict, hash=False, compare=False)


def user_info_json(user: UserInfo) -> dict:
    """authentication/v1 UserInfo as JSON (omitempty fields left out): a SelfSubjectReview's
    status.userInfo, an audit event's user."""
    out: dict = {"username": user.name}
    if user.uid:
        out["uid"] = user.uid
    if user.groups:
        out["groups"] = list(user.groups)
    if user.extra:
        out["extra"] = {k: list(v) for k, v in user.extra.items()}
    return out


# the certificate kubesim's kubeconfig carries in its place (kubesim.kubectl.clientcmd)
ADMIN_CERTIFICATE = b"-----BEGIN CERTIFICATE-----\nkubesim: no real certificate\n-----END CERTIFICATE-----\n"


def admin_user() -> UserInfo:
    """kubesim's own user, as the x509 authenticator reads admin.conf's certificate (the
    credential id is the certificate's SHA-256, here of kubesim's placeholder)."""
    digest = hashlib.sha256(ADMIN_CERTIFICATE).hexdigest()
    return UserInfo(ADMIN_USER, (ADMIN_GROUP, ALL_AUTHENTICATED), extra={CREDENTIAL_ID: [f"X509SHA256={digest}"]})


def split_service_account(username: str) -> tuple[str, str] | None:
    """serviceaccount.SplitUsername: (namespace, name) of ``system:serviceaccount:NS:NAME``."""
    if not username.startswith(SERVICE_ACCOUNT_PREFIX):
        return None
    parts = username[len(SERVICE_ACCOUNT_PREFIX):].split(":")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    return parts[0], parts[1]


def impersonated_user(as_user: str, as_groups: list[str] | tuple[str, ...] = (), as_uid: str = "") -> UserInfo:
    """The user the impersonation filter puts on a request with ``Impersonate-User`` (and
    ``-Group``, ``-Uid``): a service account's groups when no group is asked for, then
    ``system:authenticated`` (``system:unauthenticated`` for ``system:anonymous``) unless given."""
    groups = list(as_groups)
    sa = split_service_account(as_user)
    if sa is not None and not groups:
        groups = [SERVICE_ACCOUNTS_GROUP, f"{SERVICE_ACCOUNTS_GROUP}:{sa[0]}"]
    if as_user != ANONYMOUS:
        if not any(g in (ALL_AUTHENTICATED, ALL_UNAUTHENTICATED) for g in groups):
            groups.append(ALL_AUTHENTICATED)
    elif ALL_UNAUTHENTICATED not in groups:
        groups.append(ALL_UNAUTHENTICATED)
    return UserInfo(as_user, tuple(groups), as_uid)


@dataclass(frozen=True)
class Attributes:
    """authorizer.AttributesRecord: a resource request (verb, group, resource, subresource,
    namespace, name) or a non-resource one (verb, path)."""

    user: UserInfo
    verb: str
    resource_request: bool = True
    api_group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""


def forbidden_message(attrs: Attributes) -> str:
    """responsewriters.forbiddenMessage."""
    user = attrs.user.name
    if not attrs.resource_request:
        return f'User "{user}" cannot {attrs.verb} path "{attrs.path}"'
    resource = f"{attrs.resource}/{attrs.subresource}" if attrs.subresource else attrs.resource
    if attrs.namespace:
        return (f'User "{user}" cannot {attrs.verb} resource "{resource}" in API group "{attrs.api_group}" '
                f'in the namespace "{attrs.namespace}"')
    return f'User "{user}" cannot {attrs.verb} resource "{resource}" in API group "{attrs.api_group}" at the cluster scope'


def forbidden_error(attrs: Attributes, reason: str = ""):
    """responsewriters.ForbiddenStatusError: apierrors.NewForbidden of the resource (qualified by
    its group), its name, and the message with the authorizer's reason."""
    from kubesim.errors import Forbidden

    msg = forbidden_message(attrs)
    if reason:
        msg = f"{msg}: {reason}"
    resource = f"{attrs.resource}.{attrs.api_group}" if attrs.api_group else attrs.resource
    if not attrs.resource_request:
        return Forbidden(f"forbidden: {msg}")
    if attrs.name:
        return Forbidden(f'{resource} "{attrs.name}" is forbidden: {msg}')
    return Forbidden(f"{resource} is forbidden: {msg}")


# the groups the API server's privileged-group authorizer allows everything
# (pkg/kubeapiserver/authorizer/config.go: authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup))
SYSTEM_PRIVILEGED_GROUP = "system:masters"


def authorize(lister, getter, attrs: Attributes) -> tuple[bool, str]:
    """The API server's authorizer chain as kubesim has it: the privileged group, then RBAC
    (the Node authorizer, for kubelets' requests, is not modelled). (allowed, reason)."""
    if SYSTEM_PRIVILEGED_GROUP in attrs.user.groups:
        return True, ""
    from kubesim.apiserver.authorization import rbac

    return rbac.authorize(lister, getter, attrs)
