"""Tests for kubesim.printers.jsonpath.

The tables mirror upstream's ``client-go/util/jsonpath/{parser,jsonpath}_test.go``. Go structs
marshal their fields in declaration order and Go maps iterate at random; here every object is a
dict, which prints with sorted keys and is walked (``.*``, ``..``) in key order, so the expected
strings of the struct-based cases are adapted and say so.

The "kubectl" tables hold outputs confirmed with kubectl v1.36.4 (``kubectl get pods -o
jsonpath=...`` against a stand-in API server serving ``PODS``); they are literals, and these
tests do not need kubectl.
"""

from __future__ import annotations

import pytest

from kubesim.api import gofmt
from kubesim.printers import jsonpath
from kubesim.printers.jsonpath import JSONPathError
from kubesim.printers.jsonpath.node import (
    ArrayNode,
    BoolNode,
    FieldNode,
    FilterNode,
    FloatNode,
    IdentifierNode,
    IntNode,
    ListNode,
    Param,
    RecursiveNode,
    TextNode,
    UnionNode,
    WildcardNode,
)

ALL = (Param(), Param(), Param())


def run(template, data, allow_missing_keys=False):
    return jsonpath.parse(template, allow_missing_keys=allow_missing_keys).execute(data)


def engine_error(template, data, allow_missing_keys=False):
    """The engine's bare error text (what upstream's testFailJSONPath compares)."""
    with pytest.raises(JSONPathError) as err:
        jsonpath.parse(template, allow_missing_keys=allow_missing_keys).find_results(data)
    return str(err.value)


# ---------------------------------------------------------------------------------------------
# parser_test.go

PARSER_CASES = [
    pytest.param("hello jsonpath", [TextNode("hello jsonpath")], id="plain text is one text node"),
    pytest.param(
        "hello {.jsonpath}",
        [TextNode("hello "), ListNode([FieldNode("jsonpath")])],
        id="a field after text is an action list",
    ),
    pytest.param(
        "hello {['jsonpath']}",
        [TextNode("hello "), ListNode([FieldNode("jsonpath")])],
        id="a single-quoted key is a field",
    ),
    pytest.param('{"{"}', [ListNode([TextNode("{")])], id="a quoted brace is text"),
    pytest.param(
        "{[1:3]}",
        [ListNode([ArrayNode((Param(1, True), Param(3, True), Param()))])],
        id="a slice records start and end",
    ),
    pytest.param(
        "{.book[*].author}",
        [ListNode([FieldNode("book"), ArrayNode(ALL), FieldNode("author")])],
        id="star in brackets is the whole slice",
    ),
    pytest.param("{.bicycle.*}", [ListNode([FieldNode("bicycle"), WildcardNode()])], id="dot star is a wildcard"),
    pytest.param(
        "{[?(@.price<3)]}",
        [ListNode([FilterNode(ListNode([FieldNode("price")]), ListNode([IntNode(3)]), "<")])],
        id="a filter holds its left side, right side and operator",
    ),
    pytest.param("{..}", [ListNode([RecursiveNode()])], id="two dots are recursive descent"),
    pytest.param("{..price}", [ListNode([RecursiveNode(), FieldNode("price")])], id="recursive descent takes a field"),
    pytest.param(
        "{['book.price']}",
        [ListNode([FieldNode("book"), FieldNode("price")])],
        id="a dotted quoted key is a path of fields",
    ),
    pytest.param(
        "{['bicycle.price', 3, 'book.price']}",
        [
            ListNode(
                [
                    UnionNode(
                        [
                            ListNode([FieldNode("bicycle"), FieldNode("price")]),
                            ListNode([ArrayNode((Param(3, True), Param(4, True, True), Param()))]),
                            ListNode([FieldNode("book"), FieldNode("price")]),
                        ]
                    )
                ]
            )
        ],
        id="a comma makes a union of lists",
    ),
    pytest.param(
        "{range .items}{.name},{end}",
        [
            ListNode([IdentifierNode("range"), FieldNode("items")]),
            ListNode([FieldNode("name")]),
            TextNode(","),
            ListNode([IdentifierNode("end")]),
        ],
        id="range and end are identifiers",
    ),
    pytest.param(
        '{[?(@.status.nodeInfo.osImage == "()")]}',
        [
            ListNode(
                [
                    FilterNode(
                        ListNode([FieldNode("status"), FieldNode("nodeInfo"), FieldNode("osImage")]),
                        ListNode([TextNode("()")]),
                        "==",
                    )
                ]
            )
        ],
        id="parentheses inside quotes do not end a filter",
    ),
    pytest.param(
        r'{[?(@.status.nodeInfo.osImage == "(\"\")")]}',
        [
            ListNode(
                [
                    FilterNode(
                        ListNode([FieldNode("status"), FieldNode("nodeInfo"), FieldNode("osImage")]),
                        ListNode([TextNode('("")')]),
                        "==",
                    )
                ]
            )
        ],
        id="escaped double quotes stay inside the string",
    ),
    pytest.param(
        '{[?(@.test == "())(")]}',
        [ListNode([FilterNode(ListNode([FieldNode("test")]), ListNode([TextNode("())(")]), "==")])],
        id="unbalanced parentheses inside quotes are text",
    ),
    pytest.param(
        "{[?(@.status.nodeInfo.osImage == 'Linux')]}",
        [
            ListNode(
                [
                    FilterNode(
                        ListNode([FieldNode("status"), FieldNode("nodeInfo"), FieldNode("osImage")]),
                        ListNode([TextNode("Linux")]),
                        "==",
                    )
                ]
            )
        ],
        id="single quotes make text too",
    ),
    pytest.param(
        '{[?(@.status.nodeInfo.osImage == "{[()]}")]}',
        [
            ListNode(
                [
                    FilterNode(
                        ListNode([FieldNode("status"), FieldNode("nodeInfo"), FieldNode("osImage")]),
                        ListNode([TextNode("{[()]}")]),
                        "==",
                    )
                ]
            )
        ],
        id="brackets inside quotes are text",
    ),
    pytest.param(
        """{[?(@.status.nodeInfo.osImage == "''")]}""",
        [
            ListNode(
                [
                    FilterNode(
                        ListNode([FieldNode("status"), FieldNode("nodeInfo"), FieldNode("osImage")]),
                        ListNode([TextNode("''")]),
                        "==",
                    )
                ]
            )
        ],
        id="single quotes inside double quotes",
    ),
    pytest.param(
        """{[?(@.status.nodeInfo.osImage == '""')]}""",
        [
            ListNode(
                [
                    FilterNode(
                        ListNode([FieldNode("status"), FieldNode("nodeInfo"), FieldNode("osImage")]),
                        ListNode([TextNode('""')]),
                        "==",
                    )
                ]
            )
        ],
        id="double quotes inside single quotes",
    ),
    pytest.param(
        r"{[?(@.status.nodeInfo.osImage == '\\\'')]}",
        [
            ListNode(
                [
                    FilterNode(
                        ListNode([FieldNode("status"), FieldNode("nodeInfo"), FieldNode("osImage")]),
                        ListNode([TextNode("\\'")]),
                        "==",
                    )
                ]
            )
        ],
        id="an escaped single quote inside single quotes",
    ),
    pytest.param(
        "{[-5:]}",
        [ListNode([ArrayNode((Param(-5, True), Param(), Param()))])],
        id="a negative start with an open end",
    ),
    pytest.param(
        "{[-1]}",
        [ListNode([ArrayNode((Param(-1, True), Param(0, True, True), Param()))])],
        id="a single negative index derives its end",
    ),
    pytest.param(
        "{[1:-1]}",
        [ListNode([ArrayNode((Param(1, True), Param(-1, True), Param()))])],
        id="a negative end is kept as written",
    ),
    pytest.param(
        "{...Price}",
        [ListNode([RecursiveNode(), FieldNode("Price")])],
        id="three dots are recursive descent and a field",
    ),
    pytest.param(
        r"{.metadata.labels.kubernetes\.io/hostname}",
        [ListNode([FieldNode("metadata"), FieldNode("labels"), FieldNode("kubernetes.io/hostname")])],
        id="an escaped dot stays in the field name",
    ),
    pytest.param(
        "{1 -2 2.5 true false}",
        [ListNode([IntNode(1), IntNode(-2), FloatNode(2.5), BoolNode(True), BoolNode(False)])],
        id="numbers and booleans are literals",
    ),
    pytest.param("{@ $}", [ListNode([])], id="the current and root object add no node"),
    pytest.param("{.}", [ListNode([FieldNode("")])], id="a lone dot is the empty field"),
    pytest.param(
        "{[]}",
        [ListNode([ArrayNode((Param(), Param(1, True, True), Param()))])],
        id="empty brackets are index zero",
    ),
    pytest.param(r"a\nb {'\t'}", [TextNode(r"a\nb "), ListNode([TextNode("\t")])], id="escapes work only when quoted"),
]


@pytest.mark.parametrize("template, nodes", PARSER_CASES)
def test_parse_builds_upstreams_nodes(template, nodes):
    assert jsonpath.parse(template).root.nodes == nodes


PARSER_FAILURES = [
    pytest.param("{.hello", "unclosed action", id="an action without a closing brace"),
    pytest.param("{.hello\n}", "unclosed action", id="a newline inside an action"),
    pytest.param("{*}", "unrecognized character in action: U+002A '*'", id="a character that starts nothing"),
    pytest.param("{\t}", "unrecognized character in action: U+0009", id="an unprintable character is shown by code only"),
    pytest.param(r"{\\\}", "unrecognized character in action: U+005C '\\'", id="a backslash outside a field"),
    pytest.param("{+12.3.0}", "cannot parse number +12.3.0", id="a number with two points"),
    pytest.param("{[1}", "unterminated array", id="an array without a closing bracket"),
    pytest.param("{[?(.price]}", "unterminated filter", id="a filter without a closing parenthesis"),
    pytest.param("{........}", "invalid multiple recursive descent", id="recursive descent twice in a row"),
    pytest.param("{............Price}", "invalid multiple recursive descent", id="many dots before a field"),
    pytest.param("{.items[a]}", "invalid array index a", id="a letter as an index"),
    pytest.param("{.items[1:2:3:4]}", "invalid array index 1:2:3:4", id="four slice parameters"),
    pytest.param('{["x"]}', 'invalid array index "x"', id="a double-quoted key is not supported"),
    pytest.param("{.items[-]}", "array index - is not a number", id="a lone minus as an index"),
    pytest.param('{"abc', "unterminated quoted string", id="a string without its closing quote"),
    pytest.param("{.items[?(@.a)x]}", "unclosed array expect ]", id="text between a filter and its bracket"),
    pytest.param(r'{"\q"}', r'unquote string "\q" error invalid syntax', id="an unknown escape in a string"),
    pytest.param(r"""{'\"'}""", r"""unquote string '\"' error invalid syntax""", id="an escaped double quote in single quotes"),
]


@pytest.mark.parametrize("template, message", PARSER_FAILURES)
def test_parse_fails_with_upstreams_text(template, message):
    with pytest.raises(JSONPathError) as err:
        jsonpath.parse(template)
    assert str(err.value) == message


def test_kubectl_wraps_parse_errors_with_the_template():
    # kubectl: error: error parsing jsonpath {.items[0].metadata.name, unclosed action
    with pytest.raises(JSONPathError) as err:
        jsonpath.parse("{.items[0].metadata.name")
    assert (
        jsonpath.PARSE_ERROR.format(template="{.items[0].metadata.name", error=err.value)
        == "error parsing jsonpath {.items[0].metadata.name, unclosed action"
    )


# ---------------------------------------------------------------------------------------------
# jsonpath_test.go: TestTypesInput

TYPES = {
    "bools": [True, False, True, False],
    "integers": [1, 2, 3, 4],
    "floats": [1.0, 2.2, 3.3, 4.0],
    "strings": ["one", "two", "three", "four"],
    "interfaces": [True, "one", 1, 1.1],
    "maps": [
        {"name": "one", "value": 1},
        {"name": "two", "value": 2.02},
        {"name": "three", "value": 3.03},
        {"name": "four", "value": 4.04},
    ],
    # Upstream's structs print in field order (name, value, type); dicts print sorted.
    "structs": [
        {"name": "one", "value": 1, "type": "integer"},
        {"name": "two", "value": 2.002, "type": "float"},
        {"name": "three", "value": 3, "type": "integer"},
        {"name": "four", "value": 4.004, "type": "float"},
    ],
}

TYPES_CASES = [
    pytest.param("{ .bools }", "[true,false,true,false]", id="a list of booleans prints as JSON"),
    pytest.param("{ .bools[0] }", "true", id="one boolean"),
    pytest.param("{ .bools[-1] }", "false", id="the last boolean"),
    pytest.param("{ .bools[0:2] }", "true false", id="a slice of booleans is space separated"),
    pytest.param("{ .bools[:2] }", "true false", id="a slice from the start"),
    pytest.param("{ .bools[:4:2] }", "true true", id="a slice with a step"),
    pytest.param("{ .integers }", "[1,2,3,4]", id="a list of integers"),
    pytest.param("{ .integers[0] }", "1", id="one integer"),
    pytest.param("{ .integers[-2] }", "3", id="an integer counted from the end"),
    pytest.param("{ .integers[0:2] }", "1 2", id="a slice of integers"),
    pytest.param("{ .integers[:4:2] }", "1 3", id="every other integer"),
    pytest.param("{ .floats }", "[1,2.2,3.3,4]", id="whole floats print without a point"),
    pytest.param("{ .floats[0] }", "1", id="one whole float"),
    pytest.param("{ .floats[-2] }", "3.3", id="one fractional float"),
    pytest.param("{ .floats[:4:2] }", "1 3.3", id="every other float"),
    pytest.param("{ .strings }", '["one","two","three","four"]', id="a list of strings is quoted JSON"),
    pytest.param("{ .strings[0] }", "one", id="one string is unquoted"),
    pytest.param("{ .strings[-2] }", "three", id="a string counted from the end"),
    pytest.param("{ .strings[:4:2] }", "one three", id="every other string"),
    pytest.param("{ .interfaces }", '[true,"one",1,1.1]', id="a mixed list"),
    pytest.param("{ .interfaces[0:2] }", "true one", id="a slice of a mixed list"),
    pytest.param("{ .interfaces[:4:2] }", "true 1", id="every other item of a mixed list"),
    pytest.param(
        "{ .maps }",
        '[{"name":"one","value":1},{"name":"two","value":2.02},{"name":"three","value":3.03},{"name":"four","value":4.04}]',
        id="a list of maps",
    ),
    pytest.param("{ .maps[0] }", '{"name":"one","value":1}', id="one map"),
    pytest.param("{ .maps[-2] }", '{"name":"three","value":3.03}', id="a map counted from the end"),
    pytest.param("{ .maps[0:2] }", '{"name":"one","value":1} {"name":"two","value":2.02}', id="two maps"),
    pytest.param("{ .maps[::2] }", '{"name":"one","value":1} {"name":"three","value":3.03}', id="odd maps"),
    pytest.param("{ .maps[1::2] }", '{"name":"two","value":2.02} {"name":"four","value":4.04}', id="even maps"),
    pytest.param(
        "{ .structs[0] }", '{"name":"one","type":"integer","value":1}', id="a map prints its keys sorted"
    ),
    pytest.param(
        "{ .structs[1::2] }",
        '{"name":"two","type":"float","value":2.002} {"name":"four","type":"float","value":4.004}',
        id="sorted keys in every printed map",
    ),
]


@pytest.mark.parametrize("template, expected", TYPES_CASES)
def test_values_of_every_type_print_as_upstream(template, expected):
    assert run(template, TYPES) == expected


# ---------------------------------------------------------------------------------------------
# jsonpath_test.go: TestStructInput, with the store as dicts

STORE = {
    "Name": "jsonpath",
    "Book": [
        {"Category": "reference", "Author": "Nigel Rees", "Title": "Sayings of the Centurey", "Price": 8.95},
        {"Category": "fiction", "Author": "Evelyn Waugh", "Title": "Sword of Honour", "Price": 12.99},
        {"Category": "fiction", "Author": "Herman Melville", "Title": "Moby Dick", "Price": 8.99},
    ],
    "Bicycle": [
        {"Color": "red", "Price": 19.95, "IsNew": True},
        {"Color": "green", "Price": 20.01, "IsNew": False},
    ],
    "Labels": {"engieer": 10, "web/html": 15, "k8s-app": 20},
    "Employees": {"jason": "manager", "dan": "clerk"},
}

STORE_CASES = [
    pytest.param("hello jsonpath", None, "hello jsonpath", id="plain text needs no data"),
    pytest.param("{..}", [1, 2, 3], "[1,2,3]", id="recursive descent keeps only containers"),
    pytest.param("{[?(@<5)]}", [2, 6, 3, 7], "2 3", id="a filter on the items themselves"),
    pytest.param('{"{"}', None, "{", id="a quoted brace prints as text"),
    pytest.param("{[1,3,4]}", [0, 1, 2, 3, 4], "1 3 4", id="a union of indexes"),
    pytest.param("{[0:2]}", ["Monday", "Tudesday"], "Monday Tudesday", id="a slice of the root list"),
    pytest.param("hello {.Name}", STORE, "hello jsonpath", id="text then a field"),
    pytest.param("{$.Labels.web/html}", STORE, "15", id="a slash is part of a key"),
    pytest.param("{$.Employees.jason}", STORE, "manager", id="a map value"),
    pytest.param("{$.Employees.dan}", STORE, "clerk", id="another map value"),
    pytest.param("{.Labels.k8s-app}", STORE, "20", id="a dash is part of a key"),
    pytest.param("{.Bicycle[*].Color}", STORE, "red green", id="a field of every item"),
    pytest.param("{.Book[*].Author}", STORE, "Nigel Rees Evelyn Waugh Herman Melville", id="values with spaces"),
    # Upstream's struct prints "{red 19.95 true} {green 20.01 false} " (field order).
    pytest.param(
        '{range .Bicycle[*]}{ "{" }{ @.* }{ "} " }{end}',
        STORE,
        "{red true 19.95} {green false 20.01} ",
        id="every field of every item in key order",
    ),
    # Upstream's struct order puts Book first: "8.95 12.99 8.99 19.95 20.01".
    pytest.param("{..Price}", STORE, "19.95 20.01 8.95 12.99 8.99", id="recursive descent finds every price"),
    pytest.param("{...Price}", STORE, "19.95 20.01 8.95 12.99 8.99", id="a third dot changes nothing"),
    pytest.param(
        "{.Bicycle}",
        STORE,
        '[{"Color":"red","IsNew":true,"Price":19.95},{"Color":"green","IsNew":false,"Price":20.01}]',
        id="a list of objects",
    ),
    pytest.param(
        '{range .Bicycle[*]}{ @ }{ " " }{end}',
        STORE,
        '{"Color":"red","IsNew":true,"Price":19.95} {"Color":"green","IsNew":false,"Price":20.01} ',
        id="the current item inside a range",
    ),
    pytest.param(
        "{.Book[-1:]}",
        STORE,
        '{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}',
        id="the last item by slice",
    ),
    pytest.param(
        "{..Book[2]}",
        STORE,
        '{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}',
        id="an index after recursive descent",
    ),
    pytest.param(
        "{.Bicycle[?(@.IsNew==true)]}",
        STORE,
        '{"Color":"red","IsNew":true,"Price":19.95}',
        id="a filter on a boolean",
    ),
]


@pytest.mark.parametrize("template, data, expected", STORE_CASES)
def test_the_store_example(template, data, expected):
    assert run(template, data) == expected


def test_a_missing_field_prints_nothing_when_missing_keys_are_allowed():
    assert run("{.hello}", STORE, allow_missing_keys=True) == ""


STORE_FAILURES = [
    pytest.param("{hello}", "unrecognized identifier hello", id="a bare word is an unknown identifier"),
    pytest.param("{.hello}", "hello is not found", id="a missing field when missing keys are errors"),
    # Upstream's typed map says map[string]int; decoded JSON is map[string]interface {}.
    pytest.param("{.Labels[0]}", "map[string]interface {} is not array or slice", id="indexing a map"),
    pytest.param("{.Book[?(@.Price<>10)]}", "unrecognized filter operator <>", id="an unknown operator"),
    pytest.param("{range .Labels.*}{@}{end}{end}", "not in range, nothing to end", id="an end too many"),
]


@pytest.mark.parametrize("template, message", STORE_FAILURES)
def test_the_store_example_fails_as_upstream(template, message):
    assert engine_error(template, STORE) == message


# ---------------------------------------------------------------------------------------------
# jsonpath_test.go: TestJSONInput, TestKubernetes, TestEmptyRange, TestNestedRanges,
# TestFilterPartialMatchesSometimesMissingAnnotations

POINTS = [
    {"id": "i1", "x": 4, "y": -5},
    {"id": "i2", "x": -2, "y": -5, "z": 1},
    {"id": "i3", "x": 8, "y": 3},
    {"id": "i4", "x": -6, "y": -1},
    {"id": "i5", "x": 0, "y": 2, "z": 1},
    {"id": "i6", "x": 1, "y": 4},
]

NODES = {
    "kind": "List",
    "items": [
        {
            "kind": "None",
            "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
            "status": {
                "capacity": {"cpu": "4"},
                "ready": True,
                "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}],
            },
        },
        {
            "kind": "None",
            "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
            "status": {
                "capacity": {"cpu": "8"},
                "ready": False,
                "addresses": [
                    {"type": "LegacyHostIP", "address": "127.0.0.2"},
                    {"type": "another", "address": "127.0.0.3"},
                ],
            },
        },
    ],
    "users": [
        {"name": "myself", "user": {}},
        {"name": "e2e", "user": {"username": "admin", "password": "secret"}},
    ],
}

NESTED = {
    "items": [
        {
            "metadata": {"name": "pod1"},
            "spec": {
                "containers": [
                    {"name": "foo", "another": [{"name": "value1"}, {"name": "value2"}]},
                    {"name": "bar", "another": [{"name": "value1"}, {"name": "value2"}]},
                ]
            },
        },
        {
            "metadata": {"name": "pod2"},
            "spec": {"containers": [{"name": "baz", "another": [{"name": "value1"}, {"name": "value2"}]}]},
        },
    ]
}

ANNOTATED = {
    "kind": "List",
    "items": [
        {"kind": "Pod", "metadata": {"name": "pod1", "annotations": {"color": "blue"}}},
        {"kind": "Pod", "metadata": {"name": "pod2"}},
        {"kind": "Pod", "metadata": {"name": "pod3", "annotations": {"color": "green"}}},
        {"kind": "Pod", "metadata": {"name": "pod4", "annotations": {"color": "blue"}}},
    ],
}

KUBERNETES_CASES = [
    pytest.param("{[?(@.z)].id}", POINTS, "i2 i5", id="an exists filter keeps items that have the key"),
    pytest.param("{[0]['id']}", POINTS, "i1", id="a quoted key after an index"),
    pytest.param(
        "{range .items[*]}{.metadata.name}, {end}{.kind}",
        NODES,
        "127.0.0.1, 127.0.0.2, List",
        id="a range, then the root again after end",
    ),
    pytest.param(
        '{range .items[*]}{.metadata.name}{"\\t"}{end}',
        NODES,
        "127.0.0.1\t127.0.0.2\t",
        id="a quoted tab inside a range",
    ),
    pytest.param(
        "{.items[*].status.addresses[*].address}",
        NODES,
        "127.0.0.1 127.0.0.2 127.0.0.3",
        id="all addresses of all items",
    ),
    pytest.param(
        "{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}",
        NODES,
        "127.0.0.1, 127.0.0.2, 127.0.0.3, ",
        id="a range inside a range",
    ),
    pytest.param("{.items[*].metadata.name}", NODES, "127.0.0.1 127.0.0.2", id="every item's name"),
    pytest.param(
        "{.items[*]['metadata.name', 'status.capacity']}",
        NODES,
        '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}',
        id="a union of two paths groups by path",
    ),
    pytest.param(
        "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
        NODES,
        '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] ',
        id="text and values inside a range",
    ),
    pytest.param('{.users[?(@.name=="e2e")].user.password}', NODES, "secret", id="a filter on a string"),
    pytest.param(
        r"{.items[0].metadata.labels.kubernetes\.io/hostname}", NODES, "127.0.0.1", id="an escaped dot in a key"
    ),
    pytest.param(
        r'{.items[?(@.metadata.labels.kubernetes\.io/hostname=="127.0.0.1")].kind}',
        NODES,
        "None",
        id="an escaped dot in a filter",
    ),
    pytest.param("{.items[?(@..ready==true)].metadata.name}", NODES, "127.0.0.1", id="recursive descent in a filter"),
    # Upstream sorts this output because Go walks maps at random; here the walk is in key order.
    pytest.param("{..name}", NODES, "127.0.0.1 127.0.0.2 myself e2e", id="every name anywhere"),
    pytest.param(
        "{range .items[*]}{.metadata.name}{\":\"}{range @.spec.containers[*]}{.name}{\",\"}{end}{\"+\"}{end}",
        NESTED,
        "pod1:foo,bar,+pod2:baz,+",
        id="a nested range with text after it",
    ),
    pytest.param(
        '{range .items[*]}{.metadata.name}{"~"}{range @.spec.containers[*]}{.name}{":"}'
        '{range @.another[*]}{.name}{","}{end}{"+"}{end}{"#"}{end}',
        NESTED,
        "pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#",
        id="three levels of range",
    ),
    pytest.param(
        '{range .items[*]}{.metadata.name}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\t"}'
        '{range @.spec.containers[*]}{.name}{" "}{end}{"\\n"}{end}',
        NESTED,
        "pod1\tfoo bar \tfoo bar \npod2\tbaz \tbaz \n",
        id="two ranges side by side inside a range",
    ),
]


@pytest.mark.parametrize("template, data, expected", KUBERNETES_CASES)
def test_kubernetes_shaped_data(template, data, expected):
    assert run(template, data) == expected


EMPTY_RANGE_CASES = [
    pytest.param("{range .items[*]}{.metadata.name}{end}", id="a range over nothing prints nothing"),
    pytest.param(
        '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}',
        id="a nested range over nothing prints nothing",
    ),
]


@pytest.mark.parametrize("template", EMPTY_RANGE_CASES)
def test_an_empty_range(template):
    assert run(template, {"items": []}, allow_missing_keys=True) == ""


def test_an_empty_range_still_evaluates_its_body_once():
    # With missing keys as errors, the body runs against "no value" to find its {end}.
    assert engine_error("{range .items[*]}{.metadata.name}{end}", {"items": []}) == "metadata is not found"


def test_a_filter_tolerates_items_without_the_key_when_missing_keys_are_allowed():
    template = '{.items[?(@.metadata.annotations.color=="blue")].metadata.name}'
    assert run(template, ANNOTATED, allow_missing_keys=True) == "pod1 pod4"
    assert engine_error(template, ANNOTATED) == "annotations is not found"


# ---------------------------------------------------------------------------------------------
# jsonpath_test.go: TestNegativeIndex, TestStep

CONTAINERS4 = {"spec": {"containers": [{"name": f"fake{i}"} for i in range(4)]}}
CONTAINERS6 = {"spec": {"containers": [{"name": f"fake{i}"} for i in range(6)]}}

INDEX_CASES = [
    pytest.param("{.spec.containers[0].name}", CONTAINERS4, "fake0", id="containers[0]"),
    pytest.param("{.spec.containers[0:0].name}", CONTAINERS4, "", id="containers[0:0] is empty"),
    pytest.param("{.spec.containers[0:-1].name}", CONTAINERS4, "fake0 fake1 fake2", id="containers[0:-1] drops the last"),
    pytest.param("{.spec.containers[-1].name}", CONTAINERS4, "fake3", id="containers[-1] is the last"),
    pytest.param("{.spec.containers[-1:].name}", CONTAINERS4, "fake3", id="containers[-1:] is the last"),
    pytest.param("{.spec.containers[-2].name}", CONTAINERS4, "fake2", id="containers[-2]"),
    pytest.param("{.spec.containers[-2:].name}", CONTAINERS4, "fake2 fake3", id="containers[-2:]"),
    pytest.param("{.spec.containers[-3].name}", CONTAINERS4, "fake1", id="containers[-3]"),
    pytest.param("{.spec.containers[-4].name}", CONTAINERS4, "fake0", id="containers[-4] is the first"),
    pytest.param("{.spec.containers[-4:].name}", CONTAINERS4, "fake0 fake1 fake2 fake3", id="containers[-4:] is all"),
    pytest.param("{.spec.containers[5:5].name}", CONTAINERS4, "", id="an empty slice past the end is fine"),
    pytest.param("{.spec.containers[-5:-5].name}", CONTAINERS4, "", id="an empty slice before the start is fine"),
    pytest.param("{.spec.containers[0:].name}", CONTAINERS6, "fake0 fake1 fake2 fake3 fake4 fake5", id="containers[0:]"),
    pytest.param("{.spec.containers[0:6:].name}", CONTAINERS6, "fake0 fake1 fake2 fake3 fake4 fake5", id="an empty step"),
    pytest.param("{.spec.containers[0:6:1].name}", CONTAINERS6, "fake0 fake1 fake2 fake3 fake4 fake5", id="step 1"),
    pytest.param("{.spec.containers[1:4:2].name}", CONTAINERS6, "fake1 fake3", id="containers[1:4:2]"),
    pytest.param("{.spec.containers[1:4:3].name}", CONTAINERS6, "fake1", id="containers[1:4:3]"),
    pytest.param("{.spec.containers[1:4:4].name}", CONTAINERS6, "fake1", id="containers[1:4:4]"),
    pytest.param("{.spec.containers[0:6:2].name}", CONTAINERS6, "fake0 fake2 fake4", id="containers[0:6:2]"),
    pytest.param("{.spec.containers[0:6:3].name}", CONTAINERS6, "fake0 fake3", id="containers[0:6:3]"),
    pytest.param("{.spec.containers[0:6:5].name}", CONTAINERS6, "fake0 fake5", id="containers[0:6:5]"),
    pytest.param("{.spec.containers[0:6:6].name}", CONTAINERS6, "fake0", id="containers[0:6:6]"),
]


@pytest.mark.parametrize("template, data, expected", INDEX_CASES)
def test_indexes_slices_and_steps(template, data, expected):
    assert run(template, data) == expected


INDEX_FAILURES = [
    pytest.param(
        "{.spec.containers[-1:0].name}",
        CONTAINERS4,
        "starting index 3 is greater than ending index 0",
        id="containers[-1:0] runs backwards",
    ),
    pytest.param(
        "{.spec.containers[-5].name}",
        CONTAINERS4,
        "array index out of bounds: index -1, length 4",
        id="containers[-5] is out of bounds",
    ),
    pytest.param(
        "{.spec.containers[3:1].name}",
        CONTAINERS4,
        "starting index 3 is greater than ending index 1",
        id="containers[3:1] runs backwards",
    ),
    pytest.param(
        "{.spec.containers[-1:-2].name}",
        CONTAINERS4,
        "starting index 3 is greater than ending index 2",
        id="containers[-1:-2] runs backwards",
    ),
    pytest.param(
        "{.spec.containers[9].name}",
        CONTAINERS4,
        "array index out of bounds: index 9, length 4",
        id="an index past the end",
    ),
    pytest.param(
        "{.spec.containers[0:9].name}",
        CONTAINERS4,
        "array index out of bounds: index 8, length 4",
        id="a slice end past the end",
    ),
    pytest.param("{.spec.containers[0:6:0].name}", CONTAINERS6, "step must be > 0", id="step 0"),
    pytest.param("{.spec.containers[0:6:-1].name}", CONTAINERS6, "step must be > 0", id="a negative step"),
]


@pytest.mark.parametrize("template, data, message", INDEX_FAILURES)
def test_bad_indexes_fail_as_upstream(template, data, message):
    assert engine_error(template, data) == message


# ---------------------------------------------------------------------------------------------
# Confirmed against kubectl v1.36.4: `kubectl get pods -o jsonpath=...` over these pods.

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
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"containers": []},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "d", "namespace": "default", "labels": {"kubernetes.io/hostname": "n9", "app": "web"}},
        "spec": {
            "replicas": 3,
            "ratio": 0.25,
            "containers": [{"name": "x", "image": "busybox", "resources": {"limits": {"cpu": "1"}}}],
            "conditions": [{"type": "Ready", "status": "True"}, {"type": "Scheduled", "status": "False"}],
            "nums": [5, 1, 4, 2, 3],
        },
    },
]

# What kubectl get hands the printer for a list (printGeneric in kubectl's get.go).
POD_LIST = {"apiVersion": "v1", "items": PODS, "kind": "List", "metadata": {"resourceVersion": ""}}

KUBECTL_CASES = [
    pytest.param("{.items[*].metadata.name}", "a bb-long-name c d", id="every pod name"),
    pytest.param(
        "{.items[0].metadata.labels}|{.items[0].spec.containers}|{.items[0].metadata.labels.a}",
        '{"a":"1","b":"2"}|[{"image":"nginx","name":"c","ports":[{"containerPort":80}]}]|1',
        id="maps and lists as compact JSON with sorted keys",
    ),
    pytest.param("hello {.items[0].metadata.name} world", "hello a world", id="text around an action"),
    pytest.param(r"a\nb\tc {.kind}\n", r"a\nb\tc List\n", id="backslashes in plain text print as written"),
    pytest.param(
        '{range .items[*]}{.metadata.name}{"\\t"}{.spec.nodeName}{"\\n"}{end}',
        "a\tn1\nbb-long-name\t\nc\t\nd\t\n",
        id="a table made with range",
    ),
    pytest.param(
        "{range .items[*]}{.metadata.name}{'\\n'}",
        "a\nbb-long-name\nc\nd\n\n",
        id="a range without end runs its body once more on the root",
    ),
    pytest.param(
        "{.items[-1].metadata.name} {.items[-2:].metadata.name} {.items[::2].metadata.name} {.items[1:3].metadata.name}",
        "d c d a c bb-long-name c",
        id="negative indexes, open slices and steps",
    ),
    pytest.param("{.items[0:0].metadata.name}x", "x", id="an empty slice prints nothing"),
    pytest.param('{.items[?(@.metadata.name=="d")].spec.replicas}', "3", id="an equality filter"),
    pytest.param(
        "{.items[?(@.spec.replicas>=3)].metadata.name} {.items[?(@.spec.replicas<3)].metadata.name} "
        "{.items[?(@.spec.replicas<=3)].metadata.name} {.items[?(@.spec.replicas!=3)].metadata.name}",
        "d  d ",
        id="numeric filters skip pods without the field",
    ),
    pytest.param("{.items[?(@.spec.ratio<0.5)].metadata.name}", "d", id="a float compared with a float"),
    pytest.param("{.items[?(@.spec.t==true)].metadata.name}", "a", id="a boolean filter"),
    pytest.param("{.items[?(@.spec.nodeName)].metadata.name}", "a", id="an exists filter"),
    pytest.param('{.items[3].spec.conditions[?(@.type=="Ready")].status}', "True", id="the Ready condition"),
    pytest.param("{.items[*].spec.conditions[?(@.status=='False')].type}", "Scheduled", id="a single-quoted value"),
    pytest.param(r"{.items[*].metadata.labels.kubernetes\.io/hostname}", "n9", id="a label with dots in its key"),
    pytest.param("{..image}", "nginx busybox redis busybox", id="every image anywhere"),
    pytest.param("{.items[3]..name}", "d x", id="names below one pod"),
    pytest.param(
        "{.items[3].spec.nums[*]}|{.items[3].spec.nums[1,3]}|{.items[3]['kind','apiVersion']}",
        "5 1 4 2 3|1 2|Pod v1",
        id="unions of indexes and of keys",
    ),
    pytest.param("{.items[*]['metadata.name']}", "a bb-long-name c d", id="a dotted quoted key"),
    pytest.param("{$.kind} {@.kind}", "List List", id="root and current object"),
    pytest.param(
        "{.items[0].spec.f} {.items[0].spec.t} {.items[0].spec.nul} {.items[0].spec.list}",
        '1.5 true null [1,"x",null,2.5,{"k":"v","n":null}]',
        id="float, boolean, null and a mixed list",
    ),
    pytest.param("{.items[0].metadata.annotations.x}", "<&>", id="a string is not HTML-escaped"),
    pytest.param(
        "{.items[0].metadata.annotations}",
        '{"esc":"\\u001b[31mred\\r","tab":"p\\tq","uni":"héllo✓","x":"\\u003c\\u0026\\u003e"}',
        id="strings inside JSON are escaped as Go does",
    ),
    pytest.param("{.items[0].metadata.name.*}", "97", id="the wildcard of a string gives its bytes"),
    pytest.param("{.items[0].spec.emptym}{.items[0].spec.emptyl}", "{}[]", id="empty map and list"),
    pytest.param(
        "{range .items[*]}[{.metadata.name}:{range .spec.containers[*]}{.name},{end}]{end}",
        "[a:c,][bb-long-name:c1,c2,][c:][d:x,]",
        id="nested ranges, one of them empty",
    ),
    pytest.param("{range .items[3].spec.nums[*]}{@}{end}", "51423", id="a range over numbers"),
    pytest.param(
        "{.items[*].spec.containers[*].name}",
        "c c1 c2",
        id="an empty list stops the star for the items after it",
    ),
    pytest.param("{.items[*].spec.containers[?(@.image)].name}", "c c1 c2 x", id="a filter over several lists"),
    pytest.param("{.items[3].spec.nums[?(@>2)]}", "5 4 3", id="a filter on numbers"),
    pytest.param('{.items[3].spec.conditions[?(@.nope=="x")].type}', "", id="a filter on a missing key matches nothing"),
    pytest.param(
        "{.items[3].spec.nums[-1]} {.items[3].spec.nums[-5]} {.items[3].spec.nums[]}",
        "3 5 5",
        id="empty brackets mean the first item",
    ),
    pytest.param("{1} {2.5} {true} {\"x\"} {'y'}", "1 2.5 true x y", id="literals"),
    pytest.param('{.items[3].spec.nums[1:]}{"\\u00e9\\x41\\101"}', "1 4 2 3éAA", id="escapes in a quoted string"),
    pytest.param("{.}", "", id="a lone dot is the empty key"),
    pytest.param('{.items[?(@.metadata.name=="a" )].metadata.name}', "a", id="spaces inside a filter"),
    pytest.param("{.items[?(@..nodeName)].metadata.name}", "a", id="recursive descent inside a filter"),
    pytest.param(
        "{range .items[*]}{range .spec.conditions[*]}{.type}={.status};{end}|{end}",
        "|||Ready=True;Scheduled=False;|",
        id="a range over a missing list",
    ),
    pytest.param("{..conditions[*].type}", "Ready Scheduled", id="a star after recursive descent"),
    pytest.param("{.items[3].spec.nums[?(@)]}", "5 1 4 2 3", id="an exists filter on the items themselves"),
]


@pytest.mark.parametrize("template, expected", KUBECTL_CASES)
def test_outputs_confirmed_with_kubectl(template, expected):
    assert jsonpath.parse(template).execute(POD_LIST) == expected


def test_whole_objects_print_for_empty_braces_and_at():
    whole = gofmt.go_json(POD_LIST)
    assert jsonpath.parse("{}|{ }|{@}").execute(POD_LIST) == f"{whole}|{whole}|{whole}"


def test_a_null_item_inside_a_range_has_no_value():
    data = {"v": [1234567.5, 0.00001, 'q"\\', None]}
    assert jsonpath.parse("{range .v[*]}[{@}]{end}").execute(data) == '[1.2345675e+06][1e-05][q"\\][<no value>]'


KUBECTL_ENGINE_ERRORS = [
    pytest.param("{.items[9].metadata.name}", "array index out of bounds: index 9, length 4", id="an index past the end"),
    pytest.param(
        "{.items[?(@.spec.ratio<1)].metadata.name}",
        "incompatible types for comparison",
        id="a float compared with an int",
    ),
    pytest.param(
        '{.items[?(@.spec.replicas=="3")].metadata.name}',
        "incompatible types for comparison",
        id="a number compared with a string",
    ),
    pytest.param(
        "{.items[?(@.spec.t<true)].metadata.name}",
        "invalid type for comparison",
        id="booleans cannot be ordered",
    ),
    pytest.param("{.items[3].spec.nums[?(@>2.5)]}", "incompatible types for comparison", id="ints against a float"),
    pytest.param("{end}", "not in range, nothing to end", id="an end without a range"),
    pytest.param("{.kind[0]}", "string is not array or slice", id="indexing a string"),
    pytest.param(
        "{.metadata[?(@.x)]}",
        "map[resourceVersion:] is not array or slice and cannot be filtered",
        id="filtering a map",
    ),
    pytest.param("{.items[3].spec.nums[-6]}", "array index out of bounds: index -1, length 5", id="too negative"),
]


@pytest.mark.parametrize("template, message", KUBECTL_ENGINE_ERRORS)
def test_errors_confirmed_with_kubectl(template, message):
    assert engine_error(template, POD_LIST, allow_missing_keys=True) == message


# The object in kubectl's error text, for one small pod.
WEB_LIST = {
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "web-0", "namespace": "default", "labels": {"app": "web"}},
            "spec": {"nodeName": None, "priority": 0.5, "containers": [{"name": "nginx", "image": "nginx:1.27"}]},
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""},
}
WEB_LIST_SHARP_V = (
    'map[string]interface {}{"apiVersion":"v1", "items":[]interface {}{map[string]interface {}{"apiVersion":"v1", '
    '"kind":"Pod", "metadata":map[string]interface {}{"labels":map[string]interface {}{"app":"web"}, "name":"web-0", '
    '"namespace":"default"}, "spec":map[string]interface {}{"containers":[]interface {}{map[string]interface {}'
    '{"image":"nginx:1.27", "name":"nginx"}}, "nodeName":interface {}(nil), "priority":0.5}}}, "kind":"List", '
    '"metadata":map[string]interface {}{"resourceVersion":""}}'
)

EXECUTE_ERRORS = [
    pytest.param(
        "{.items[0].spec.hostname}",
        False,
        'error executing jsonpath "{.items[0].spec.hostname}": Error executing template: hostname is not found. '
        "Printing more information for debugging the template:\n\ttemplate was:\n\t\t{.items[0].spec.hostname}\n"
        f"\tobject given to jsonpath engine was:\n\t\t{WEB_LIST_SHARP_V}\n\n\n",
        id="a missing key with --allow-missing-template-keys=false",
    ),
    pytest.param(
        "{.items[?(@.spec.priority>0)].metadata.name}",
        True,
        'error executing jsonpath "{.items[?(@.spec.priority>0)].metadata.name}": Error executing template: '
        "incompatible types for comparison. Printing more information for debugging the template:\n"
        "\ttemplate was:\n\t\t{.items[?(@.spec.priority>0)].metadata.name}\n"
        f"\tobject given to jsonpath engine was:\n\t\t{WEB_LIST_SHARP_V}\n\n\n",
        id="a comparison of a float with an int",
    ),
]


@pytest.mark.parametrize("template, allow_missing_keys, message", EXECUTE_ERRORS)
def test_execute_fails_with_kubectls_full_text(template, allow_missing_keys, message):
    with pytest.raises(JSONPathError) as err:
        jsonpath.parse(template).execute(WEB_LIST, allow_missing_keys=allow_missing_keys)
    assert str(err.value) == message


def test_the_error_text_quotes_the_template_as_go_does():
    with pytest.raises(JSONPathError) as err:
        jsonpath.parse('{.items[?(@.spec.priority=="x")]}').execute(WEB_LIST)
    assert str(err.value).startswith(
        'error executing jsonpath "{.items[?(@.spec.priority==\\"x\\")]}": Error executing template: '
        "incompatible types for comparison."
    )


def test_missing_keys_print_nothing_by_default_as_kubectl_does():
    assert jsonpath.parse("{.items[0].spec.hostname}x").execute(WEB_LIST) == "x"


def test_null_prints_as_null():
    assert jsonpath.parse("{.items[0].spec.nodeName}|{.items[0].spec.priority}").execute(WEB_LIST) == "null|0.5"


def test_jsonpath_as_json_prints_one_indented_array_per_action():
    template = "{.items[0].metadata.labels}{.nope}{.items[*].metadata.name}"
    assert (
        jsonpath.parse(template, output_json=True).execute(WEB_LIST)
        == '[\n    {\n        "app": "web"\n    }\n]\n[]\n[\n    "web-0"\n]\n'
    )


# ---------------------------------------------------------------------------------------------
# Numbers, as kubectl decodes and prints them (confirmed with kubectl v1.36.4)

NUMBER_CASES = [
    pytest.param(1000000.0, "1000000", "1000000", id="a whole float decodes as an integer"),
    pytest.param(1e6, "1000000", "1000000", id="an exponent with a whole value is an integer"),
    pytest.param(1234567.5, "1.2345675e+06", "1234567.5", id="Go's %v switches to an exponent at 1e6"),
    pytest.param(0.5, "0.5", "0.5", id="a plain fraction"),
    pytest.param(1e23, "1e+23", "1e+23", id="beyond int64 stays a float"),
    pytest.param(0.00001, "1e-05", "0.00001", id="%v uses an exponent below 1e-4, JSON only below 1e-6"),
    pytest.param(1e-7, "1e-07", "1e-7", id="JSON trims the exponent's leading zero"),
    pytest.param(1.0, "1", "1", id="one"),
    pytest.param(2.50, "2.5", "2.5", id="trailing zeros go"),
    pytest.param(123456789012345678901, "1.2345678901234568e+20", "123456789012345680000", id="a huge integer is a float"),
    pytest.param(-0.0, "0", "0", id="negative zero is the integer zero"),
    pytest.param(9007199254740993, "9007199254740993", "9007199254740993", id="a large integer stays exact"),
    pytest.param(123456.5, "123456.5", "123456.5", id="below 1e6 %v stays fixed"),
]


@pytest.mark.parametrize("value, printed, as_json", NUMBER_CASES)
def test_numbers_print_as_kubectl_prints_them(value, printed, as_json):
    data = {"v": value, "l": [value]}
    assert jsonpath.parse("{.v}").execute(data) == printed
    assert jsonpath.parse("{.l}").execute(data) == f"[{as_json}]"


GO_QUOTE_CASES = [
    pytest.param("plain", '"plain"', id="plain text"),
    pytest.param('q"\\', '"q\\"\\\\"', id="quotes and backslashes"),
    pytest.param("\x1b[31mred\r", '"\\x1b[31mred\\r"', id="escape and carriage return"),
    pytest.param("p\tq\n", '"p\\tq\\n"', id="tab and newline"),
    pytest.param("héllo✓", '"héllo✓"', id="printable unicode as is"),
    pytest.param("\u200b", '"\\u200b"', id="an invisible character as a code"),
]


@pytest.mark.parametrize("text, quoted", GO_QUOTE_CASES)
def test_go_quote(text, quoted):
    assert gofmt.go_quote(text) == quoted


def test_go_json_escapes_like_encoding_json():
    # kubectl printed {"s":"\b\f\u0001\x7f\u2028\u2029é\"\\/\u003c\u003e\u0026"}
    value = {"s": "\b\f\x01\x7f\u2028\u2029é\"\\/<>&"}
    assert gofmt.go_json(value) == '{"s":"\\b\\f\\u0001\x7f\\u2028\\u2029é\\"\\\\/\\u003c\\u003e\\u0026"}'


def test_a_parsed_template_can_run_again():
    template = jsonpath.parse("{range .items[*]}{.metadata.name} {end}")
    assert template.execute(POD_LIST) == template.execute(POD_LIST) == "a bb-long-name c d "
