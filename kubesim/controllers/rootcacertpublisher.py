"""The root CA certificate publisher: every namespace has the ``kube-root-ca.crt`` ConfigMap.

Upstream: pkg/controller/certificates/rootcacertpublisher/publisher.go (``syncNamespace``: a
namespace without the ConfigMap gets it, ``ca.crt`` the cluster's CA bundle and the
``kubernetes.io/description`` annotation; one whose data or annotation was changed is put back;
a namespace being deleted gets none, as its create is refused). It syncs a namespace when the
namespace is added or updated, or when that ConfigMap is updated or deleted.

The CA is kubesim's: a fixed self-signed ``CN=kubernetes`` certificate (``ROOT_CA``), copied
into the state when the publisher first runs (``ROOT_CA_META``), which pods read through their
service account token volume.
"""

from __future__ import annotations

import copy

from kubesim.controllers.base import Change, View

ROOT_CA_CERT_CONFIG_MAP_NAME = "kube-root-ca.crt"
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
DESCRIPTION = ("Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
               "such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
               "distributions of Kubernetes clusters.")
ROOT_CA_META = "cluster.rootCA"

ROOT_CA = """-----BEGIN CERTIFICATE-----
MIIDGzCCAgOgAwIBAgIUHSmKnGheVubTSWfJPc2JMXUE3ZQwDQYJKoZIhvcNAQEL
BQAwFTETMBEGA1UEAwwKa3ViZXJuZXRlczAeFw0yNjExMjYxMDQ4MjdaFw0zNjEx
MjMxMDQ4MjdaMBUxEzARBgNVBAMMCmt1YmVybmV0ZXMwggEiMA0GCSqGSIb3DQEB
AQUAA4IBDwAwggEKAoIBAQDbDqXezcN+YGABEwL+l0OlO9FspJ+t66WmpsVNSfjc
Pv4xcKu7xXP0E4+GA4YyGmd7oNUqEPnIIkkX1O1Rwh5nUBQh7NwBPSsNwJGhvuH5
gBnaPo3kSYwFSEAOKjmCa7Mh0M3bEHMDhTy+c5Ste0mbJOyCh865ynPuLsd2l06k
kdXBX5PmI7vdgpwQkXWoiRtsC66KSwCrKFWjRAZEl5Gq7u9m8XcRehsv3W0ADWDE
nj/EOTUZU1rnQX7k5+bzUZAQs73AQf1AQGiCMhT24fMNho9i+/o3gPhHROxtkvL3
8jh03cC97ex9Whp/LCE0Tz8XaT8IasWMa4PFHQptYs1PAgMBAAGjYzBhMB0GA1Ud
DgQWBBT5yBiWJwB+oIffv64GJIjBgWQYaDAfBgNVHSMEGDAWgBT5yBiWJwB+oIff
v64GJIjBgWQYaDAOBgNVHQ8BAf8EBAMCAqQwDwYDVR0TAQH/BAUwAwEB/zANBgkq
hkiG9w0BAQsFAAOCAQEAFXF+b6cBt6+6rPHXSPPK1ypjHvAbV1HvLk905N/fXa6L
/siKelTOFUsFKDrZE3BDHnNPc3NoCtNF2N0pcuokkI92YahKrCsz3yux75Ups9up
pTqJfIZ25gVH0/G/im5zhmHJnwjKYpM5gimY4O7EYdrR548JIvyWKTVmnYYGX7Do
pSUlNa86nqdxMk0Q6/f4J2xkdyeog+hhLEnJTJ0C3Od0SdcmrvAdnppyGkDuukVK
xxTGP1fVVvCxmyEZ8Fdi2923AuURpdrBq4EzUl9jqV6PvZfKenvMYRRMMTjifvBz
aiGIFDfjJEaQDEdZHvIHxqZdqSeFodqs6pwJK/8x5w==
-----END CERTIFICATE-----
"""


def published(namespace: str, root_ca: str, cm: dict | None) -> Change | None:
    """syncNamespace for one namespace whose ConfigMap is ``cm`` (None: missing)."""
    data = {"ca.crt": root_ca}
    if cm is None:
        return Change("create", {"apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": ROOT_CA_CERT_CONFIG_MAP_NAME, "namespace": namespace,
                                              "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}},
                                 "data": data})
    if cm.get("data") == data and ((cm.get("metadata") or {}).get("annotations") or {}).get(DESCRIPTION_ANNOTATION):
        return None
    new = copy.deepcopy(cm)
    new["data"] = data
    new["metadata"].setdefault("annotations", {})[DESCRIPTION_ANNOTATION] = DESCRIPTION
    return Change("update", new)


def sync(view: View, root_ca: str) -> list[Change]:
    changes = []
    for ns in view.list("Namespace"):
        md = ns.get("metadata") or {}
        if md.get("deletionTimestamp") or (ns.get("status") or {}).get("phase") == "Terminating":
            continue
        name = md.get("name", "")
        ch = published(name, root_ca, view.get("ConfigMap", name, ROOT_CA_CERT_CONFIG_MAP_NAME))
        if ch is not None:
            changes.append(ch)
    return changes
