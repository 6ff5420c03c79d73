"""Reading manifests: documents, Lists, directories, and every malformed input refused cleanly."""

import io
import time
import tracemalloc

import pytest

from kubesim.codec.load import MAX_FILE_BYTES, decode_yaml, load, parse_documents
from kubesim.errors import KubesimError, ParseError, UsageError

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n  - name: c\n    image: nginx\n"


@pytest.mark.parametrize("text, names", [
    pytest.param(POD.format(name="a"), ["a"], id="a single document gives one object"),
    pytest.param(POD.format(name="a") + "---\n" + POD.format(name="b"), ["a", "b"], id="documents are split on ---"),
    pytest.param("---\n---\n" + POD.format(name="a") + "---\n", ["a"], id="empty documents are skipped"),
    pytest.param("apiVersion: v1\nkind: List\nitems:\n- " + POD.format(name="a").replace("\n", "\n  ").rstrip() +
                 "\n- " + POD.format(name="b").replace("\n", "\n  ").rstrip() + "\n", ["a", "b"],
                 id="a List is expanded into its items"),
    pytest.param('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"}}', ["j"], id="JSON is read too"),
    pytest.param('{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "x"}}]}',
                 ["x"], id="a JSON List is expanded"),
])
def test_documents_are_decoded(text, names):
    assert [d.obj["metadata"]["name"] for d in parse_documents("f.yaml", text)] == names


def test_document_indexes_count_from_one_within_their_file():
    docs = parse_documents("f.yaml", POD.format(name="a") + "---\n" + POD.format(name="b"))
    assert [(d.source, d.index) for d in docs] == [("f.yaml", 1), ("f.yaml", 2)]


def test_timestamps_stay_strings_as_in_json():
    [d] = parse_documents("f.yaml", "kind: Pod\nmetadata:\n  name: a\n  creationTimestamp: 2026-01-01T00:00:00Z\n")
    assert d.obj["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z"


BOMB = "\n".join(
    [f'{chr(97)}: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'] +
    [f"{chr(97 + i)}: &{chr(97 + i)} [" + ",".join([f"*{chr(96 + i)}"] * 9) + "]" for i in range(1, 9)]
) + "\n"


@pytest.mark.parametrize("text, message", [
    pytest.param("a: b: c\n", "line 1: mapping values are not allowed in this context", id="malformed YAML names the line"),
    # go-yaml v2 decode.go: failf("invalid map key: %#v", k), texts checked against kubectl 1.36
    pytest.param("? [a, b]\n: c\n", 'yaml: invalid map key: []interface {}{"a", "b"}',
                 id="a list as a mapping key is refused"),
    pytest.param("a:\n  ? {a: b}\n  : c\n", 'yaml: invalid map key: map[interface {}]interface {}{"a":"b"}',
                 id="a map as a mapping key is refused"),
    pytest.param("? [1, {x: [2.5, true, null]}]\n: c\n",
                 "yaml: invalid map key: []interface {}{1, map[interface {}]interface {}{\"x\":[]interface {}{2.5, "
                 "true, interface {}(nil)}}}", id="a key's values print as Go's %#v"),
    pytest.param("a: " + "[" * 1001 + "]" * 1001 + "\n", "yaml: line 1: exceeded max depth of 10000",
                 id="deep YAML nesting is refused with go-yaml's words"),
    pytest.param('{"x":' + "[" * 10000 + "]" * 10000 + "}",
                 "error parsing f.yaml: json: offset 10005: invalid character '[' exceeded max depth",
                 id="JSON deeper than encoding/json's 10,000 levels"),
    pytest.param(BOMB, "excessive aliasing", id="an alias bomb is refused"),
    pytest.param("a: &a [*a]\n", "excessive aliasing", id="an anchor containing itself is refused"),
    pytest.param("- 1\n- 2\n", "non-object document", id="a document that is not an object is refused"),
    pytest.param('{"kind": ', "error converting YAML to JSON", id="truncated JSON is refused"),
])
def test_malformed_input_is_refused_with_the_reason(text, message):
    with pytest.raises(ParseError) as e:
        parse_documents("f.yaml", text)
    assert message in str(e.value)
    assert str(e.value).startswith("error: error parsing f.yaml: ")


@pytest.mark.parametrize("text", ["kind: Pod\nkind: Node\n", '{"kind": "Pod", "kind": "Node"}'])
def test_a_key_given_twice_keeps_its_last_value_as_kubectl_reads_it(text):
    # kubectl 1.36 against a real cluster: a ConfigMap with metadata.name twice is created with
    # the second name, from YAML and from JSON (checked with the conformance oracle)
    [d] = parse_documents("f.yaml", text)
    assert d.obj == {"kind": "Node"}


def test_decode_yaml_errors_are_go_yamls_own():
    with pytest.raises(ParseError) as e:
        decode_yaml("f.yaml", BOMB)
    assert e.value.detail == "yaml: document contains excessive aliasing"


def test_an_alias_bomb_is_refused_quickly_in_bounded_memory():
    tracemalloc.start()
    t = time.perf_counter()
    with pytest.raises(ParseError):
        parse_documents("bomb.yaml", BOMB)
    elapsed = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # not a timing test of speed: a billion-node expansion would take minutes and gigabytes
    assert elapsed < 5 and peak < 50 * 1024 * 1024


def test_binary_junk_is_refused(tmp_path):
    f = tmp_path / "junk.yaml"
    f.write_bytes(bytes(range(256)) * 10)
    with pytest.raises(ParseError, match="control characters"):
        load([str(f)])


def test_invalid_utf8_is_refused(tmp_path):
    f = tmp_path / "latin1.yaml"
    f.write_bytes(b"kind: Pod\nmetadata: {name: \xe9t\xe9}\n")
    with pytest.raises(ParseError, match="UTF-8"):
        load([str(f)])


def test_a_missing_file_is_refused_as_kubectl_does(tmp_path):
    with pytest.raises(UsageError) as e:
        load([str(tmp_path / "nope.yaml")])
    assert str(e.value) == f'error: the path "{tmp_path / "nope.yaml"}" does not exist'


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    f = tmp_path / "big.yaml"
    with open(f, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)  # 50 MB, sparse: costs no disk
    tracemalloc.start()
    with pytest.raises(UsageError) as e:
        load([str(f)])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert f"larger than kubesim's limit of {MAX_FILE_BYTES} bytes" in str(e.value)
    assert peak < 1024 * 1024


def test_a_directory_gives_its_manifest_files_in_order_and_recursion_is_opt_in(tmp_path):
    (tmp_path / "b.yaml").write_text(POD.format(name="b"))
    (tmp_path / "a.yml").write_text(POD.format(name="a"))
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.json").write_text('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"}}')
    assert [d.obj["metadata"]["name"] for d in load([str(tmp_path)])] == ["a", "b"]
    assert [d.obj["metadata"]["name"] for d in load([str(tmp_path)], recursive=True)] == ["a", "b", "c"]


def test_a_directory_with_no_manifests_gives_no_documents(tmp_path):
    (tmp_path / "README").write_text("nothing here")
    assert load([str(tmp_path)]) == []


def test_standard_input_is_read_for_dash():
    docs = load(["-"], stdin=io.StringIO(POD.format(name="s")))
    assert [(d.source, d.obj["metadata"]["name"]) for d in docs] == [("STDIN", "s")]


def test_json_as_deep_as_go_reads_it_decodes():
    # Python's json stops near 1,000 levels; encoding/json reads 10,000 (kubectl then sends it)
    text = '{"kind": "ConfigMap", "x": ' + "[" * 9998 + "]" * 9998 + "}"
    [d] = parse_documents("f.json", text)
    depth, x = 0, d.obj["x"]
    while x:
        depth, x = depth + 1, x[0]
    assert depth == 9997


@pytest.mark.parametrize("bom, codec", [(b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"), (b"\xef\xbb\xbf", "utf-8")])
def test_a_byte_order_mark_selects_the_encoding(tmp_path, bom, codec):
    # cli-runtime FileVisitor reads through unicode.BOMOverride (checked with kubectl 1.36)
    p = tmp_path / "cm.yaml"
    p.write_bytes(bom + "kind: ConfigMap\nmetadata:\n  name: caf\u00e9\n".encode(codec))
    [d] = load([str(p)])
    assert d.obj["metadata"]["name"] == "caf\u00e9"


@pytest.mark.parametrize("scalar, value", [("y", True), ("Y", True), ("n", False), ("N", False), ("yes", True),
                                           ("off", False), ('"y"', "y"), ("yy", "yy")])
def test_go_yaml_v2_booleans(scalar, value):
    # go-yaml v2 resolve.go reads y/Y/n/N as booleans too (kubectl 1.36 refuses `name: y`)
    [d] = parse_documents("f.yaml", f"kind: ConfigMap\ndata:\n  a: {scalar}\n")
    assert d.obj["data"]["a"] is value if isinstance(value, bool) else d.obj["data"]["a"] == value


@pytest.mark.parametrize("metadata, message", [
    ("  name: 5\n", "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"),
    ("  name: y\n", "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string"),
    ("  name: a\n  labels: [a]\n",
     "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
])
def test_metadata_must_decode_into_objectmeta_on_the_client(tmp_path, metadata, message):
    # cli-runtime metadataValidatingDecoder; texts checked against kubectl 1.36
    p = tmp_path / "cm.yaml"
    p.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n" + metadata)
    with pytest.raises(KubesimError) as e:
        load([str(p)])
    assert str(e.value) == f'error: unable to decode "{p}": {message}'


def test_go_s_depth_limit_holds_after_a_deep_document_raised_python_s():
    """A 5,000-deep document raises Python's recursion limit for the rest of the process; a
    10,001-deep one after it is still refused as encoding/json refuses it."""
    assert parse_documents("a.json", '{"x":' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(ParseError) as e:
        parse_documents("f.yaml", '{"x":' + "[" * 10000 + "]" * 10000 + "}")
    assert "json: offset 10005: invalid character '[' exceeded max depth" in str(e.value)


@pytest.mark.parametrize(("text", "walked", "refused"), [
    pytest.param("a: [" + "1," * 1200 + "1]\n", True, True,
                 id="a stream long enough to hold too many nodes is counted and refused without an alias"),
    pytest.param("a: &x [1, 2]\nb: *x\n", True, False, id="a stream with an alias is counted"),
    pytest.param("a: [1, 2]\nb: {c: d}\n", False, False, id="a short stream without an alias is not walked"),
])
def test_only_streams_that_can_exceed_the_limit_are_counted(monkeypatch, text, walked, refused):
    """decode_yaml's count of expanded nodes (go-yaml's alias limit) runs only where it can
    refuse: a stream with an alias, or one long enough to hold the limit's nodes (here 1,000)."""
    from kubesim.codec import load

    calls = []
    real = load._expanded_size
    monkeypatch.setattr(load, "MAX_EXPANDED_NODES", 1000)
    monkeypatch.setattr(load, "_expanded_size", lambda *a: calls.append(1) or real(*a))
    if refused:
        with pytest.raises(ParseError, match="excessive aliasing"):
            decode_yaml("f.yaml", text)
    else:
        assert decode_yaml("f.yaml", text)
    assert bool(calls) == walked


# A document of plain mappings, sequences and implicit scalars is built in one walk over
# libyaml's nodes (codec.load._construct_plain); anything else is left to PyYAML's
# constructors. Both must read every document alike.
PLAIN_OR_NOT = [
    pytest.param("a: 1\nb: yes\nc: y\nd: ~\ne: 2001-01-01\nf: 1.5\ng: 0x1F\nh: 1_000\ni: 1:30\n",
                 id="YAML 1.1 scalars as go-yaml resolves them, timestamps kept as strings"),
    pytest.param("1: x\ntrue: y\nnull: z\n1.5: w\n", id="keys that are not strings become strings"),
    pytest.param("a: 1\na: 2\n", id="a key given twice keeps its last value"),
    pytest.param("a: .inf\nb: -.Inf\nc: 'yes'\nd: \"on\"\ne: !!str 1\n", id="quoted and tagged scalars"),
    pytest.param("- a\n- b: [1, {c: d}]\n", id="a sequence at the top"),
    pytest.param("a: !!binary aGVsbG8=\n", id="an explicit tag: the loader's constructor"),
    pytest.param("<<: {a: 1}\nb: 2\n", id="a merge key: the loader's constructor"),
    pytest.param("a: &x {b: 1}\nc: *x\n", id="an alias: the loader's constructor"),
    pytest.param("? [a]\n: 1\n", id="a complex key: the loader's error"),
    pytest.param("a: =\n", id="the value tag: the loader's error"),
    pytest.param("a: !foo bar\n", id="an unknown tag: the loader's error"),
]


@pytest.mark.parametrize("text", PLAIN_OR_NOT)
def test_plain_documents_are_read_as_the_loaders_constructors_read_them(text, monkeypatch):
    from kubesim.codec import load as codec_load

    def outcome():
        try:
            return decode_yaml("f.yaml", text)
        except ParseError as e:
            return str(e)

    fast = outcome()

    def not_plain(*_):
        raise codec_load._NotPlain

    monkeypatch.setattr(codec_load, "_construct_plain", not_plain)
    assert repr(fast) == repr(outcome())
