"""Tests for kubesim.api.selectors.

Tables mirror upstream's labels/selector_test.go (TestSelectorParse, TestSelectorMatches,
TestLexer, TestLexerSequence, TestRequirementConstructor, TestToString,
TestRequirementSelectorMatching, TestSetSelectorParser) and fields/selector_test.go
(TestSelectorParse, TestSelectorMatches, TestSplitTerms, TestSplitTerm, TestEscapeValue,
TestUnescapeValue). Error texts marked "kubectl 1.36" were checked against that release with
``kubectl create poddisruptionbudget --selector=... --dry-run=client``.
"""

from __future__ import annotations

import pytest

from kubesim.api.selectors import (
    OP_DOES_NOT_EXIST,
    OP_DOUBLE_EQUALS,
    OP_EQUALS,
    OP_EXISTS,
    OP_GT,
    OP_IN,
    OP_LT,
    OP_NOT_EQUALS,
    OP_NOT_IN,
    FieldSelector,
    LabelSelector,
    Requirement,
    _lex,
    _split_term,
    _split_terms,
    convert_field_selector,
    escape_field_value,
    from_label_selector,
    generic_fields,
    label_key_errors,
    label_value_errors,
    new_requirement,
    node_fields,
    node_selector_matches,
    node_selector_requirement_matches,
    node_selector_term_matches,
    parse_field_selector,
    parse_label_selector,
    pod_fields,
    selector_from_set,
    supported_field_labels,
    unescape_field_value,
    unsupported_field_error,
)

NAME_PART_REGEX_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
    "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
PREFIX_MSG = (
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
    "'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


# --- labels.Parse ----------------------------------------------------------------------------

GOOD_SELECTORS = ["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1",
                  "x>1,z<5"]


@pytest.mark.parametrize("text", GOOD_SELECTORS,
                         ids=[f"{t!r} parses and prints back without spaces" for t in GOOD_SELECTORS])
def test_good_selectors_round_trip(text):
    assert str(parse_label_selector(text)) == text.replace(" ", "")


BAD_SELECTORS = [
    ("x=a||y=b", "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": "
                 + LABEL_VALUE_MSG),
    ("x==a==b", "found '==', expected: ',' or 'end of string'"),
    ("!x=a", "found '=', expected: ',' or 'end of string'"),
    ("x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' "
            "operators, the value must be an integer"),
    ("x>1.5", "unable to parse requirement: values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' "
              "operators, the value must be an integer"),
    ("x in (", "unable to parse requirement: found '', expected: ',', ')' or identifier"),
    ("a=b=c", "found '=', expected: ',' or 'end of string'"),
    ("x,,y", "found ',', expected: identifier after ','"),
    (",x,y", "found ',', expected: !, identifier, or 'end of string'"),
    ("x nott in (y)", "unable to parse requirement: found 'nott', expected: in, notin, =, ==, "
                      "!=, gt, lt"),
    ("a in (xyz),", "found '', expected: identifier after ','"),
    ("a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'"),
    ("a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'"),
    ("a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier"),
    ("a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"),
    ("(", "found '(', expected: !, identifier, or 'end of string'"),
    ("x in a", "unable to parse requirement: found 'a' expected: '('"),
    ("x=(", "unable to parse requirement: found '(', expected: identifier"),
    ("x in ((a))", "unable to parse requirement: found '(', expected: ',', ')' or identifier"),
    ("x notin (a))", "found ')', expected: ',' or 'end of string'"),
    ("!", "unable to parse requirement: found '', expected: identifier"),
    ("-x", "unable to parse requirement: <nil>: Invalid value: \"-x\": " + NAME_PART_REGEX_MSG),
    ("/a", "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be "
           "non-empty"),
    ("a/", "unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be "
           "non-empty; " + NAME_PART_REGEX_MSG),
    ("A_B.c/d", "unable to parse requirement: <nil>: Invalid value: \"A_B.c/d\": " + PREFIX_MSG),
    ("a/b/c", "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a valid label key "
              "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
              "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
              "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
              "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
    ("a" * 64, f"unable to parse requirement: <nil>: Invalid value: \"{'a' * 64}\": name part "
               "must be no more than 63 bytes"),
    ("x=" + "b" * 64, f"unable to parse requirement: values[0][x]: Invalid value: \"{'b' * 64}\": "
                      "must be no more than 63 bytes"),
    ("x=-1", "unable to parse requirement: values[0][x]: Invalid value: \"-1\": " + LABEL_VALUE_MSG),
    ("x in (é)", "unable to parse requirement: values[0][x]: Invalid value: \"é\": "
                 + LABEL_VALUE_MSG),
    ("x=\x01", "unable to parse requirement: values[0][x]: Invalid value: \"\\x01\": "
               + LABEL_VALUE_MSG),
    ("x>-a", "unable to parse requirement: [values[0]: Invalid value: \"-a\": for 'Gt', 'Lt' "
             "operators, the value must be an integer, values[0][x]: Invalid value: \"-a\": "
             + LABEL_VALUE_MSG + "]"),
    ("x in (-a,-b)", "unable to parse requirement: [values[0][x]: Invalid value: \"-a\": "
                     + LABEL_VALUE_MSG + ", values[1][x]: Invalid value: \"-b\": "
                     + LABEL_VALUE_MSG + "]"),
]


@pytest.mark.parametrize(("text", "message"), BAD_SELECTORS,
                         ids=[f"{t[:20]!r} is rejected (kubectl 1.36 text)" for t, _ in BAD_SELECTORS])
def test_bad_selectors_raise_upstreams_message(text, message):
    with pytest.raises(ValueError) as err:
        parse_label_selector(text)
    assert str(err.value) == message


def test_parsing_is_deterministic():
    assert str(parse_label_selector("x=a,a=x")) == str(parse_label_selector("a=x,x=a")) == "a=x,x=a"


MATCHES = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
    ("notin=in", {"notin": "in"}, True),  # in and notin in exact match
    ("x", {"x": "z"}, True),
    ("!x", {"y": "z"}, True),
    ("x>1", {"x": "2"}, True),
    ("x<1", {"x": "0"}, True),
    ("x=z", {}, False),
    ("x=y", {"x": "z"}, False),
    ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("x", {"y": "z"}, False),
    ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False),
    ("x<1", {"x": "2"}, False),
    ("foo=bar", {"foo": "bar", "baz": "blah"}, True),
    ("baz=blah", {"foo": "bar", "baz": "blah"}, True),
    ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
    ("foo=blah", {"foo": "bar", "baz": "blah"}, False),
    ("baz=bar", {"foo": "bar", "baz": "blah"}, False),
    ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
    # beyond upstream's table
    ("x>1", {"x": "v2"}, False),
    ("x>1", {}, False),
    ("x<10", {"x": "+5"}, True),
    ("x<10", {"x": " 5"}, False),
    ("x in (a,b)", {"x": "b"}, True),
    ("x notin (a,b)", {}, True),
    ("x notin (a,b)", {"x": "a"}, False),
    ("x in ()", {"x": ""}, True),
    ("x==y", {"x": "y"}, True),
    ("x", None, False),
    ("!x", None, True),
]


@pytest.mark.parametrize(("text", "labels", "expected"), MATCHES,
                         ids=[f"{t!r} {'matches' if e else 'does not match'} {lb}"
                              for t, lb, e in MATCHES])
def test_selector_matches(text, labels, expected):
    assert parse_label_selector(text).matches(labels) is expected


# TestSetSelectorParser: input -> (canonical string, or None when invalid)
SET_PARSER = [
    ("", ""),
    ("\rx", "x"),
    ("this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"),
    ("this-is-another-dns.domain.com/key-with-dash in (so,what)",
     "this-is-another-dns.domain.com/key-with-dash in (so,what)"),
    ("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
     "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"),
    ("foo  in\t (abc)", "foo in (abc)"),
    ("x notin\n (abc)", "x notin (abc)"),
    ("x  notin\t\t\t(abc,def)", "x notin (abc,def)"),
    ("x in (abc,def)", "x in (abc,def)"),
    ("x in (abc,)", "x in (,abc)"),
    ("x in ()", "x in ()"),
    ("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()"),
    ("x,y in (a)", "x,y in (a)"),
    ("x=a", "x=a"),
    ("x>1", "x>1"),
    ("x<7", "x<7"),
    ("x=a,y!=b", "x=a,y!=b"),
    ("x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"),
    ("x=a||y=b", None),
    ("x,,y", None),
    (",x,y", None),
    ("x nott in (y)", None),
    ("x notin ( )", "x notin ()"),
    ("x notin (, a)", "x notin (,a)"),
    ("a in (xyz),", None),
    ("a in (xyz)b notin ()", None),
    ("a ", "a"),
    ("a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"),  # 'in' inside a list of identifiers
    ("a in (xyz abc)", None),  # no comma
    ("a notin(", None),  # badly formed
    ("a (", None),
    ("(", None),
    ("x in (,)", "x in ()"),
    ("x in (a,,)", "x in (,a)"),
    ("z!=a,z", "z!=a,z"),
]


@pytest.mark.parametrize(("text", "expected"), SET_PARSER,
                         ids=[f"{t!r} {'parses to ' + repr(e) if e is not None else 'is invalid'}"
                              for t, e in SET_PARSER])
def test_set_selector_parser(text, expected):
    if expected is None:
        with pytest.raises(ValueError):
            parse_label_selector(text)
    else:
        assert str(parse_label_selector(text)) == expected


def test_set_based_values_are_deduplicated_and_sorted():
    sel = parse_label_selector("x in (b,a,b)")
    assert sel.requirements == (Requirement("x", OP_IN, ("a", "b")),)


def test_the_empty_selector_is_empty_and_matches_everything():
    sel = parse_label_selector("")
    assert sel.empty and sel.matches({"a": "b"}) and sel.matches(None) and str(sel) == ""


LEXER = [
    ("", [("EOS", "")]),
    (",", [("COMMA", ",")]),
    ("notin", [("NOTIN", "notin")]),
    ("in", [("IN", "in")]),
    ("=", [("EQUALS", "=")]),
    ("==", [("DOUBLE_EQUALS", "==")]),
    (">", [("GT", ">")]),
    ("<", [("LT", "<")]),
    ("!", [("NOT", "!")]),  # Lex returns the longest valid token found
    ("!=", [("NOT_EQUALS", "!=")]),
    ("(", [("OPEN_PAR", "(")]),
    (")", [("CLOSE_PAR", ")")]),
    ("~", [("ID", "~")]),  # non-special characters are part of an identifier
    ("||", [("ID", "||")]),
    ("key in ( value )", [("ID", "key"), ("IN", "in"), ("OPEN_PAR", "("), ("ID", "value"),
                          ("CLOSE_PAR", ")")]),
    ("== != (), = notin", [("DOUBLE_EQUALS", "=="), ("NOT_EQUALS", "!="), ("OPEN_PAR", "("),
                           ("CLOSE_PAR", ")"), ("COMMA", ","), ("EQUALS", "="),
                           ("NOTIN", "notin")]),
    ("key>2", [("ID", "key"), ("GT", ">"), ("ID", "2")]),
    ("x!==a", [("ID", "x"), ("NOT_EQUALS", "!="), ("EQUALS", "="), ("ID", "a")]),
]
TOKEN_NAMES = ["ERROR", "EOS", "CLOSE_PAR", "COMMA", "NOT", "DOUBLE_EQUALS", "EQUALS", "GT", "ID",
               "IN", "LT", "NOT_EQUALS", "NOTIN", "OPEN_PAR"]


@pytest.mark.parametrize(("text", "tokens"), LEXER,
                         ids=[f"{t!r} lexes as {' '.join(n for n, _ in tk)}" for t, tk in LEXER])
def test_lexer(text, tokens):
    got = [(TOKEN_NAMES[tok], lit) for tok, lit in _lex(text)]
    if tokens[-1][0] != "EOS":
        tokens = tokens + [("EOS", "")]
    assert got == tokens


# --- NewRequirement --------------------------------------------------------------------------
# A []string bad value prints as json.Marshal writes it (null for nil); the texts are Go's own
# (apimachinery v0.35.4 labels.NewRequirement and metav1.LabelSelectorAsSelector).

CONSTRUCTOR = [
    ("x", OP_IN, None, "values: Invalid value: null: for 'in', 'notin' operators, "
                       "values set can't be empty"),
    ("x", OP_NOT_IN, [], "values: Invalid value: []: for 'in', 'notin' operators, "
                         "values set can't be empty"),
    ("x", OP_IN, ["foo"], None),
    ("x", OP_NOT_IN, ["foo"], None),
    ("x", OP_EXISTS, None, None),
    ("x", OP_DOES_NOT_EXIST, None, None),
    ("1foo", OP_IN, ["bar"], None),
    ("1234", OP_IN, ["bar"], None),
    ("y", OP_GT, ["1"], None),
    ("z", OP_LT, ["6"], None),
    ("foo", OP_GT, ["bar"], "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the "
                            "value must be an integer"),
    ("barz", OP_LT, ["blah"], "values[0]: Invalid value: \"blah\": for 'Gt', 'Lt' operators, "
                              "the value must be an integer"),
    ("a" * 254, OP_EXISTS, None, f"key: Invalid value: \"{'a' * 254}\": name part must be no "
                                 "more than 63 bytes"),
    ("x", OP_EQUALS, ["a", "b"], "values: Invalid value: [\"a\",\"b\"]: exact-match "
                                 "compatibility requires one single value"),
    ("x", OP_EXISTS, ["a"], "values: Invalid value: [\"a\"]: values set must be empty "
                            "for exists and does not exist"),
    ("x", OP_GT, ["1", "2"], "values: Invalid value: [\"1\",\"2\"]: for 'Gt', 'Lt' "
                             "operators, exactly one value is required"),
    ("x", "like", ["a"], "operator: Unsupported value: \"like\": supported values: \"in\", "
                         "\"notin\", \"=\", \"==\", \"!=\", \"gt\", \"lt\", \"exists\", \"!\""),
]


@pytest.mark.parametrize(("key", "op", "values", "error"), CONSTRUCTOR,
                         ids=[f"{k[:10]} {o} {v} {'is invalid' if e else 'is valid'}"
                              for k, o, v, e in CONSTRUCTOR])
def test_requirement_constructor(key, op, values, error):
    if error is None:
        assert new_requirement(key, op, values).key == key
    else:
        with pytest.raises(ValueError) as err:
            new_requirement(key, op, values)
        assert str(err.value) == error


def test_a_field_path_prefixes_requirement_errors():
    with pytest.raises(ValueError) as err:
        new_requirement("-k", OP_EXISTS, path="spec.nodeSelectorTerms[0].matchExpressions[1]")
    assert str(err.value).startswith(
        'spec.nodeSelectorTerms[0].matchExpressions[1].key: Invalid value: "-k": name part')


TO_STRING = [
    ([("x", OP_IN, ["abc", "def"]), ("y", OP_NOT_IN, ["jkl"]), ("z", OP_EXISTS, [])],
     "x in (abc,def),y notin (jkl),z"),
    ([("x", OP_NOT_IN, ["abc", "def"]), ("y", OP_NOT_EQUALS, ["jkl"]), ("z", OP_DOES_NOT_EXIST, [])],
     "x notin (abc,def),y!=jkl,!z"),
    ([("x", OP_NOT_IN, ["abc"]), ("y", OP_IN, ["jkl", "mno"]), ("z", OP_NOT_IN, [""])],
     "x notin (abc),y in (jkl,mno),z notin ()"),
    ([("x", OP_EQUALS, ["abc"]), ("y", OP_DOUBLE_EQUALS, ["jkl"]), ("z", OP_NOT_EQUALS, ["a"]),
      ("z", OP_EXISTS, [])], "x=abc,y==jkl,z!=a,z"),
    ([("x", OP_GT, ["2"]), ("y", OP_LT, ["8"]), ("z", OP_EXISTS, [])], "x>2,y<8,z"),
    ([("x", OP_IN, ["def", "abc"])], "x in (abc,def)"),  # values print sorted
]


@pytest.mark.parametrize(("reqs", "expected"), TO_STRING, ids=[e for _, e in TO_STRING])
def test_selector_to_string(reqs, expected):
    sel = LabelSelector([new_requirement(k, op, vals) for k, op, vals in reqs])
    assert str(sel) == expected


REQUIREMENT_MATCHING = [
    ({"x": "foo", "y": "baz"}, [("x", OP_IN, ["foo"]), ("y", OP_NOT_IN, ["alpha"])], True),
    ({"x": "foo", "y": "baz"}, [("x", OP_IN, ["foo"]), ("y", OP_IN, ["alpha"])], False),
    ({"y": ""}, [("x", OP_NOT_IN, [""]), ("y", OP_EXISTS, [])], True),
    ({"y": ""}, [("x", OP_DOES_NOT_EXIST, []), ("y", OP_EXISTS, [])], True),
    ({"y": ""}, [("x", OP_NOT_IN, [""]), ("y", OP_DOES_NOT_EXIST, [])], False),
    ({"y": "baz"}, [("x", OP_IN, [""])], False),
    ({"z": "2"}, [("z", OP_GT, ["1"])], True),
    ({"z": "v2"}, [("z", OP_GT, ["1"])], False),
]


@pytest.mark.parametrize(("labels", "reqs", "expected"), REQUIREMENT_MATCHING,
                         ids=[f"{r} on {lb} is {e}" for lb, r, e in REQUIREMENT_MATCHING])
def test_requirement_selector_matching(labels, reqs, expected):
    sel = LabelSelector([new_requirement(k, op, vals) for k, op, vals in reqs])
    assert sel.matches(labels) is expected


KEY_ERRORS = [
    ("app", []),
    ("app.kubernetes.io/name", []),
    ("example.com/MyName", []),
    ("Example.com/a", [PREFIX_MSG]),
    ("a" * 63, []),
    ("x" * 300 + "/a", ["prefix part must be no more than 253 bytes"]),
    ("X" * 300 + "/a", ["prefix part must be no more than 253 bytes", PREFIX_MSG]),
]


@pytest.mark.parametrize(("key", "errors"), KEY_ERRORS,
                         ids=[f"{k[:24]!r} has {len(e)} errors" for k, e in KEY_ERRORS])
def test_label_key_validation(key, errors):
    assert label_key_errors(key) == errors


@pytest.mark.parametrize(("value", "valid"), [("", True), ("a", True), ("a-b_c.d", True),
                                              ("a" * 63, True), ("a" * 64, False), ("-a", False),
                                              ("a ", False)],
                         ids=["the empty value is valid", "one letter is valid",
                              "dashes, underscores and dots inside are valid",
                              "63 bytes is the limit", "64 bytes is too long",
                              "a leading dash is invalid", "a trailing space is invalid"])
def test_label_value_validation(value, valid):
    assert (label_value_errors(value) == []) is valid


# --- metav1.LabelSelectorAsSelector ----------------------------------------------------------

def test_a_missing_label_selector_matches_nothing():
    sel = from_label_selector(None)
    assert not sel.matches({}) and not sel.matches({"a": "b"})
    assert not sel.empty and sel.matches_nothing and str(sel) == ""


@pytest.mark.parametrize("sel", [{}, {"matchLabels": {}}, {"matchExpressions": []},
                                 {"matchLabels": None, "matchExpressions": None}],
                         ids=["an empty selector", "empty matchLabels", "empty matchExpressions",
                              "null fields"])
def test_an_empty_label_selector_matches_everything(sel):
    s = from_label_selector(sel)
    assert s.empty and s.matches({}) and s.matches({"a": "b"})


LABEL_SELECTOR_CASES = [
    ({"matchLabels": {"app": "web"}}, {"app": "web", "tier": "fe"}, True, "app=web"),
    ({"matchLabels": {"app": "web"}}, {"app": "db"}, False, "app=web"),
    ({"matchLabels": {"b": "1", "a": "2"}}, {"a": "2", "b": "1"}, True, "a=2,b=1"),
    ({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe", "be"]}]},
     {"tier": "be"}, True, "tier in (be,fe)"),
    ({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["fe"]}]},
     {}, True, "tier notin (fe)"),
    ({"matchExpressions": [{"key": "tier", "operator": "Exists"}]}, {"tier": ""}, True, "tier"),
    ({"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]}, {"tier": "x"}, False,
     "!tier"),
    ({"matchLabels": {"app": "web"},
      "matchExpressions": [{"key": "env", "operator": "NotIn", "values": ["prod"]}]},
     {"app": "web", "env": "dev"}, True, "app=web,env notin (prod)"),
]


@pytest.mark.parametrize(("sel", "labels", "expected", "text"), LABEL_SELECTOR_CASES,
                         ids=[f"{t} {'matches' if e else 'does not match'} {lb}"
                              for _, lb, e, t in LABEL_SELECTOR_CASES])
def test_label_selector_as_selector(sel, labels, expected, text):
    s = from_label_selector(sel)
    assert s.matches(labels) is expected
    assert str(s) == text


LABEL_SELECTOR_ERRORS = [
    ({"matchExpressions": [{"key": "a", "operator": "Foo", "values": ["x"]}]},
     '"Foo" is not a valid pod selector operator'),
    ({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
     '"Gt" is not a valid pod selector operator'),
    ({"matchExpressions": [{"key": "a", "operator": "In"}]},
     "values: Invalid value: null: for 'in', 'notin' operators, values set can't be "
     "empty"),
    ({"matchLabels": {"bad key": "v"}},
     'key: Invalid value: "bad key": ' + NAME_PART_REGEX_MSG),
    ({"matchLabels": {"app": "-v"}}, 'values[0][app]: Invalid value: "-v": ' + LABEL_VALUE_MSG),
]


@pytest.mark.parametrize(("sel", "message"), LABEL_SELECTOR_ERRORS,
                         ids=["an unknown operator", "Gt is for node selectors only",
                              "In without values", "an invalid matchLabels key",
                              "an invalid matchLabels value"])
def test_label_selector_errors(sel, message):
    with pytest.raises(ValueError) as err:
        from_label_selector(sel)
    assert str(err.value) == message


def test_selector_from_set_matches_exactly_and_empty_means_everything():
    s = selector_from_set({"b": "2", "a": "1"})
    assert str(s) == "a=1,b=2"
    assert s.matches({"a": "1", "b": "2", "c": "3"}) and not s.matches({"a": "1"})
    assert selector_from_set({}).empty and selector_from_set(None).matches({"x": "y"})


# --- node selectors --------------------------------------------------------------------------

NODE_LABELS = {"zone": "a", "cpus": "8", "gpu": "", "kubernetes.io/hostname": "n1"}
NODE_REQUIREMENTS = [
    ({"key": "zone", "operator": "In", "values": ["a", "b"]}, True, "In with the label's value"),
    ({"key": "zone", "operator": "In", "values": ["b"]}, False, "In without the label's value"),
    ({"key": "rack", "operator": "In", "values": ["r1"]}, False, "In on a missing label"),
    ({"key": "zone", "operator": "NotIn", "values": ["b"]}, True, "NotIn another value"),
    ({"key": "zone", "operator": "NotIn", "values": ["a"]}, False, "NotIn the label's value"),
    ({"key": "rack", "operator": "NotIn", "values": ["r1"]}, True, "NotIn on a missing label"),
    ({"key": "gpu", "operator": "Exists"}, True, "Exists on an empty label"),
    ({"key": "rack", "operator": "Exists"}, False, "Exists on a missing label"),
    ({"key": "rack", "operator": "DoesNotExist"}, True, "DoesNotExist on a missing label"),
    ({"key": "zone", "operator": "DoesNotExist"}, False, "DoesNotExist on a present label"),
    ({"key": "cpus", "operator": "Gt", "values": ["4"]}, True, "Gt compares integers"),
    ({"key": "cpus", "operator": "Gt", "values": ["10"]}, False, "Gt is not a string compare"),
    ({"key": "cpus", "operator": "Lt", "values": ["10"]}, True, "Lt compares integers"),
    ({"key": "cpus", "operator": "Lt", "values": ["8"]}, False, "Lt is strict"),
    ({"key": "zone", "operator": "Gt", "values": ["1"]}, False, "Gt on a non-integer label"),
    ({"key": "rack", "operator": "Lt", "values": ["1"]}, False, "Lt on a missing label"),
    ({"key": "cpus", "operator": "Gt", "values": ["x"]}, False, "Gt with a non-integer operand"),
    ({"key": "cpus", "operator": "Gt", "values": ["1", "2"]}, False, "Gt with two operands"),
    ({"key": "zone", "operator": "In", "values": []}, False, "In without values is invalid"),
    ({"key": "zone", "operator": "Exists", "values": ["a"]}, False, "Exists with values is invalid"),
    ({"key": "zone", "operator": "Equals", "values": ["a"]}, False, "an unknown operator"),
    ({"key": "-zone", "operator": "Exists"}, False, "an invalid key"),
    ({"key": "zone", "operator": "In", "values": [1]}, False, "a non-string value"),
    ({"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}, True,
     "a prefixed key"),
]


@pytest.mark.parametrize(("req", "expected", "why"), NODE_REQUIREMENTS,
                         ids=[w for *_, w in NODE_REQUIREMENTS])
def test_node_selector_requirement(req, expected, why):
    assert node_selector_requirement_matches(req, NODE_LABELS) is expected


NODE_FIELDS = {"metadata.name": "n1"}
NODE_TERMS = [
    ({}, False, "an empty term matches nothing"),
    (None, False, "a null term matches nothing"),
    ({"matchExpressions": [], "matchFields": []}, False, "a term with empty lists matches nothing"),
    ({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]},
                           {"key": "gpu", "operator": "Exists"}]}, True, "expressions are ANDed"),
    ({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]},
                           {"key": "rack", "operator": "Exists"}]}, False,
     "one failing expression fails the term"),
    ({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}, True,
     "matchFields selects the node by name"),
    ({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}, False,
     "matchFields on another name"),
    ({"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n2"]}]}, True,
     "matchFields NotIn another name"),
    ({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1", "n2"]}]}, False,
     "matchFields needs exactly one value"),
    ({"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}, False,
     "matchFields supports only In and NotIn"),
    ({"matchFields": [{"key": "metadata.uid", "operator": "In", "values": ["u"]}]}, False,
     "other fields read as empty"),
    ({"matchFields": [{"key": "metadata.uid", "operator": "NotIn", "values": ["u"]}]}, True,
     "other fields read as empty, so NotIn passes"),
    ({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}],
      "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}, False,
     "expressions and fields are ANDed"),
    ({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]},
                           {"key": "zone", "operator": "Bogus", "values": ["a"]}]}, False,
     "an invalid expression voids the whole term"),
    ({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}],
      "matchFields": [{"key": "metadata.name", "operator": "Gt", "values": ["1"]}]}, False,
     "an invalid field requirement voids the whole term"),
]


@pytest.mark.parametrize(("term", "expected", "why"), NODE_TERMS, ids=[w for *_, w in NODE_TERMS])
def test_node_selector_term(term, expected, why):
    assert node_selector_term_matches(term, NODE_LABELS, NODE_FIELDS) is expected


def test_match_fields_are_ignored_for_a_node_without_a_name():
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}
    assert node_selector_term_matches(term, NODE_LABELS, {}) is True
    assert node_selector_term_matches(term, NODE_LABELS, {"metadata.name": ""}) is True


def test_only_metadata_name_is_read_from_the_node_fields():
    term = {"matchFields": [{"key": "spec.unschedulable", "operator": "In", "values": ["true"]}]}
    assert node_selector_term_matches(term, {}, {"metadata.name": "n1",
                                                 "spec.unschedulable": "true"}) is False


NODE_SELECTORS = [
    (None, True, "no required affinity matches every node"),
    ({}, False, "a selector without terms matches nothing"),
    ({"nodeSelectorTerms": []}, False, "an empty term list matches nothing"),
    ({"nodeSelectorTerms": [{}]}, False, "only empty terms match nothing"),
    ({"nodeSelectorTerms": [{}, {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]},
     True, "an empty term is skipped and the next one can match"),
    ({"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]},
        {"matchExpressions": [{"key": "cpus", "operator": "Gt", "values": ["4"]}]}]},
     True, "terms are ORed"),
    ({"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]},
        {"matchExpressions": [{"key": "cpus", "operator": "Lt", "values": ["4"]}]}]},
     False, "no term matches"),
]


@pytest.mark.parametrize(("selector", "expected", "why"), NODE_SELECTORS,
                         ids=[w for *_, w in NODE_SELECTORS])
def test_node_selector(selector, expected, why):
    assert node_selector_matches(selector, NODE_LABELS, NODE_FIELDS) is expected


# --- fields.ParseSelector --------------------------------------------------------------------

GOOD_FIELD_SELECTORS = ["x=a,y=b,z=c", "", "x!=a,y=b", "x=a\\,b", "x=a\\=\\=b", "x=a\\\\b"]


@pytest.mark.parametrize("text", GOOD_FIELD_SELECTORS,
                         ids=[f"{t!r} parses and prints back" for t in GOOD_FIELD_SELECTORS])
def test_good_field_selectors_round_trip(text):
    assert str(parse_field_selector(text)) == text


BAD_FIELD_SELECTORS = [
    ("x=a||y=b", "invalid field selector: unescaped character in value: 61"),
    ("x==a==b", "invalid field selector: unescaped character in value: 61"),
    ("x=a,b", "invalid selector: 'x=a,b'; can't understand 'b'"),
    ("x in (a)", "invalid selector: 'x in (a)'; can't understand 'x in (a)'"),
    ("x in (a,b,c)", "invalid selector: 'x in (a,b,c)'; can't understand 'b'"),
    ("x", "invalid selector: 'x'; can't understand 'x'"),
    ("x=\\a", "invalid field selector: invalid escape sequence: \\a"),
    ("x=a\\", "invalid field selector: invalid escape sequence: \\"),
]


@pytest.mark.parametrize(("text", "message"), BAD_FIELD_SELECTORS,
                         ids=[f"{t!r} is rejected" for t, _ in BAD_FIELD_SELECTORS])
def test_bad_field_selectors_raise_upstreams_message(text, message):
    with pytest.raises(ValueError) as err:
        parse_field_selector(text)
    assert str(err.value) == message


def test_field_selector_parsing_is_deterministic():
    assert str(parse_field_selector("x=a,a=x")) == str(parse_field_selector("a=x,x=a")) == "a=x,x=a"


FIELD_MATCHES = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
    ("notin=in", {"notin": "in"}, True),
    ("x=y", {"x": "z"}, False),
    ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
    ("x==y", {"x": "y"}, True),
    ("x=", {}, True),  # a missing field reads as ""
    ("x!=", {}, False),
    ("x=a\\,b", {"x": "a,b"}, True),
    ("spec.nodeName=", {"spec.nodeName": ""}, True),
]


@pytest.mark.parametrize(("text", "fields", "expected"), FIELD_MATCHES,
                         ids=[f"{t!r} {'matches' if e else 'does not match'} {f}"
                              for t, f, e in FIELD_MATCHES])
def test_field_selector_matches(text, fields, expected):
    assert parse_field_selector(text).matches(fields) is expected


def test_field_selector_requirements_normalize_double_equals():
    sel = parse_field_selector("b==2,a!=1,c=3")
    assert sel.requirements == (("a", "!=", "1"), ("b", "=", "2"), ("c", "=", "3"))
    assert sel.requires_exact_match("b") == "2" and sel.requires_exact_match("a") is None


def test_a_term_with_neither_field_nor_value_is_dropped():
    assert parse_field_selector("=").empty
    assert parse_field_selector("a=b,=").requirements == (("a", "=", "b"),)
    assert not parse_field_selector("a=b").empty and parse_field_selector(",,").empty


SPLIT_TERMS = [
    ("a", ["a"]),
    ("a=avalue", ["a=avalue"]),
    ("a=avalue,b=bvalue", ["a=avalue", "b=bvalue"]),
    ("a=avalue,b==bvalue,c!=cvalue", ["a=avalue", "b==bvalue", "c!=cvalue"]),
    ("", []),
    ("a=a,", ["a=a", ""]),
    (",a=a", ["", "a=a"]),
    ("k=\\,,k2=v2", ["k=\\,", "k2=v2"]),  # escaped comma in value
    ("k=\\\\,k2=v2", ["k=\\\\", "k2=v2"]),  # escaped backslash, unescaped comma
    ("k=\\\\\\,,k2=v2", ["k=\\\\\\,", "k2=v2"]),  # escaped backslash and comma
    ("k=\\a\\b\\", ["k=\\a\\b\\"]),  # non-escape sequences
    ("k=\\", ["k=\\"]),  # orphan backslash
    ("함=수,목=록", ["함=수", "목=록"]),  # multi-byte
]


@pytest.mark.parametrize(("text", "terms"), SPLIT_TERMS,
                         ids=[f"{t!r} splits into {len(r)} terms" for t, r in SPLIT_TERMS])
def test_split_terms(text, terms):
    assert _split_terms(text) == terms


SPLIT_TERM = [
    ("a=value", ("a", "=", "value")),
    ("b==value", ("b", "==", "value")),
    ("c!=value", ("c", "!=", "value")),
    ("", None),
    ("a", None),
    ("k=\\,", ("k", "=", "\\,")),
    ("k=\\=", ("k", "=", "\\=")),
    ("k=\\\\\\a\\b\\=\\,\\", ("k", "=", "\\\\\\a\\b\\=\\,\\")),
    ("함=수", ("함", "=", "수")),
]


@pytest.mark.parametrize(("term", "expected"), SPLIT_TERM,
                         ids=[f"{t!r} splits as {e}" for t, e in SPLIT_TERM])
def test_split_term(term, expected):
    assert _split_term(term) == expected


ESCAPES = [("", ""), ("a", "a"), ("=", "\\="), (",", "\\,"), ("\\", "\\\\"),
           ("\\=\\,\\", "\\\\\\=\\\\\\,\\\\")]


@pytest.mark.parametrize(("raw", "escaped"), ESCAPES,
                         ids=[f"{r!r} escapes to {e!r}" for r, e in ESCAPES])
def test_escape_and_unescape_round_trip(raw, escaped):
    assert escape_field_value(raw) == escaped
    assert unescape_field_value(escaped) == raw


INVALID_UNESCAPES = [
    ("\\", "invalid field selector: invalid escape sequence: \\"),
    ("\\\\\\", "invalid field selector: invalid escape sequence: \\"),
    ("\\\\\\\\\\", "invalid field selector: invalid escape sequence: \\"),
    ("\\a", "invalid field selector: invalid escape sequence: \\a"),
    ("\\\\\\a", "invalid field selector: invalid escape sequence: \\a"),
    ("=", "invalid field selector: unescaped character in value: 61"),
    (",", "invalid field selector: unescaped character in value: 44"),
    ("\\\\=", "invalid field selector: unescaped character in value: 61"),
    ("\\\\,", "invalid field selector: unescaped character in value: 44"),
]


@pytest.mark.parametrize(("text", "message"), INVALID_UNESCAPES,
                         ids=[f"{t!r} fails to unescape" for t, _ in INVALID_UNESCAPES])
def test_invalid_unescapes(text, message):
    with pytest.raises(ValueError) as err:
        unescape_field_value(text)
    assert str(err.value) == message


# --- selectable fields -----------------------------------------------------------------------

def test_pod_fields_are_the_registry_set():
    pod = {"metadata": {"name": "web-1", "namespace": "prod"},
           "spec": {"nodeName": "n1", "restartPolicy": "Always",
                    "schedulerName": "default-scheduler", "serviceAccountName": "sa",
                    "hostNetwork": True},
           "status": {"phase": "Running", "podIPs": [{"ip": "10.0.0.2"}],
                      "nominatedNodeName": "n2"}}
    assert pod_fields(pod) == {
        "metadata.name": "web-1", "metadata.namespace": "prod", "spec.nodeName": "n1",
        "spec.restartPolicy": "Always", "spec.schedulerName": "default-scheduler",
        "spec.serviceAccountName": "sa", "spec.hostNetwork": "true", "status.phase": "Running",
        "status.podIP": "10.0.0.2", "status.nominatedNodeName": "n2"}


def test_pod_fields_of_a_bare_pod_are_empty_strings_and_false():
    fields = pod_fields({"metadata": {"name": "p"}})
    assert fields["spec.nodeName"] == "" and fields["spec.hostNetwork"] == "false"
    assert fields["status.podIP"] == "" and len(fields) == 10


def test_status_pod_ip_wins_over_pod_ips():
    assert pod_fields({"status": {"podIP": "1.1.1.1",
                                  "podIPs": [{"ip": "2.2.2.2"}]}})["status.podIP"] == "1.1.1.1"


def test_node_and_generic_fields():
    assert node_fields({"metadata": {"name": "n1"}, "spec": {"unschedulable": True}}) == {
        "metadata.name": "n1", "spec.unschedulable": "true"}
    assert node_fields({"metadata": {"name": "n1"}})["spec.unschedulable"] == "false"
    assert generic_fields({"metadata": {"name": "d", "namespace": "ns"}}) == {
        "metadata.name": "d", "metadata.namespace": "ns"}
    assert generic_fields({"metadata": {"name": "c"}}, namespaced=False) == {"metadata.name": "c"}


UNSUPPORTED = [
    ("pods", "foo", "field label not supported: foo"),
    ("Pod", "spec.containers", "field label not supported: spec.containers"),
    ("nodes", "spec.taints", "field label not supported: spec.taints"),
    ("svc", "spec.ports", "field label not supported: spec.ports"),
    ("jobs", "status.active", 'field label "status.active" not supported for batchv1.Job'),
    ("deployments", "spec.replicas",
     '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'),
    ("ConfigMap", "data",
     '"data" is not a known field selector: only "metadata.name", "metadata.namespace"'),
]


@pytest.mark.parametrize(("kind", "field_label", "message"), UNSUPPORTED,
                         ids=[f"{k} rejects {f}" for k, f, _ in UNSUPPORTED])
def test_unsupported_field_error(kind, field_label, message):
    assert unsupported_field_error(kind, field_label) == message


def test_supported_field_labels():
    assert "status.phase" in supported_field_labels("pods")
    assert supported_field_labels("nodes") == {"metadata.name", "spec.unschedulable"}
    assert supported_field_labels("deployments") == {"metadata.name", "metadata.namespace"}


def test_converting_a_pod_field_selector_renames_spec_host():
    sel = convert_field_selector("pods", parse_field_selector("spec.host=n1,status.phase!=Failed"))
    assert sel == FieldSelector((("spec.nodeName", "=", "n1"), ("status.phase", "!=", "Failed")))


def test_converting_rejects_the_first_unsupported_field():
    with pytest.raises(ValueError) as err:
        convert_field_selector("deployments", parse_field_selector("metadata.name=a,spec.x=1"))
    assert str(err.value) == ('"spec.x" is not a known field selector: only "metadata.name", '
                              '"metadata.namespace"')


def test_a_pod_field_selector_end_to_end():
    pods = [{"metadata": {"name": "a", "namespace": "d"}, "spec": {"nodeName": "n1"},
             "status": {"phase": "Running"}},
            {"metadata": {"name": "b", "namespace": "d"}, "spec": {},
             "status": {"phase": "Pending"}}]
    sel = convert_field_selector("pods", parse_field_selector("spec.nodeName=,status.phase=Pending"))
    assert [p["metadata"]["name"] for p in pods if sel.matches(pod_fields(p))] == ["b"]
