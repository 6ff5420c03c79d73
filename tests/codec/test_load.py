"""Reading manifests: documents, Lists, directories, and every malformed input refused cleanly."""

import io
import time
import tracemalloc

import pytest

from kubesim.codec.load import MAX_FILE_BYTES, decode_yaml, load, parse_documents
from kubesim.errors import ParseError, UsageError

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
    pytest.param("? [a]\n: b\n", "line 1: found unhashable key", id="a list as a mapping key is refused"),
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
