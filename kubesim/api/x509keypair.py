"""Go's ``tls.X509KeyPair`` as ``kubectl create secret tls`` runs it (and the API server, for the
warning it gives about a ``kubernetes.io/tls`` Secret, registry/core/secret warningsForSecret):
the certificate's and the key's PEM blocks found, the certificate and the private key parsed, and the key checked against
the certificate's public key, each refusal in Go's words.

Written after Go's ``crypto/tls/tls.go`` (``X509KeyPair``, ``parsePrivateKey``: PKCS #1, then
PKCS #8, then SEC 1), ``encoding/pem`` (``Decode``: ``-----BEGIN TYPE-----`` ... ``-----END
TYPE-----``, headers skipped) and ``crypto/x509`` (the certificate's SubjectPublicKeyInfo;
``ParsePKCS1PrivateKey``, ``ParsePKCS8PrivateKey``, ``ParseECPrivateKey``). Stdlib only: a small
DER reader, and the NIST curves' scalar multiplication for a SEC 1 key that does not carry its
public point.

Where kubesim differs: a certificate that is not DER at all is refused with
``x509: malformed certificate`` (Go's parser names the part it could not read); an Ed25519
key is checked only when the certificate's key is not Ed25519 (deriving its public key is not
modelled, so a mismatched Ed25519 pair is accepted).
"""

from __future__ import annotations

import base64
import binascii
import re

_PEM = re.compile(rb"-----BEGIN ([^\r\n]*?)-----[ \t]*\r?\n(.*?)-----END \1-----", re.DOTALL)

OID_RSA = "1.2.840.113549.1.1.1"
OID_EC = "1.2.840.10045.2.1"
OID_ED25519 = "1.3.101.112"

# name: (p, a, b, Gx, Gy, order)
_CURVES = {
    "1.2.840.10045.3.1.7": (  # P-256
        0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF, -3,
        0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B,
        0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
        0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5,
        0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551),
    "1.3.132.0.34": (  # P-384
        int("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFFFF0000000000000000FFFFFFFF", 16), -3,
        int("B3312FA7E23EE7E4988E056BE3F82D19181D9C6EFE8141120314088F5013875AC656398D8A2ED19D2A85C8EDD3EC2AEF", 16),
        int("AA87CA22BE8B05378EB1C71EF320AD746E1D3B628BA79B9859F741E082542A385502F25DBF55296C3A545E3872760AB7", 16),
        int("3617DE4A96262C6F5D9E98BF9292DC29F8F41DBD289A147CE9DA3113B5F0B8C00A60B1CE1D7E819D7A431D7C90EA0E5F", 16),
        int("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973", 16)),
    "1.3.132.0.35": (  # P-521
        2**521 - 1, -3,
        int("0051953EB9618E1C9A1F929A21A0B68540EEA2DA725B99B315F3B8B489918EF109E156193951EC7E937B1652C0BD3BB1BF0735"
            "73DF883D2C34F1EF451FD46B503F00", 16),
        int("00C6858E06B70404E9CD9E3ECB662395B4429C648139053FB521F828AF606B4D3DBAA14B5E77EFE75928FE1DC127A2FFA8DE33"
            "48B3C1856A429BF97E7E31C2E5BD66", 16),
        int("011839296A789A3BC0045C8A5FB42C7D1BD998F54449579B446817AFBD17273E662C97EE72995EF42640C550B9013FAD0761353"
            "C7086A272C24088BE94769FD16650", 16),
        int("01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03BB5"
            "C9B8899C47AEBB6FB71E91386409", 16)),
}


class KeyPairError(Exception):
    """Go's error text."""


def pem_blocks(data: bytes) -> list[tuple[str, bytes]]:
    """pem.Decode, repeated: (type, DER bytes) of each well-formed block; a malformed one is
    skipped, as Decode skips it and reads on."""
    out = []
    for m in _PEM.finditer(data):
        body = m.group(2)
        if b":" in body.split(b"\n\n", 1)[0] and b"\n\n" in body:
            body = body.split(b"\n\n", 1)[1]  # RFC 1421 headers, then a blank line
        try:
            der = base64.b64decode(re.sub(rb"\s+", b"", body), validate=True)
        except (binascii.Error, ValueError):
            continue
        out.append((m.group(1).decode("latin-1"), der))
    return out


# -- a DER reader ------------------------------------------------------------------------------

def _tlv(der: bytes, i: int = 0) -> tuple[int, bytes, int]:
    """(tag, content, next offset) of the element at ``i``."""
    if i + 2 > len(der):
        raise ValueError("short")
    tag, n = der[i], der[i + 1]
    i += 2
    if n & 0x80:
        k = n & 0x7F
        if k == 0 or k > 4 or i + k > len(der):
            raise ValueError("length")
        n = int.from_bytes(der[i:i + k], "big")
        i += k
    if i + n > len(der):
        raise ValueError("short")
    return tag, der[i:i + n], i + n


def _children(content: bytes) -> list[tuple[int, bytes]]:
    out, i = [], 0
    while i < len(content):
        tag, body, i = _tlv(content, i)
        out.append((tag, body))
    return out


def _seq(der: bytes) -> list[tuple[int, bytes]]:
    tag, body, end = _tlv(der)
    if tag != 0x30 or end != len(der):
        raise ValueError("not a sequence")
    return _children(body)


def _int(tlv: tuple[int, bytes]) -> int:
    if tlv[0] != 0x02:
        raise ValueError("not an integer")
    return int.from_bytes(tlv[1], "big", signed=True)


def _oid(tlv: tuple[int, bytes]) -> str:
    if tlv[0] != 0x06 or not tlv[1]:
        raise ValueError("not an OID")
    b = tlv[1]
    parts = [min(b[0] // 40, 2), b[0] - 40 * min(b[0] // 40, 2)]
    v = 0
    for c in b[1:]:
        v = (v << 7) | (c & 0x7F)
        if not c & 0x80:
            parts.append(v)
            v = 0
    return ".".join(map(str, parts))


def _bits(tlv: tuple[int, bytes]) -> bytes:
    if tlv[0] != 0x03 or not tlv[1]:
        raise ValueError("not a bit string")
    return tlv[1][1:]


# -- public keys ---------------------------------------------------------------------------------

def certificate_public_key(der: bytes) -> tuple:
    """x509.ParseCertificate, as far as its public key: ("rsa", n, e), ("ec", curve, point) or
    ("ed25519", key)."""
    try:
        tbs = _children(_seq(der)[0][1])
        if tbs and tbs[0][0] == 0xA0:
            tbs = tbs[1:]  # [0] version
        spki = _children(tbs[5][1])
        alg = _children(spki[0][1])
        oid, key = _oid(alg[0]), _bits(spki[1])
        if oid == OID_RSA:
            n, e = (_int(x) for x in _seq(key)[:2])
            return ("rsa", n, e)
        if oid == OID_EC:
            return ("ec", _oid(alg[1]), key)
        if oid == OID_ED25519:
            return ("ed25519", key)
        return ("unknown",)
    except (ValueError, IndexError):
        raise KeyPairError("x509: malformed certificate") from None


def _ec_point(curve: str, d: int) -> bytes:
    """d·G on a NIST curve, as an uncompressed point."""
    p, a, _b, gx, gy, _n = _CURVES[curve]

    def add(P, Q):
        if P is None:
            return Q
        if Q is None:
            return P
        if P[0] == Q[0] and (P[1] + Q[1]) % p == 0:
            return None
        if P == Q:
            m = (3 * P[0] * P[0] + a) * pow(2 * P[1], -1, p) % p
        else:
            m = (Q[1] - P[1]) * pow(Q[0] - P[0], -1, p) % p
        x = (m * m - P[0] - Q[0]) % p
        return (x, (m * (P[0] - x) - P[1]) % p)

    R, Q = None, (gx, gy)
    while d:
        if d & 1:
            R = add(R, Q)
        Q, d = add(Q, Q), d >> 1
    size = (p.bit_length() + 7) // 8
    return b"\x04" + R[0].to_bytes(size, "big") + R[1].to_bytes(size, "big")


def _pkcs1(der: bytes) -> tuple:
    f = _seq(der)
    if len(f) < 9 or _int(f[0]) > 1:
        raise ValueError("not PKCS #1")
    return ("rsa", _int(f[1]), _int(f[2]))


def _sec1(der: bytes, curve: str | None = None) -> tuple:
    f = _seq(der)
    if _int(f[0]) != 1 or f[1][0] != 0x04:
        raise ValueError("not SEC 1")
    point = None
    for tag, body in f[2:]:
        if tag == 0xA0:
            curve = _oid(_children(body)[0])
        elif tag == 0xA1:
            point = _bits(_children(body)[0])
    if curve not in _CURVES:
        raise ValueError("unknown curve")
    d = int.from_bytes(f[1][1], "big")
    return ("ec", curve, _ec_point(curve, d) if point is None or len(point) < 2 else point)


def private_key(der: bytes) -> tuple:
    """tls.parsePrivateKey: PKCS #1, PKCS #8 (RSA, EC, Ed25519), SEC 1."""
    try:
        return _pkcs1(der)
    except (ValueError, IndexError):
        pass
    try:
        f = _seq(der)
        alg = _children(f[1][1])
        oid = _oid(alg[0])
        if f[2][0] != 0x04:
            raise ValueError("no key")
        if oid == OID_RSA:
            return _pkcs1(f[2][1])
        if oid == OID_EC:
            return _sec1(f[2][1], _oid(alg[1]))
        if oid == OID_ED25519:
            return ("ed25519", None)
    except (ValueError, IndexError):
        pass
    try:
        return _sec1(der)
    except (ValueError, IndexError):
        pass
    raise KeyPairError("tls: failed to parse private key")


def check(cert_pem: bytes, key_pem: bytes) -> None:
    """tls.X509KeyPair: raise KeyPairError with Go's text when the pair does not load."""
    certs, skipped = [], []
    for type_, der in pem_blocks(cert_pem):
        (certs if type_ == "CERTIFICATE" else skipped).append(der if type_ == "CERTIFICATE" else type_)
    if not certs:
        if not skipped:
            raise KeyPairError("tls: failed to find any PEM data in certificate input")
        if len(skipped) == 1 and skipped[0].endswith("PRIVATE KEY"):
            raise KeyPairError("tls: failed to find certificate PEM data in certificate input, but did find a "
                               "private key; PEM inputs may have been switched")
        raise KeyPairError('tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM '
                           f"blocks of the following types: [{' '.join(skipped)}]")
    skipped = []
    key_der = None
    for type_, der in pem_blocks(key_pem):
        if type_ == "PRIVATE KEY" or type_.endswith(" PRIVATE KEY"):
            key_der = der
            break
        skipped.append(type_)
    if key_der is None:
        if not skipped:
            raise KeyPairError("tls: failed to find any PEM data in key input")
        if skipped == ["CERTIFICATE"]:
            raise KeyPairError("tls: found a certificate rather than a key in the PEM for the private key")
        raise KeyPairError('tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after '
                           f"skipping PEM blocks of the following types: [{' '.join(skipped)}]")
    pub = certificate_public_key(certs[0])
    priv = private_key(key_der)
    if pub[0] == "unknown":
        raise KeyPairError("tls: unknown public key algorithm")
    if pub[0] != priv[0]:
        raise KeyPairError("tls: private key type does not match public key type")
    if pub[0] == "ed25519" and priv[1] is None:
        return  # not modelled (see the docstring)
    if pub != priv:
        raise KeyPairError("tls: private key does not match public key")
