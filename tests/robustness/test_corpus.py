"""A bad-input corpus run against the CLI (issue 18, "make the probes part of the project").

Every case runs on its own copy of one built state and must end with exit code 0 or 1, never a
traceback or kubesim's "internal error", within a time bound; a refusal (exit 1) must read as
kubectl's or the API server's errors read and leave the state exactly as it was (database rows
compared) and write no file outside it. Where a case states its expectation, it is checked too:
``refused`` (exit 1) or ``accepted`` (exit 0, what upstream accepts).

The cases: hand-written manifests and command lines (malformed YAML/JSON, bombs, huge and binary
files, non-UTF-8, wrong types, unknown kinds, invalid names, out-of-range numbers and
quantities, malformed selectors, jsonpath and custom-columns), and generated ones: every leaf of
every sample manifest under tests/testdata/kinds/ replaced by values of the wrong type and by
out-of-range ones.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import signal
from pathlib import Path

import pytest

from kubesim.testing.cli import Harness, snapshot

KINDS = Path(__file__).resolve().parent.parent / "testdata" / "kinds"
SECONDS = 20  # per case; generous for a loaded 2-core machine, fatal for a hang
ERROR_TEXT = re.compile(r'^(error: |Error from server \(|The \S+ "[^"]*" is invalid|The request is invalid|'
                        r"unable to recognize|Warning: )", re.M)


class Hang(BaseException):
    pass


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """The default cluster plus a Deployment and a pod, built once."""
    d = tmp_path_factory.mktemp("corpus") / "state"
    h = Harness(d)
    h.ok("create deployment web --image=nginx --replicas=2")
    h.ok("run solo --image=nginx --labels=app=solo")
    h.ok("create configmap cfg --from-literal=a=b")
    return d


def run_case(pristine, tmp_path, command, stdin="", files=None, expect=None):
    state = tmp_path / "state"
    shutil.copytree(pristine, state)
    h = Harness(state)
    for name, content in (files or {}).items():
        p = tmp_path / name
        p.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    before = snapshot(state)
    outside = sorted(os.listdir(tmp_path))

    def alarm(signum, frame):
        raise Hang()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(SECONDS)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = h(command, stdin=stdin)
    except Hang:
        pytest.fail(f"{command!r} ran longer than {SECONDS} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        os.chdir(cwd)
    assert r.code in (0, 1), (r.code, r.err)
    assert "Traceback" not in r.err and "internal error" not in r.err, r.err
    assert sorted(os.listdir(tmp_path)) == outside, "a file was written outside the state"
    if r.code == 1:
        assert ERROR_TEXT.search(r.err), f"not an error kubectl would print: {r.err!r}"
        assert snapshot(state) == before, "a refused command changed the state"
    if expect == "refused":
        assert r.code == 1, f"accepted: {r.out!r}"
    elif expect == "accepted":
        assert r.code == 0, r.err
    return r


# -- hand-written cases ---------------------------------------------------------------------------

POD = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n")
BOMB = "\n".join(['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'] +
                 [f"{chr(97 + i)}: &{chr(97 + i)} [" + ",".join([f"*{chr(96 + i)}"] * 9) + "]"
                  for i in range(1, 9)]) + "\n"


def with_requests(cpu: str) -> str:
    return POD + f"    resources:\n      requests:\n        cpu: {json.dumps(cpu)}\n"


FILES = [
    ("empty file", "", "refused"),  # kubectl: "error: no objects passed to apply"
    ("only comments", "# nothing\n", "refused"),
    ("only separators", "---\n---\n", "refused"),
    ("malformed YAML", "apiVersion: v1\nkind: Pod\n  bad: indent\n", "refused"),
    ("a tab indent", "apiVersion: v1\nkind: Pod\nmetadata:\n\tname: x\n", "refused"),
    ("truncated JSON", '{"apiVersion": "v1", "kind": "Pod"', "refused"),
    ("JSON array", "[1, 2, 3]", "refused"),
    ("a scalar document", "hello\n", "refused"),
    ("a list document", "- a\n- b\n", "refused"),
    ("alias bomb", BOMB, "refused"),
    ("self-referencing anchor", "a: &a [*a]\n", "refused"),
    ("binary junk", bytes(range(256)) * 4, "refused"),
    ("NUL bytes", b"apiVersion: v1\x00\nkind: Pod\n", "refused"),
    ("Latin-1 bytes", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: caf\u00e9\n".encode("latin-1"),
     "refused"),
    ("UTF-16 without a BOM", POD.encode("utf-16-le"), "refused"),
    ("UTF-16 with a BOM", b"\xff\xfe" + POD.encode("utf-16-le"), "accepted"),
    ("UTF-8 BOM", b"\xef\xbb\xbf" + POD.encode(), "accepted"),
    ("a list key", "? [a]\n: b\n", "refused"),
    ("a map key", "? {a: b}\n: c\n", "refused"),
    ("deep YAML", "a: " + "[" * 2000 + "]" * 2000 + "\n", "refused"),
    ("deep JSON", '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"},"data":' + "[" * 5000 + "]" * 5000 + "}",
     "refused"),
    ("too deep JSON", '{"a":' + "[" * 10001 + "]" * 10001 + "}", "refused"),
    ("duplicate keys", POD.replace("  name: p\n", "  name: p\n  name: q\n"), "accepted"),
    ("no kind", "apiVersion: v1\nmetadata:\n  name: x\n", "refused"),
    ("no apiVersion", "kind: Pod\nmetadata:\n  name: x\n", "refused"),
    ("unknown kind", "apiVersion: v1\nkind: Widget\nmetadata:\n  name: x\n", "refused"),
    ("unknown group", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: x\n", "refused"),
    ("kind is a number", "apiVersion: v1\nkind: 5\nmetadata:\n  name: x\n", "refused"),
    ("apiVersion is a list", "apiVersion: [v1]\nkind: Pod\nmetadata:\n  name: x\n", "refused"),
    ("metadata is a string", "apiVersion: v1\nkind: Pod\nmetadata: x\n", "refused"),
    ("name is a number", POD.replace("name: p", "name: 5"), "refused"),
    ("name y is a bool", POD.replace("name: p", "name: y"), "refused"),
    ("labels is a list", POD.replace("  name: p\n", "  name: p\n  labels: [a]\n"), "refused"),
    ("label value too long", POD.replace("  name: p\n", "  name: p\n  labels:\n    a: " + "x" * 64 + "\n"), "refused"),
    ("label key invalid", POD.replace("  name: p\n", "  name: p\n  labels:\n    'a b': c\n"), "refused"),
    ("annotations too large", POD.replace("  name: p\n", "  name: p\n  annotations:\n    a: " + "x" * 262145 + "\n"),
     "refused"),
    ("uppercase name", POD.replace("name: p", "name: P"), "refused"),
    ("name with a slash", POD.replace("name: p", "name: a/b"), "refused"),
    ("name too long", POD.replace("name: p", "name: " + "a" * 254), "refused"),
    ("empty name", POD.replace("name: p", "name: ''"), "refused"),
    ("name ..", POD.replace("name: p", "name: '..'"), "refused"),
    ("invalid namespace", POD.replace("  name: p\n", "  name: p\n  namespace: Bad_NS\n"), "refused"),
    ("missing namespace", POD.replace("  name: p\n", "  name: p\n  namespace: nowhere\n"), "refused"),
    ("no containers", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: []\n", "refused"),
    ("containers null", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - null\n", "refused"),
    ("container without image", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n",
     "refused"),
    ("duplicate container names", POD + "  - name: c\n    image: nginx\n", "refused"),
    ("unknown field", POD.replace("spec:\n", "spec:\n  colour: blue\n"), "refused"),
    ("unknown nested field", POD + "    colour: blue\n", "refused"),
    ("a huge string", POD.replace("image: nginx", "image: " + "n" * 1_000_000), None),
    ("port 0", POD + "    ports:\n    - containerPort: 0\n", "refused"),
    ("port 65536", POD + "    ports:\n    - containerPort: 65536\n", "refused"),
    ("port past int32", POD + "    ports:\n    - containerPort: 2147483648\n", "refused"),
    ("port past int64", POD + "    ports:\n    - containerPort: 9223372036854775808\n", "refused"),
    ("port a float", POD + "    ports:\n    - containerPort: 80.5\n", "refused"),
    ("port a string", POD + "    ports:\n    - containerPort: http\n", "refused"),
    ("grace period negative", POD.replace("spec:\n", "spec:\n  terminationGracePeriodSeconds: -5\n"), "accepted"),
    ("grace period past int64", POD.replace("spec:\n", "spec:\n  terminationGracePeriodSeconds: 1e30\n"), "refused"),
    ("restartPolicy bogus", POD.replace("spec:\n", "spec:\n  restartPolicy: Sometimes\n"), "refused"),
    ("nodeName invalid", POD.replace("spec:\n", "spec:\n  nodeName: Bad_Node\n"), "refused"),
    ("command not a list", POD + "    command: sleep 10\n", "refused"),
    ("command with NUL", POD + '    command: ["sleep", "a\\u0000b"]\n', "accepted"),
    ("shell arithmetic bomb", POD.replace("image: nginx", "image: busybox") +
     '    command: ["sh", "-c", "echo $((9**9**9**9))"]\n', "accepted"),
    ("shell loop", POD.replace("image: nginx", "image: busybox") +
     '    command: ["sh", "-c", "while true; do echo x; done"]\n', "accepted"),
    ("shell fork bomb", POD.replace("image: nginx", "image: busybox") +
     '    command: ["sh", "-c", ":(){ :|:& };:"]\n', "accepted"),
    ("a huge script", POD.replace("image: nginx", "image: busybox") +
     '    command: ["sh", "-c", ' + json.dumps("echo x; " * 20000) + "]\n", "accepted"),
    ("replicas past int32", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 2147483648\n"
     "  selector:\n    matchLabels: {a: b}\n  template:\n    metadata:\n      labels: {a: b}\n    spec:\n"
     "      containers:\n      - name: c\n        image: nginx\n", "refused"),
    ("replicas negative", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: -1\n"
     "  selector:\n    matchLabels: {a: b}\n  template:\n    metadata:\n      labels: {a: b}\n    spec:\n"
     "      containers:\n      - name: c\n        image: nginx\n", "refused"),
    ("selector not matching", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n"
     "  selector:\n    matchLabels: {a: b}\n  template:\n    metadata:\n      labels: {a: c}\n    spec:\n"
     "      containers:\n      - name: c\n        image: nginx\n", "refused"),
    ("selector operator bogus", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n"
     "  selector:\n    matchExpressions:\n    - {key: a, operator: Near, values: [b]}\n  template:\n"
     "    metadata:\n      labels: {a: b}\n    spec:\n      containers:\n      - name: c\n        image: nginx\n",
     "refused"),
    ("List of bad items", "apiVersion: v1\nkind: List\nitems:\n- 5\n- apiVersion: v1\n  kind: Widget\n", "refused"),
    ("List items not a list", "apiVersion: v1\nkind: List\nitems: 5\n", "refused"),
] + [(f"quantity {q!r}", with_requests(q), "refused") for q in (
    "1.5.5", "lots", "", "-1", "1Zi", "1 Gi", "\u221e", "1e", "0x10", "1..", "1Ki1", "NaN", "inf")] + [
    # the v1.35 apiserver takes these (as 0, 10e999, 1e-3, 0, 1. ...): ParseQuantity's edges
    (f"quantity {q!r} accepted", with_requests(q), "accepted") for q in (
        "0", "1m", "1.5", "1e3", "500m", "1Ki", "1E", "1e1000", "0e2147483648", "1e-1000", ".", "+", "9" * 100, "1.")]


@pytest.mark.parametrize("what, content, expect", FILES, ids=[c[0] for c in FILES])
@pytest.mark.parametrize("verb", ["apply", "create"])
def test_a_manifest_file(pristine, tmp_path, verb, what, content, expect):
    run_case(pristine, tmp_path, f"{verb} -f bad.yaml", files={"bad.yaml": content}, expect=expect)


COMMANDS = [
    "get pods -l 'a in (b'", "get pods -l '!'", "get pods -l 'a=b=c'", "get pods -l 'a==='", "get pods -l ',,'",
    "get pods --field-selector 'status.phase=='", "get pods --field-selector spec.bogus=x",
    "get pods --field-selector 'a'", "get pods -o jsonpath='{.items[}'", "get pods -o 'jsonpath={.items[?(@.x=='",
    "get pods -o jsonpath='{range .items[*]}'", "get pods -o custom-columns=NAME", "get pods -o custom-columns=",
    "get pods -o custom-columns=A:.a,B", "get pods -o bogus", "get pods --sort-by='{.metadata.name'",
    "get pods --sort-by=.status.bogus", "get pods -o go-template='{{.x'", "get widgets", "get pods/a/b",
    "get pod ''", "get pods -n Bad_NS", "get pods -n nowhere", "get pod " + "a" * 300, "get pods --chunk-size=-5",
    "describe widgets", "describe pod nope", "delete pod nope", "delete pods --all --grace-period=x",
    "delete pod solo --timeout=1x", "delete pod solo --wait=maybe", "delete pod solo --cascade=sideways",
    "scale deployment web --replicas=2147483648", "scale deployment web --replicas=-1",
    "scale deployment web --replicas=abc", "scale deployment nope --replicas=1",
    "label pod solo 'a b=c'", "label pod solo a=" + "x" * 64, "label pod solo app=x", "label pod solo a-",
    "annotate pod solo 'a b=c'", "taint nodes node01 a=b:Sometimes", "taint nodes node01 ''",
    "taint nodes nope a=b:NoSchedule", "cordon nope", "drain nope", "drain node01 --timeout=-1x",
    "rollout status deployment/nope", "rollout undo deployment/web --to-revision=99",
    "rollout status pod/solo", "rollout restart pod/solo", "set image deployment/web nope=nginx",
    "set image deployment/web nginx=", "expose pod solo --port=abc", "create deployment Bad --image=nginx",
    "create deployment d --image=nginx --replicas=-2", "create deployment d", "create configmap cfg",
    "create configmap x --from-literal=a", "create configmap x --from-file=/nonexistent",
    "create namespace Bad_NS", "create namespace " + "n" * 64, "run Bad --image=nginx", "run x",
    "run x --image=nginx --restart=Sometimes", "run x --image=nginx --port=99999",
    "patch pod solo -p '{bad'", "patch pod solo -p '[]' --type=json", "patch pod solo --type=json -p '[{\"op\":\"boom\"}]'",
    "patch pod solo -p '{\"spec\":{\"containers\":5}}'", "patch pod solo --type=bogus -p '{}'",
    "logs nope", "logs solo -c nope", "logs solo --tail=abc", "logs solo --since=1x",
    "wait --for=condition=Ready pod/solo --timeout=abc", "wait --for=bogus pod/solo", "wait pod/solo",
    "advance -5s", "advance 1x", "advance 2562048h", "advance ''",
    "explain-schedule nope", "explain-schedule -f /nonexistent.yaml", "cluster init --nodes -1",
    "cluster init --nodes 99999999", "cluster init --zones 'a b'", "cluster init --cpu abc",
    "cluster init --memory=-1Gi", "node stop nope", "node bogus node01",
    "get --raw /api/v1/bogus", "get --raw 'not a path'", "api-resources --api-group=nope -o bogus",
    "bogus-verb", "get", "--v=abc get pods", "get pods --v=-1", "get pods --request-timeout=abc",
    "apply -f /nonexistent.yaml", "apply -f /", "apply -f /dev/null", "apply", "apply -k /nonexistent",
    "replace -f /nonexistent.yaml", "replace --force -f /nonexistent.yaml", "edit widget x",
    # template and column files that cannot be read: kubectl's errors, before anything is sent
    "get pods -o jsonpath-file=/nonexistent", "get pods -o jsonpath-file=/", "get pods -o custom-columns-file=/",
    "get pods -o custom-columns-file=/nonexistent", "get pods -w -o jsonpath-file=/nonexistent",
    "create deployment d --image=nginx -o jsonpath-file=/nonexistent", "scale deployment web --replicas=1 -o bogus",
]


# what kubectl 1.36 and the v1.35 apiserver accept of the above (checked on the real cluster)
ACCEPTED = {"get pods --field-selector 'status.phase=='", "get pods -o jsonpath='{range .items[*]}'",
            "get pods -n Bad_NS", "get pods -n nowhere",
            "patch pod solo -p '[]' --type=json", "get pods --v=-1", "label pod solo a-"}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_line(pristine, tmp_path, command):
    run_case(pristine, tmp_path, command, expect="accepted" if command in ACCEPTED else "refused")


# -- generated cases ---------------------------------------------------------------------------

def _leaves(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, path + (i,))
    else:
        yield path, obj


def _set(obj, path, value):
    obj = copy.deepcopy(obj)
    cur = obj
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return obj


def _wrong(value):
    """Values of the wrong type, and out-of-range ones, for a leaf holding ``value``."""
    if isinstance(value, bool):
        return [("a string", "yes please"), ("a number", 2)]
    if isinstance(value, int):
        return [("a string", "many"), ("past int64", 2 ** 63), ("a list", [value])]
    if isinstance(value, str):
        return [("a number", 12345), ("a map", {"a": value}), ("a list", [value])]
    return [("a map", {"a": 1})]


def generated():
    import yaml

    cases = []
    for f in sorted(KINDS.glob("*.yaml")):
        for doc in yaml.safe_load_all(f.read_text()):
            if not isinstance(doc, dict) or doc.get("kind") in ("Event",):
                continue
            for path, value in _leaves(doc):
                if path[:1] in (("apiVersion",), ("kind",)) or path[:2] == ("metadata", "name"):
                    continue
                for what, bad in _wrong(value):
                    cases.append(pytest.param(json.dumps(_set(doc, path, bad)),
                                              id=f"{doc['kind']}.{'.'.join(map(str, path))} as {what}"))
    return cases


@pytest.mark.parametrize("manifest", generated())
def test_a_generated_manifest(pristine, tmp_path, manifest):
    # JSON in, so a value's type is exactly the one chosen; any of them may be refused or,
    # where the API server converts or ignores it, accepted
    run_case(pristine, tmp_path, "create -f bad.json", files={"bad.json": manifest})
