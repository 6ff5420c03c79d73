"""controller.ComputeHash: fnv-1a over go-spew's dump of the pod template, SafeEncodeString."""

import json
from pathlib import Path

import pytest

from kubesim.controllers.hashing import compute_hash, fnv32a, parse_quantity, safe_encode_string, spew_pod_template

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", ["nginx_template", "rich_template"], ids=[
    "the defaulted template of `kubectl create deployment nginx --image=nginx` dumps as go-spew dumps it",
    "a template with volumes, probes, resources, affinity, tolerations and spread dumps as go-spew dumps it",
])
def test_spew_dump_matches_go_spew(name):
    # The .spew.txt files were produced by go-spew v1.1.1 (ConfigState{Indent: " ", SortKeys: true,
    # DisableMethods: true, SpewKeys: true}, "%#v") over Go structs with the same v1.35 field
    # layout, decoded from the .json files: they pin kubesim's renderer to the real printer.
    template = json.loads((GOLDEN / f"{name}.json").read_text())
    assert spew_pod_template(template) == (GOLDEN / f"{name}.spew.txt").read_text()


@pytest.mark.parametrize("data,expected", [
    (b"", 0x811C9DC5),
    (b"a", 0xE40C292C),
    (b"foobar", 0xBF9CF968),
], ids=["the empty input hashes to the offset basis", "one byte", "the fnv test vector foobar"])
def test_fnv32a_known_vectors(data, expected):
    assert fnv32a(data) == expected


def test_safe_encode_maps_each_byte_into_the_alphabet():
    # alphabet "bcdfghjklmnpqrstvwxz2456789": '1' is byte 49, 49 % 27 = 22 -> '5';
    # '0' is byte 48, 48 % 27 = 21 -> '4'
    assert safe_encode_string("10") == "54"


@pytest.mark.parametrize("text,expected", [
    ("100m", (100, -3, "DecimalSI", "100m")),
    ("1", (1, 0, "DecimalSI", "1")),
    ("0", (0, 0, "DecimalSI", "0")),
    ("1Gi", (1 << 30, 0, "BinarySI", "1Gi")),
    ("128Mi", (128 << 20, 0, "BinarySI", "")),
    ("500Mi", (500 << 20, 0, "BinarySI", "500Mi")),
    ("1500m", (1500, -3, "DecimalSI", "1500m")),
    ("2k", (2, 3, "DecimalSI", "2k")),
], ids=[
    "millicores keep their canonical string",
    "a plain integer keeps its string",
    "zero is the special case",
    "1Gi is canonical binary and is cached",
    "128Mi is a multiple of 8 so the parser does not cache its string",
    "500Mi is not a multiple of 8 and is cached",
    "1500m keeps its string",
    "a decimal suffix scales by thousands",
])
def test_parse_quantity_as_compute_hash_sees_it(text, expected):
    assert parse_quantity(text) == expected


def test_collision_count_changes_the_hash():
    template = json.loads((GOLDEN / "nginx_template.json").read_text())
    h0, h1 = compute_hash(template), compute_hash(template, 1)
    assert h0 != h1 and compute_hash(template) == h0
    assert len(h0) <= 10 and set(h0) <= set("bcdfghjklmnpqrstvwxz2456789")


def test_hash_ignores_json_key_order_and_empty_lists():
    template = json.loads((GOLDEN / "nginx_template.json").read_text())
    reordered = {"spec": dict(reversed(list(template["spec"].items()))), "metadata": template["metadata"]}
    reordered["spec"]["volumes"] = []  # decoded from protobuf an empty list is nil
    assert compute_hash(reordered) == compute_hash(template)


def test_nginx_template_hash_is_stable():
    # Regression pin for kubesim's own output (v1.35 layout); the spew dump it hashes is the
    # go-spew-verified golden above.
    template = json.loads((GOLDEN / "nginx_template.json").read_text())
    assert compute_hash(template) == compute_hash(json.loads(json.dumps(template)))
    assert fnv32a(spew_pod_template(template).encode()) == fnv32a((GOLDEN / "nginx_template.spew.txt").read_bytes())
