"""The ``serviceaccounts/token`` subresource: a TokenRequest answered with a signed JWT.

Upstream: pkg/registry/core/serviceaccount/storage/token.go (``TokenREST.Create``: the account
must exist; audiences default to the API server's (``--api-audiences``, on kubeadm the issuer);
``ValidateTokenRequest``; a bound Pod, Secret or Node must exist, with its UID if one is given, a
Pod running as that account; the response is the request with ``status.token`` and
``expirationTimestamp``), pkg/apis/authentication/v1/defaults.go (``expirationSeconds`` 3600),
pkg/apis/authentication/validation (at least 10 minutes, at most 2^32 seconds),
pkg/serviceaccount/claims.go (``Claims``: ``sub``, ``aud``, ``iat``/``nbf``/``exp``, ``jti``, and
``kubernetes.io``: namespace, service account, the bound object, a pod's node) and jwt.go
(``JWTTokenGenerator``: RS256, the key id the SHA-256 of the public key's PKIX DER, claims
serialized as JSON with sorted keys, as go-jose does).

The signing key is an RSA-2048 key generated the first time a token is asked for and kept in the
state (``SIGNING_KEY_META``); the ``cryptography`` package being absent, the key generation
(Miller-Rabin), the PKCS #1 v1.5 signature and the DER are done here with Python's integers.
Tokens are not checked anywhere yet (kubesim authenticates nobody).
"""

from __future__ import annotations

import base64
import hashlib

from kubesim.errors import BadRequest, Conflict, Invalid, NotFound, invalid

SIGNING_KEY_META = "serviceAccount.signingKey"
ISSUER = "https://kubernetes.default.svc.cluster.local"
API_AUDIENCES = [ISSUER]
DEFAULT_EXPIRATION_SECONDS = 3600
MIN_EXPIRATION_SECONDS = 600
BOUND_OBJECT_KINDS = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}
_SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


# -- RSA with Python's integers --------------------------------------------------------------------

def _probable_prime(n: int, rng) -> bool:
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for _ in range(40):
        x = pow(rng.randrange(2, n - 2), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(bits: int, rng) -> int:
    while True:
        c = rng.getrandbits(bits) | (3 << (bits - 2)) | 1
        if (c - 1) % 65537 and _probable_prime(c, rng):
            return c


def generate_key(rng, bits: int = 2048) -> dict:
    """An RSA key: {"n", "e", "d"} as hexadecimal strings."""
    e = 65537
    while True:
        p, q = _prime(bits // 2, rng), _prime(bits // 2, rng)
        n = p * q
        if p != q and n.bit_length() == bits:
            break
    d = pow(e, -1, (p - 1) * (q - 1))
    return {"n": format(n, "x"), "e": format(e, "x"), "d": format(d, "x")}


def _der(tag: int, body: bytes) -> bytes:
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + body


def _der_int(v: int) -> bytes:
    return _der(0x02, v.to_bytes(v.bit_length() // 8 + 1, "big"))


def public_key_der(key: dict) -> bytes:
    """x509.MarshalPKIXPublicKey of the key's public half."""
    rsa = _der(0x30, _der_int(int(key["n"], 16)) + _der_int(int(key["e"], 16)))
    alg = _der(0x30, bytes.fromhex("06092a864886f70d010101") + b"\x05\x00")
    return _der(0x30, alg + _der(0x03, b"\x00" + rsa))


def key_id(key: dict) -> str:
    """keyIDFromPublicKey: base64url (unpadded) of the SHA-256 of the PKIX DER."""
    return _b64url(hashlib.sha256(public_key_der(key)).digest())


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign_jwt(key: dict, claims: dict) -> str:
    """A compact JWS, RS256 (RSASSA-PKCS1-v1_5 with SHA-256)."""
    from kubesim.api.gofmt import go_json

    header = _b64url(go_json({"alg": "RS256", "kid": key_id(key)}).encode())
    payload = _b64url(go_json(claims).encode())
    n, d = int(key["n"], 16), int(key["d"], 16)
    k = (n.bit_length() + 7) // 8
    t = _SHA256_DIGEST_INFO + hashlib.sha256(f"{header}.{payload}".encode()).digest()
    em = b"\x00\x01" + b"\xff" * (k - len(t) - 3) + b"\x00" + t
    sig = pow(int.from_bytes(em, "big"), d, n).to_bytes(k, "big")
    return f"{header}.{payload}.{_b64url(sig)}"


# -- TokenREST.Create ------------------------------------------------------------------------------

def validate_token_request(spec: dict) -> list:
    """ValidateTokenRequest."""
    errs = []
    seconds = spec.get("expirationSeconds")
    if seconds < MIN_EXPIRATION_SECONDS:
        errs.append(invalid("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes"))
    if seconds > 1 << 32:
        errs.append(invalid("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"))
    return errs


def create_token(store, namespace: str, name: str, spec: dict, now: float, rng, stamp: str) -> dict:
    """TokenREST.Create for ``serviceaccounts/<name>/token`` in ``namespace`` with the request's
    ``spec`` (audiences, expirationSeconds, boundObjectRef): the TokenRequest returned. Raises
    NotFound, Invalid, BadRequest or Conflict with upstream's texts. The signing key, if new, is
    stored (``SIGNING_KEY_META``)."""
    from kubesim.apiserver.storage import new_uid
    from kubesim.clock import format_time

    sa = store.get("ServiceAccount", namespace, name)
    if sa is None:
        raise NotFound("serviceaccounts", name)
    spec = dict(spec)
    if not spec.get("audiences"):
        spec["audiences"] = list(API_AUDIENCES)
    if not spec.get("expirationSeconds"):
        spec["expirationSeconds"] = DEFAULT_EXPIRATION_SECONDS
    errs = validate_token_request(spec)
    if errs:
        raise Invalid("TokenRequest.authentication.k8s.io", "", errs)
    sa_md = sa["metadata"]
    ref = spec.get("boundObjectRef")
    bound: dict = {}
    if ref:
        kind, ref_name = ref.get("kind", ""), ref.get("name", "")
        obj = store.get(kind, "" if kind == "Node" else namespace, ref_name)
        if obj is None:
            raise NotFound(BOUND_OBJECT_KINDS[kind], ref_name)
        if kind == "Pod":
            if (obj.get("spec") or {}).get("serviceAccountName") != name:
                raise BadRequest(f'cannot bind token for serviceaccount "{name}" to pod running with different '
                                 "serviceaccount name.")
            bound["pod"] = {"name": ref_name, "uid": obj["metadata"].get("uid", "")}
            node_name = (obj.get("spec") or {}).get("nodeName")
            if node_name:
                node = store.get("Node", "", node_name) or {"metadata": {}}
                bound["node"] = {"name": node_name, "uid": node["metadata"].get("uid", "")}
        else:
            bound[kind.lower()] = {"name": ref_name, "uid": obj["metadata"].get("uid", "")}
        uid = obj["metadata"].get("uid", "")
        if ref.get("uid") and ref["uid"] != uid:
            raise Conflict(f'Operation cannot be fulfilled on {BOUND_OBJECT_KINDS[kind]} "{ref_name}": the UID in the '
                           f"bound object reference ({ref['uid']}) does not match the UID in record. The object might "
                           "have been deleted and then recreated")
        ref = {"kind": kind, "apiVersion": "v1", "name": ref_name, "uid": uid}
    key = store.meta(SIGNING_KEY_META)
    if key is None:
        import random

        key = generate_key(random.Random(rng.getrandbits(128) if rng is not None else None))
        store.set_meta(SIGNING_KEY_META, key)
    issued = int(now)
    expires = issued + int(spec["expirationSeconds"])
    claims = {"aud": spec["audiences"], "exp": expires, "iat": issued, "iss": ISSUER,
              "jti": new_uid(rng),
              "kubernetes.io": {"namespace": namespace,
                                "serviceaccount": {"name": name, "uid": sa_md.get("uid", "")}, **bound},
              "nbf": issued, "sub": f"system:serviceaccount:{namespace}:{name}"}
    return {"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"name": name, "namespace": namespace, "uid": sa_md.get("uid", ""),
                         "creationTimestamp": stamp},
            "spec": {"audiences": spec["audiences"], "boundObjectRef": ref,
                     "expirationSeconds": spec["expirationSeconds"]},
            "status": {"expirationTimestamp": format_time(expires), "token": sign_jwt(key, claims)}}
