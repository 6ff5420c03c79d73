"""Kubernetes' protobuf encoding in (``application/vnd.kubernetes.protobuf``): a request body as
the JSON-shaped object kubesim works with. client-go's typed clients write it (kubectl's
``create <generator>``, drain's evictions); kubesim serve answers in JSON, which they accept.

The envelope is the magic ``k8s\\x00`` then a ``runtime.Unknown`` (typeMeta {apiVersion, kind},
raw, contentEncoding, contentType); ``raw`` is the kind's message. Messages are decoded from the
protobuf wire format with the field table ``tools/gen_protobuf_fields.py`` makes from upstream's
``generated.proto`` and Go struct tags: each field's JSON name (inlined structs flattened), and
whether a zero value the wire carries survives Go's decode-then-encode (pointers, slices and maps,
and fields without ``omitempty``, keep it). The types with their own JSON form: Quantity (its
string), Time and MicroTime (RFC 3339), Duration, IntOrString, RawExtension and FieldsV1 (the
JSON they hold), ``bytes`` (base64).

Upstream: staging/src/k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go (the
envelope), staging/src/k8s.io/apimachinery/pkg/runtime/generated.proto (Unknown), each type's
generated.proto; the wire format: protobuf's encoding guide (varints, zigzag-free int32/int64,
length-delimited fields).
"""

from __future__ import annotations

import base64
import functools
import json
import lzma
import os

from kubesim.errors import BadRequest

MAGIC = b"k8s\x00"
CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                     "protobuf-fields.json.xz")
_META = "k8s.io.apimachinery.pkg.apis.meta.v1."
_INTEGERS = {"int32", "int64", "uint32", "uint64"}


@functools.cache
def _messages() -> dict:
    with open(_DATA, "rb") as f:
        return json.loads(lzma.decompress(f.read()))["messages"]


class _Error(ValueError):
    pass


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if i >= len(buf):
            raise _Error("unexpected EOF")
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7
        if shift > 63:
            raise _Error("varint overflow")


def _fields(buf: bytes):
    """(field number, wire type, value) in order: an int for varints and fixed widths, bytes
    for length-delimited ones."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(buf, i)
        elif wire == 1:
            value, i = int.from_bytes(buf[i:i + 8], "little"), i + 8
        elif wire == 2:
            n, i = _varint(buf, i)
            if i + n > len(buf):
                raise _Error("unexpected EOF")
            value, i = buf[i:i + n], i + n
        elif wire == 5:
            value, i = int.from_bytes(buf[i:i + 4], "little"), i + 4
        else:
            raise _Error(f"illegal wireType {wire}")
        yield num, wire, value


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _scalar(t: str, wire: int, v):
    if t == "string":
        return v.decode("utf-8", errors="replace")
    if t == "bytes":
        return base64.b64encode(v).decode()
    if t == "bool":
        return bool(v)
    if t in ("int32", "int64"):
        return _signed(v)
    if t in ("uint32", "uint64"):
        return v
    if t == "double":
        import struct

        return struct.unpack("<d", v.to_bytes(8, "little"))[0]
    if t == "float":
        import struct

        return struct.unpack("<f", v.to_bytes(4, "little"))[0]
    raise _Error(f"unknown type {t}")


def _time(buf: bytes, micro: bool) -> str:
    import datetime

    seconds = nanos = 0
    for num, _, v in _fields(buf):
        if num == 1:
            seconds = _signed(v)
        elif num == 2:
            nanos = _signed(v)
    if seconds == 0 and nanos == 0:
        return None  # the zero Time (JSON null), which omitempty then drops
    t = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    if micro:
        return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos // 1000:06d}Z"
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _go_duration(ns: int) -> str:
    """time.Duration.String() for whole seconds and more (what API objects hold); finer ones
    as fractional seconds."""
    if ns % 1_000_000_000:
        return f"{ns / 1e9:g}s"
    s = ns // 1_000_000_000
    sign, s = ("-", -s) if s < 0 else ("", s)
    h, m, sec = s // 3600, s // 60 % 60, s % 60
    return sign + (f"{h}h{m}m{sec}s" if h else f"{m}m{sec}s" if m else f"{sec}s")


def _special(t: str, buf: bytes):
    """The JSON of a type with its own marshalling; ``NotImplemented`` for plain messages."""
    if t == "k8s.io.apimachinery.pkg.api.resource.Quantity":
        return next((v.decode() for num, _, v in _fields(buf) if num == 1), "0")
    if t == _META + "Time":
        return _time(buf, False)
    if t == _META + "MicroTime":
        return _time(buf, True)
    if t == _META + "Duration":
        ns = next((_signed(v) for num, _, v in _fields(buf) if num == 1), 0)
        return _go_duration(ns)
    if t == "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
        kind, ival, sval = 0, 0, ""
        for num, _, v in _fields(buf):
            if num == 1:
                kind = v
            elif num == 2:
                ival = _signed(v)
            elif num == 3:
                sval = v.decode()
        return sval if kind == 1 else ival
    if t in ("k8s.io.apimachinery.pkg.runtime.RawExtension", _META + "FieldsV1"):
        raw = next((v for num, _, v in _fields(buf) if num == 1), b"")
        return json.loads(raw) if raw else None
    return NotImplemented


def _value(t: str, wire: int, v):
    if t in _messages() or "." in t:
        special = _special(t, v)
        return special if special is not NotImplemented else decode_message(t, v)
    return _scalar(t, wire, v)


def _zero(value) -> bool:
    return value in ("", 0, False, None) or value == {} or value == []


def decode_message(message: str, buf: bytes) -> dict:
    table = _messages().get(message)
    if table is None:
        raise _Error(f"no protobuf message {message}")
    out: dict = {}
    for num, wire, v in _fields(buf):
        field = table.get(str(num))
        if field is None:
            continue  # an unknown field: the typed decode drops it
        json_name, t, label, value_type, pointer, omitempty = field
        if json_name == "-":
            continue
        if label == "m":
            key = value = None
            for n, w, x in _fields(v):
                if n == 1:
                    key = _value(t, w, x)
                elif n == 2:
                    value = _value(value_type, w, x)
            if value is None:
                value = "" if value_type in ("string", "bytes") else ({} if "." in value_type else 0)
            out.setdefault(json_name, {})[key] = value
            continue
        if label == "r":
            if wire == 2 and t in _INTEGERS | {"bool"}:
                i, packed = 0, []
                while i < len(v):
                    x, i = _varint(v, i)
                    packed.append(_scalar(t, 0, x))
                out.setdefault(json_name, []).extend(packed)
            else:
                out.setdefault(json_name, []).append(_value(t, wire, v))
            continue
        value = _value(t, wire, v)
        if json_name == "":  # an inlined struct: its fields are the parent's
            if isinstance(value, dict):
                out.update(value)
            continue
        if _zero(value) and omitempty and not pointer:
            continue  # Go would drop it when encoding the decoded object
        out[json_name] = value
    return out


def _package(api_version: str) -> str:
    """The proto package of a group-version: ``v1`` -> k8s.io.api.core.v1, ``apps/v1`` ->
    k8s.io.api.apps.v1, ``rbac.authorization.k8s.io/v1`` -> k8s.io.api.rbac.v1."""
    group, _, version = api_version.rpartition("/")
    if not group:
        return f"k8s.io.api.core.{version}"
    short = {"rbac.authorization.k8s.io": "rbac", "admissionregistration.k8s.io": "admissionregistration",
             "apiextensions.k8s.io": "apiextensions"}.get(group, group.split(".")[0])
    return f"k8s.io.api.{short}.{version}"


def decode(body: bytes) -> dict:
    """A protobuf-encoded request body as a JSON-shaped object (apiVersion and kind first);
    BadRequest for what the server's protobuf serializer cannot read."""
    if not body.startswith(MAGIC):
        raise BadRequest("provided data does not appear to be a protobuf message, expected prefix "
                         "[107 56 115 0]")
    try:
        api_version = kind = ""
        raw = b""
        for num, _, v in _fields(body[len(MAGIC):]):
            if num == 1:
                for n, _, x in _fields(v):
                    if n == 1:
                        api_version = x.decode()
                    elif n == 2:
                        kind = x.decode()
            elif num == 2:
                raw = v
        message = f"{_package(api_version)}.{kind}"
        if message not in _messages() and kind in ("DeleteOptions", "Status"):
            message = _META + kind
        obj = decode_message(message, raw)
    except (_Error, UnicodeDecodeError, ValueError) as e:
        raise BadRequest(f"unable to decode the protobuf request body: {e}") from None
    return {"apiVersion": api_version, "kind": kind, **obj}
