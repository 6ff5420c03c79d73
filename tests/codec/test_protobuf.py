"""The protobuf request decoder (kubesim.codec.protobuf) on hand-built messages: the envelope,
varints (negative int32s are ten bytes), maps, repeated fields, inlined structs, the types with
their own JSON form, and zero values as Go's decode-then-encode keeps or drops them.

Upstream: staging/src/k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go, the
generated.proto of each type.
"""

from __future__ import annotations

import pytest

from kubesim.codec import protobuf
from kubesim.errors import BadRequest


def varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(num: int, value) -> bytes:
    if isinstance(value, bytes):
        return varint(num << 3 | 2) + varint(len(value)) + value
    if isinstance(value, str):
        return field(num, value.encode())
    return varint(num << 3) + varint(int(value))


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    return protobuf.MAGIC + field(1, field(1, api_version) + field(2, kind)) + field(2, raw)


def meta(name: str, labels: dict | None = None) -> bytes:
    out = field(1, name)
    for k, v in (labels or {}).items():
        out += field(11, field(1, k) + field(2, v))
    return out


CASES = [
    ("a namespace: the envelope's apiVersion and kind, the metadata's name",
     envelope("v1", "Namespace", field(1, meta("ns1"))),
     {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns1"}}),
    ("a config map: its data map, a label map",
     envelope("v1", "ConfigMap", field(1, meta("cm", {"a": "b"})) + field(2, field(1, "k") + field(2, "v"))),
     {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "labels": {"a": "b"}}, "data": {"k": "v"}}),
    ("a pointer int32 keeps its zero (replicas: 0); an omitempty plain one drops it (minReadySeconds)",
     envelope("apps/v1", "Deployment", field(1, meta("d")) + field(2, field(1, 0) + field(5, 0))),
     {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 0}}),
    ("a negative int32 is a ten-byte varint",
     envelope("scheduling.k8s.io/v1", "PriorityClass", field(1, meta("pc")) + field(2, -5)),
     {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc"}, "value": -5}),
    ("IntOrString as a string and as an int; a label selector's map",
     envelope("policy/v1", "PodDisruptionBudget", field(1, meta("p")) + field(2, field(1, field(1, 1) + field(3, "50%"))
                                                                         + field(2, field(1, field(1, "app") + field(2, "w")))
                                                                         + field(3, field(1, 0) + field(2, 1)))),
     {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p"},
      "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "w"}}, "maxUnavailable": 1}}),
    ("an inlined struct (a volume's source) is flattened; repeated messages are a list",
     envelope("v1", "Pod", field(1, meta("p")) + field(2, field(1, field(1, "v") + field(2, field(2, b"")))
                                                       + field(2, field(1, "c") + field(2, "img")))),
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"volumes": [{"name": "v", "emptyDir": {}}], "containers": [{"name": "c", "image": "img"}]}}),
    ("a quantity is its string; bytes are base64",
     envelope("v1", "Secret", field(1, meta("s")) + field(2, field(1, "k") + field(2, b"\x00\x01"))),
     {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "AAE="}}),
    ("a time is RFC 3339; the zero time is dropped",
     envelope("v1", "Namespace", field(1, field(1, "n") + field(8, field(1, 1764150000)))),
     {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n", "creationTimestamp": "2025-11-26T09:40:00Z"}}),
]


@pytest.mark.parametrize(("body", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_decode(body, want):
    assert protobuf.decode(body) == want


@pytest.mark.parametrize("body", [b"", b"{}", b"k8s", protobuf.MAGIC + b"\x0a\x05ab", protobuf.MAGIC + b"\x0f"],
                         ids=["empty", "JSON", "a short magic", "a truncated field", "an illegal wire type"])
def test_what_does_not_decode_is_a_bad_request(body):
    with pytest.raises(BadRequest):
        protobuf.decode(body)
