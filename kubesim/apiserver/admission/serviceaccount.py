"""ServiceAccount: every pod runs as a service account, with its API token mounted.

Upstream: plugin/pkg/admission/serviceaccount/admission.go (``Admit``: ``serviceAccountName``
defaults to ``default``; unless ``automountServiceAccountToken: false``, a projected
``kube-api-access-<random>`` volume (token, ``kube-root-ca.crt``, namespace) is added and
mounted read-only at ``/var/run/secrets/kubernetes.io/serviceaccount`` in every container that
does not mount that path already; ``Validate``: a mirror pod may not name a service account nor
reference secrets or configmaps) and pkg/serviceaccount (``TokenVolumeSource``,
``WarnOnlyBoundTokenExpirationSeconds``). Runs on pod creates.

Not modelled: ServiceAccount objects (the pod's account is assumed to exist and to allow
automounting).
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
        spec["serviceAccountName"] = "default"
    spec["serviceAccount"] = spec["serviceAccountName"]
    if spec.get("automountServiceAccountToken") is False:
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
