"""ServiceAccount: every pod runs as a service account, with its API token mounted.

Upstream: plugin/pkg/admission/serviceaccount/admission.go (``Admit``: ``serviceAccountName``
defaults to ``default``; unless ``automountServiceAccountToken: false``, a projected
``kube-api-access-<random>`` volume (token, ``kube-root-ca.crt``, namespace) is added and
mounted read-only at ``/var/run/secrets/kubernetes.io/serviceaccount`` in every container that
does not mount that path already; ``Validate``: a mirror pod may not name a service account nor
reference secrets or configmaps) and pkg/serviceaccount (``TokenVolumeSource``,
``WarnOnlyBoundTokenExpirationSeconds``). Runs on pod creates.

The pod's account is looked up (``getServiceAccount``): a missing one is refused with
``error looking up service account <ns>/<name>: serviceaccount "<name>" not found``. For
``default`` upstream retries for about a second, long enough for the service account controller
to create it in a namespace created just before (a Namespace and its Pods in one file): kubesim's
controller runs in the same command, so a missing ``default`` in an Active namespace is taken as
about to exist. The account's ``automountServiceAccountToken`` applies when the pod does not say
(``shouldAutomount``), and its ``imagePullSecrets`` are copied to a pod that has none. Where the
request has no cluster to read (the kubelet's mirror pods, a fresh cluster), nothing is looked up.

Not modelled: the ``kubernetes.io/enforce-mountable-secrets`` annotation (limitSecretReferences).
"""

from __future__ import annotations

from kubesim.api.names import generate_name
from kubesim.api.pods import MIRROR_POD_ANNOTATION
from kubesim.apiserver.admission.interfaces import (
    CREATE,
    Attributes,
    MutationPlugin,
    forbidden,
)
from kubesim.errors import Forbidden

DEFAULT_SERVICE_ACCOUNT_NAME = "default"
TOKEN_VOLUME_PREFIX = "kube-api-access-"
TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_EXPIRATION_SECONDS = 3607  # serviceaccount.WarnOnlyBoundTokenExpirationSeconds


class ServiceAccount(MutationPlugin):
    name = "ServiceAccount"

    def admit(self, a: Attributes) -> None:
        if a.operation == CREATE and a.kind == "Pod":
            admit_pod(a)


def admit_pod(a: Attributes) -> None:
    """The plugin on a pod create (a mirror pod is only checked, as Validate does)."""
    pod = a.obj
    meta = pod.get("metadata") or {}
    spec = pod.setdefault("spec", {})
    if MIRROR_POD_ANNOTATION in (meta.get("annotations") or {}):
        _validate_mirror_pod(a)  # mirror pods are left alone, and may not reference credentials
        return
    if not spec.get("serviceAccountName"):
        spec["serviceAccountName"] = DEFAULT_SERVICE_ACCOUNT_NAME
    spec["serviceAccount"] = spec["serviceAccountName"]
    sa = get_service_account(a, meta.get("namespace") or "", spec["serviceAccountName"])
    if not spec.get("imagePullSecrets") and sa.get("imagePullSecrets"):
        spec["imagePullSecrets"] = [{"name": (s or {}).get("name", "")} for s in sa["imagePullSecrets"]
                                    if isinstance(s, dict)]
    if not should_automount(sa, pod):
        return
    volumes = spec.get("volumes")
    if not isinstance(volumes, list):
        volumes = []
    token_volume = ""
    for v in volumes:
        if isinstance(v, dict) and str(v.get("name", "")).startswith(TOKEN_VOLUME_PREFIX):
            token_volume = v["name"]
            break
    has_volume = bool(token_volume)
    if not token_volume:
        rng = a.rng
        if rng is None:
            import random

            rng = random.Random()
        token_volume = generate_name(TOKEN_VOLUME_PREFIX, rng)
    needs_volume = False
    for key in ("initContainers", "containers"):
        for c in spec.get(key) or ():
            if not isinstance(c, dict):
                continue
            mounts = c.get("volumeMounts")
            if not isinstance(mounts, list):
                mounts = []
            if any(isinstance(m, dict) and m.get("mountPath") == TOKEN_MOUNT_PATH for m in mounts):
                continue
            mounts.append({"name": token_volume, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH})
            c["volumeMounts"] = mounts
            needs_volume = True
    if not has_volume and needs_volume:
        volumes.append(token_volume_source(token_volume))
        spec["volumes"] = volumes


def get_service_account(a: Attributes, namespace: str, name: str) -> dict:
    """getServiceAccount: the stored account, or Forbidden with upstream's text. ``{}`` where
    there is nothing to read, or for ``default`` in an Active namespace whose controller has not
    run yet (see the module's docstring)."""
    if a.lister is None:
        return {}
    for sa in a.lister("ServiceAccount"):
        md = sa.get("metadata") or {}
        if md.get("name") == name and (md.get("namespace") or "") == namespace:
            return sa
    if name == DEFAULT_SERVICE_ACCOUNT_NAME:
        ns = next((ns for ns in a.lister("Namespace") if (ns.get("metadata") or {}).get("name") == namespace), None)
        # a missing namespace is NamespaceLifecycle's to refuse (kubesim: after admission)
        if ns is None or (ns.get("status") or {}).get("phase", "Active") == "Active":
            return {}
    detail = f'error looking up service account {namespace}/{name}: serviceaccount "{name}" not found'
    from kubesim.api.names import looks_generated

    md = a.obj.get("metadata") or {}
    if looks_generated(md):  # named before admission in kubesim; upstream's message names the prefix
        raise Forbidden(f'pods "{md["generateName"]}" is forbidden: {detail}')
    raise forbidden(a, detail)


def should_automount(sa: dict, pod: dict) -> bool:
    """shouldAutomount: the pod's automountServiceAccountToken, else the account's, else true."""
    pod_says = (pod.get("spec") or {}).get("automountServiceAccountToken")
    if pod_says is not None:
        return bool(pod_says)
    sa_says = sa.get("automountServiceAccountToken")
    return True if sa_says is None else bool(sa_says)


def _validate_mirror_pod(a: Attributes) -> None:
    """The plugin's Validate for mirror pods (no service account, secret or configmap)."""
    spec = a.obj.get("spec") or {}
    if spec.get("serviceAccountName"):
        raise forbidden(a, "a mirror pod may not reference service accounts")
    secrets = configmaps = False
    for v in spec.get("volumes") or ():
        if not isinstance(v, dict):
            continue
        secrets |= v.get("secret") is not None
        configmaps |= v.get("configMap") is not None
        for src in (v.get("projected") or {}).get("sources") or () if isinstance(v.get("projected"), dict) else ():
            if isinstance(src, dict):
                secrets |= src.get("secret") is not None
                configmaps |= src.get("configMap") is not None
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in spec.get(key) or ():
            if not isinstance(c, dict):
                continue
            for ev in c.get("env") or ():
                vf = (ev or {}).get("valueFrom") if isinstance(ev, dict) else None
                if isinstance(vf, dict):
                    secrets |= vf.get("secretKeyRef") is not None
                    configmaps |= vf.get("configMapKeyRef") is not None
            for ef in c.get("envFrom") or ():
                if isinstance(ef, dict):
                    secrets |= ef.get("secretRef") is not None
                    configmaps |= ef.get("configMapRef") is not None
    if secrets:
        raise forbidden(a, "a mirror pod may not reference secrets")
    if configmaps:
        raise forbidden(a, "a mirror pod may not reference configmaps")


def token_volume_source(name: str) -> dict:
    """The projected volume the plugin adds (TokenVolumeSource)."""
    return {
        "name": name,
        "projected": {
            "defaultMode": 420,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": TOKEN_EXPIRATION_SECONDS, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace",
                                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
            ],
        },
    }
