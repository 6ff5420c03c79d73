"""Tests for kubesim.printers.custom_columns.

The tables mirror upstream's ``kubectl/pkg/cmd/get/customcolumn_test.go``. The "kubectl" tables
hold outputs confirmed with kubectl v1.36.4 (``kubectl get pods -o custom-columns=...`` against a
stand-in API server serving the pods below); they are literals, and these tests do not need kubectl.
"""

from __future__ import annotations

import pytest

from kubesim.printers import custom_columns as cc
from kubesim.printers.custom_columns import Column, CustomColumnsError
from kubesim.printers.tabwriter import table_tabwrite

# ---------------------------------------------------------------------------------------------
# TestMassageJSONPath

RELAXED_CASES = [
    pytest.param("foo.bar", "{.foo.bar}", id="no dot and no braces"),
    pytest.param("{foo.bar}", "{.foo.bar}", id="braces without the dot"),
    pytest.param(".foo.bar", "{.foo.bar}", id="the dot without braces"),
    pytest.param("{.foo.bar}", "{.foo.bar}", id="a complete expression"),
    pytest.param("", "", id="empty stays empty"),
    pytest.param("..foo", "{..foo}", id="a leading double dot becomes recursive descent"),
    pytest.param("{.}", "{..}", id="braces around a lone dot keep the dot"),
    pytest.param("spec.containers[?(@.name=='x')].image", "{.spec.containers[?(@.name=='x')].image}", id="a filter"),
]


@pytest.mark.parametrize("path, expected", RELAXED_CASES)
def test_relaxed_expressions(path, expected):
    assert cc.relaxed(path) == expected


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("{foo.bar", id="an unclosed brace"),
        pytest.param("foo.bar}", id="an unopened brace"),
        pytest.param("{foo.bar}}", id="one closing brace too many"),
        pytest.param("{{foo.bar}", id="one opening brace too many"),
        pytest.param("{}", id="empty braces"),
        pytest.param("{.a}{.b}", id="two actions"),
    ],
)
def test_relaxed_rejects_what_upstream_rejects(path):
    with pytest.raises(ValueError) as err:
        cc.relaxed(path)
    assert str(err.value) == (
        "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'"
    )


# ---------------------------------------------------------------------------------------------
# TestNewColumnPrinterFromSpec

SPEC_CASES = [
    pytest.param(
        "NAME:metadata.name,API_VERSION:apiVersion",
        [Column("NAME", "{.metadata.name}"), Column("API_VERSION", "{.apiVersion}")],
        id="two columns",
    ),
    pytest.param("NAME:.metadata.name, X:.kind", [Column("NAME", "{.metadata.name}"), Column(" X", "{.kind}")], id="spaces belong to the header"),
    pytest.param("E:", [Column("E", "")], id="an empty expression"),
    pytest.param("T:a:b", [Column("T", "{.a:b}")], id="only the first colon splits"),
]


@pytest.mark.parametrize("spec, columns", SPEC_CASES)
def test_parse_spec(spec, columns):
    assert cc.parse_spec(spec) == columns
    assert cc.parse_spec(spec) == [tuple(column) for column in columns]


SPEC_FAILURES = [
    pytest.param("", "custom-columns format specified but no custom columns given", id="empty"),
    pytest.param("invalid", "unexpected custom-columns spec: invalid, expected <header>:<json-path-expr>", id="no colon"),
    pytest.param(
        "invalid=foobar",
        "unexpected custom-columns spec: invalid=foobar, expected <header>:<json-path-expr>",
        id="an equals sign instead of a colon",
    ),
    pytest.param(
        "invalid,foobar:blah",
        "unexpected custom-columns spec: invalid, expected <header>:<json-path-expr>",
        id="one good column and one bad",
    ),
    pytest.param(
        "X:.items[0,1]",
        "unexpected custom-columns spec: 1], expected <header>:<json-path-expr>",
        id="commas split columns even inside brackets",
    ),
    pytest.param(
        "N:{.a}}",
        "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
        id="a bad expression",
    ),
]


@pytest.mark.parametrize("spec, message", SPEC_FAILURES)
def test_parse_spec_fails_with_kubectls_text(spec, message):
    with pytest.raises(ValueError) as err:
        cc.parse_spec(spec)
    assert str(err.value) == message


# ---------------------------------------------------------------------------------------------
# TestNewColumnPrinterFromTemplate

TEMPLATE_ONE = "NAME               API_VERSION\n{metadata.name}    {apiVersion}"
TEMPLATE_TWO = "NAME               \t\tAPI_VERSION\n\t\t\t\t\t\t\t{metadata.name}    {apiVersion}"

FILE_CASES = [
    pytest.param(TEMPLATE_ONE, id="headers over expressions"),
    pytest.param(TEMPLATE_TWO, id="tabs are whitespace too"),
    pytest.param("NAME\tAPI_VERSION\r\n.metadata.name apiVersion\r\n", id="CRLF line ends"),
]


@pytest.mark.parametrize("text", FILE_CASES)
def test_parse_file(text):
    assert cc.parse_file(text) == [Column("NAME", "{.metadata.name}"), Column("API_VERSION", "{.apiVersion}")]


FILE_FAILURES = [
    pytest.param(
        "",
        "invalid template, missing header line. Expected format is one line of space separated headers, "
        "one line of space separated column specs.",
        id="an empty file",
    ),
    pytest.param(
        "NAME\n",
        "invalid template, missing spec line. Expected format is one line of space separated headers, "
        "one line of space separated column specs.",
        id="only a header line",
    ),
    pytest.param("A B\nx\n", "number of headers (2) and field specifications (1) don't match", id="too few expressions"),
    pytest.param("A\n\n", "number of headers (1) and field specifications (0) don't match", id="an empty spec line"),
    pytest.param(
        "invalid,foobar:blah",
        "invalid template, missing spec line. Expected format is one line of space separated headers, "
        "one line of space separated column specs.",
        id="a spec string is not a file",
    ),
]


@pytest.mark.parametrize("text, message", FILE_FAILURES)
def test_parse_file_fails_with_kubectls_text(text, message):
    with pytest.raises(ValueError) as err:
        cc.parse_file(text)
    assert str(err.value) == message


# ---------------------------------------------------------------------------------------------
# TestColumnPrint, TestIndividualPrintObjOnExistingTabWriter

FOO = {"apiVersion": "baz", "kind": "Pod", "metadata": {"name": "foo"}}

COLUMN_PRINT_CASES = [
    pytest.param([("NAME", "{.metadata.name}")], [FOO], "NAME\nfoo\n", id="one column is never padded"),
    pytest.param(
        [("NAME", "{.metadata.name}")],
        [{"metadata": {"name": "foo"}}, {"metadata": {"name": "bar"}}],
        "NAME\nfoo\nbar\n",
        id="a list prints one row per item",
    ),
    pytest.param(
        [("NAME", "{.metadata.name}"), ("API_VERSION", "{.apiVersion}")],
        [FOO],
        "NAME   API_VERSION\nfoo    baz\n",
        id="columns are three wider than their widest cell",
    ),
    pytest.param(
        [("NAME", "{.metadata.name}"), ("API_VERSION", "{.apiVersion}"), ("NOT_FOUND", "{.notFound}")],
        [FOO],
        "NAME   API_VERSION   NOT_FOUND\nfoo    baz           <none>\n",
        id="a missing value is <none>",
    ),
    pytest.param(
        [
            ("NAME", "{.metadata.name}"),
            ("LONG COLUMN NAME", "{.metadata.labels.label1}"),
            ("LABEL 2", "{.metadata.labels.label2}"),
        ],
        [
            {"metadata": {"name": "foo", "labels": {"label1": "foo", "label2": "foo"}}},
            {"metadata": {"name": "bar", "labels": {"label1": "bar", "label2": "bar"}}},
        ],
        "NAME   LONG COLUMN NAME   LABEL 2\nfoo    foo                foo\nbar    bar                bar\n",
        id="a long header sets its column's width",
    ),
]


@pytest.mark.parametrize("columns, objects, expected", COLUMN_PRINT_CASES)
def test_column_print(columns, objects, expected):
    assert cc.render(columns, objects) == expected


def test_no_headers_drops_the_header_row():
    assert cc.render(cc.parse_spec("API_VERSION:apiVersion"), [FOO], no_headers=True) == "baz\n"


# ---------------------------------------------------------------------------------------------
# TestSliceColumnPrint

FAKE_POD = {
    "metadata": {"name": "fake-name", "namespace": "fake-namespace"},
    "spec": {"containers": [{"name": f"fake{i}"} for i in range(4)]},
}

SLICE_CASES = [
    pytest.param("CONTAINER:.spec.containers[0].name", "CONTAINER\nfake0\n", id="containers[0]"),
    pytest.param("CONTAINER:.spec.containers[3].name", "CONTAINER\nfake3\n", id="containers[3]"),
    pytest.param("CONTAINER:.spec.containers[-1].name", "CONTAINER\nfake3\n", id="containers[-1] equals containers[3]"),
    pytest.param("CONTAINER:.spec.containers[-2].name", "CONTAINER\nfake2\n", id="containers[-2] equals containers[2]"),
    pytest.param("CONTAINER:.spec.containers[-4].name", "CONTAINER\nfake0\n", id="containers[-4] equals containers[0]"),
    pytest.param("CONTAINER:.spec.containers[0:0].name", "CONTAINER\n<none>\n", id="containers[0:0] is empty"),
    pytest.param("CONTAINER:.spec.containers[0:3].name", "CONTAINER\nfake0,fake1,fake2\n", id="several values join with commas"),
    pytest.param("CONTAINER:.spec.containers[1:].name", "CONTAINER\nfake1,fake2,fake3\n", id="containers[1:]"),
    pytest.param("CONTAINER:.spec.containers[0:-1].name", "CONTAINER\nfake0,fake1,fake2\n", id="containers[0:-1]"),
    pytest.param("CONTAINER:.spec.containers[-1:].name", "CONTAINER\nfake3\n", id="containers[-1:]"),
    pytest.param("CONTAINER:.spec.containers[-4:].name", "CONTAINER\nfake0,fake1,fake2,fake3\n", id="containers[-4:]"),
    pytest.param("CONTAINER:.spec.containers[-3:-1].name", "CONTAINER\nfake1,fake2\n", id="containers[-3:-1]"),
    pytest.param("CONTAINER:.spec.containers[4:4].name", "CONTAINER\n<none>\n", id="containers[4:4] is empty"),
    pytest.param("CONTAINER:.spec.containers[-5:-5].name", "CONTAINER\n<none>\n", id="containers[-5:-5] is empty"),
]


@pytest.mark.parametrize("spec, expected", SLICE_CASES)
def test_slice_column_print(spec, expected):
    assert cc.render(cc.parse_spec(spec), [FAKE_POD]) == expected


SLICE_FAILURES = [
    pytest.param("CONTAINER:.spec.containers[5].name", "array index out of bounds: index 5, length 4", id="containers[5]"),
    pytest.param("CONTAINER:.spec.containers[-5].name", "array index out of bounds: index -1, length 4", id="containers[-5]"),
    pytest.param(
        "CONTAINER:.spec.containers[3:1].name",
        "starting index 3 is greater than ending index 1",
        id="containers[3:1] runs backwards",
    ),
    pytest.param(
        "CONTAINER:.spec.containers[-2:-3].name",
        "starting index 2 is greater than ending index 1",
        id="containers[-2:-3] runs backwards",
    ),
]


@pytest.mark.parametrize("spec, message", SLICE_FAILURES)
def test_slice_column_print_fails_after_the_header(spec, message):
    with pytest.raises(CustomColumnsError) as err:
        cc.render(cc.parse_spec(spec), [FAKE_POD])
    assert str(err.value) == message
    assert err.value.output == "CONTAINER\n"


# ---------------------------------------------------------------------------------------------
# Confirmed against kubectl v1.36.4: `kubectl get pods -o custom-columns=...` over these pods.

PODS = [
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "a",
            "namespace": "default",
            "labels": {"b": "2", "a": "1"},
            "creationTimestamp": None,
            "annotations": {"x": "<&>", "esc": "\x1b[31mred\r", "tab": "p\tq", "uni": "héllo✓"},
        },
        "spec": {
            "nodeName": "n1",
            "containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}],
            "f": 1.5,
            "t": True,
            "nul": None,
            "list": [1, "x", None, 2.5, {"k": "v", "n": None}],
            "emptym": {},
            "emptyl": [],
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "bb-long-name", "namespace": "default"},
        "spec": {"containers": [{"name": "c1", "image": "busybox"}, {"name": "c2", "image": "redis"}]},
    },
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "c", "namespace": "default"}, "spec": {}},
]

KUBECTL_CASES = [
    pytest.param(
        "NAME:.metadata.name,LABELS:.metadata.labels,C:.spec.containers,IMG:.spec.containers[*].image,"
        "NUL:.spec.nul,CT:.metadata.creationTimestamp,L:spec.list,F:{.spec.f},T:spec.t,EM:.spec.emptym,EL:.spec.emptyl",
        False,
        "NAME           LABELS         C                                                         IMG             "
        "NUL      CT       L                                  F        T        EM       EL\n"
        "a              map[a:1 b:2]   [map[image:nginx name:c ports:[map[containerPort:80]]]]   nginx           "
        "<nil>    <nil>    [1 x <nil> 2.5 map[k:v n:<nil>]]   1.5      true     map[]    []\n"
        "bb-long-name   <none>         [map[image:busybox name:c1] map[image:redis name:c2]]     busybox,redis   "
        "<none>   <none>   <none>                             <none>   <none>   <none>   <none>\n"
        "c              <none>         <none>                                                    <none>          "
        "<none>   <none>   <none>                             <none>   <none>   <none>   <none>\n",
        id="values print as Go's fmt.Sprint: maps, lists and nil",
    ),
    pytest.param(
        "N:.metadata.name,ANN:.metadata.annotations,ESC:.metadata.annotations.esc,TAB:.metadata.annotations.tab,"
        "U:.metadata.annotations.uni,Z:.metadata.name",
        False,
        "N              ANN                         ESC                   TAB           U        Z\n"
        "a              map[esc:^[[31mred\\r tab:p   q uni:héllo✓ x:<&>]   ^[[31mred\\r   p        q     héllo✓   a\n"
        "bb-long-name   <none>                      <none>                <none>        <none>   bb-long-name\n"
        "c              <none>                      <none>                <none>        <none>   c\n",
        id="escape characters are shown and a tab in a value splits the cell",
    ),
    pytest.param("N:.metadata.name", True, "a\nbb-long-name\nc\n", id="no headers"),
    pytest.param("A:.x,B:.y", False, "A        B\n<none>   <none>\n<none>   <none>\n<none>   <none>\n", id="nothing found anywhere"),
    pytest.param(
        "V:.apiVersion,K:.kind,I:.metadata.name",
        False,
        "V     K     I\nv1    Pod   a\nv1    Pod   bb-long-name\nv1    Pod   c\n",
        id="a column is at least six wide",
    ),
    pytest.param(
        "N:.metadata.name,E:",
        False,
        "N              E\na              <none>\nbb-long-name   <none>\nc              <none>\n",
        id="an empty expression finds nothing",
    ),
    pytest.param(
        ":.metadata.name,:.metadata.name",
        False,
        "               \na              a\nbb-long-name   bb-long-name\nc              c\n",
        id="empty headers are padded like any cell",
    ),
    pytest.param(
        'N:.metadata.name,B:.spec.containers[?(@.name=="c1")].image,C:.spec.containers[0:1].name',
        False,
        "N              B         C\na              <none>    c\nbb-long-name   busybox   c1\nc              <none>    <none>\n",
        id="filters and slices",
    ),
    pytest.param(
        "N:.metadata.name, X:.kind",
        False,
        "N               X\na              Pod\nbb-long-name   Pod\nc              Pod\n",
        id="a header's leading space is kept",
    ),
]


@pytest.mark.parametrize("spec, no_headers, expected", KUBECTL_CASES)
def test_outputs_confirmed_with_kubectl(spec, no_headers, expected):
    assert cc.render(cc.parse_spec(spec), PODS, no_headers=no_headers) == expected


KUBECTL_FAILURES = [
    pytest.param("N:.spec.containers[5]", "N\n", "array index out of bounds: index 5, length 1", id="an index past the end"),
    pytest.param("N:.metadata.name,B:.a[", "N     B\n", "unterminated array", id="an expression that does not parse"),
    pytest.param(
        "N:.metadata.name,B:.metadata[0]",
        "N     B\n",
        "map[string]interface {} is not array or slice",
        id="indexing a map",
    ),
    pytest.param("N:.metadata.name,B:hello world", "N     B\n", "unrecognized identifier world", id="a space in an expression"),
]


@pytest.mark.parametrize("spec, output, message", KUBECTL_FAILURES)
def test_failures_confirmed_with_kubectl(spec, output, message):
    with pytest.raises(CustomColumnsError) as err:
        cc.render(cc.parse_spec(spec), PODS)
    assert (err.value.output, str(err.value)) == (output, message)


ODD_PODS = [
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "a",
            "namespace": "default",
            "annotations": {"w": "日本語", "e": "👍🏽x", "n": "l1\nl2\tz", "f": "p\fq", "v": "r\vs"},
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "bbbbbbbbbbbbbbbbbb", "namespace": "default", "annotations": {"w": "abc", "n": "one\ntwo\nthree"}},
    },
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "c", "namespace": "default", "annotations": {"w": "x"}}},
]

ODD_CASES = [
    pytest.param(
        "N:.metadata.name,W:.metadata.annotations.w,E:.metadata.annotations.e,Z:.kind",
        "N                    W     E        Z\na                    日本語   👍🏽x      Pod\n"
        "bbbbbbbbbbbbbbbbbb   abc   <none>   Pod\nc                    x     <none>   Pod\n",
        id="widths count code points",
    ),
    pytest.param(
        "X:.metadata.annotations.n,N:.metadata.name,K:.kind",
        "X     N     K\nl1\nl2    z     a     Pod\none\ntwo\nthree    bbbbbbbbbbbbbbbbbb   Pod\n"
        "<none>   c                    Pod\n",
        id="a newline in a value splits the row and restarts the columns",
    ),
    pytest.param(
        "N:.metadata.name,X:.metadata.annotations.n,K:.kind",
        "N                    X     K\na                    l1\nl2                   z     Pod\n"
        "bbbbbbbbbbbbbbbbbb   one\ntwo\nthree                Pod\nc                    <none>   Pod\n",
        id="later blocks keep the widths used before",
    ),
    pytest.param(
        "N:.metadata.name,F:.metadata.annotations.f,K:.kind",
        "N     F     K\na     p\nq                    Pod\nbbbbbbbbbbbbbbbbbb   <none>   Pod\nc                    <none>   Pod\n",
        id="a form feed flushes like a newline",
    ),
    pytest.param(
        "N:.metadata.name,V:.metadata.annotations.v,K:.kind,L:.metadata.name",
        "N                    V        K     L\na                    r        s     Pod   a\n"
        "bbbbbbbbbbbbbbbbbb   <none>   Pod   bbbbbbbbbbbbbbbbbb\nc                    <none>   Pod   c\n",
        id="a vertical tab ends a cell",
    ),
]


@pytest.mark.parametrize("spec, expected", ODD_CASES)
def test_odd_characters_confirmed_with_kubectl(spec, expected):
    assert cc.render(cc.parse_spec(spec), ODD_PODS) == expected


def test_a_custom_columns_file_renders_like_a_spec():
    columns = cc.parse_file("NAME   ANN\n.metadata.name   {.metadata.annotations.w}\n")
    assert cc.render(columns, ODD_PODS) == "NAME                 ANN\na                    日本語\nbbbbbbbbbbbbbbbbbb   abc\nc                    x\n"


def test_no_objects_print_only_the_header():
    assert cc.render(cc.parse_spec("NAME:.metadata.name,NODE:.spec.nodeName"), []) == "NAME   NODE\n"


# ---------------------------------------------------------------------------------------------
# The tabwriter on its own (text/tabwriter's package example, with kubectl's settings)

TABWRITE_CASES = [
    pytest.param(
        "aaaa\tbbb\td\naa\tb\tdd\na\t\naa\tcccc\teee\n",
        "aaaa   bbb   d\naa     b     dd\na      \naa     cccc   eee\n",
        id="columns are blocks of consecutive lines",
    ),
    pytest.param("x\ty", "x     y", id="text without a final newline"),
    pytest.param("", "", id="nothing"),
]


@pytest.mark.parametrize("text, expected", TABWRITE_CASES)
def test_tabwrite(text, expected):
    assert table_tabwrite(text) == expected
