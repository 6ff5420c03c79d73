"""kubectl wait (pkg/cmd/wait) on the simulated clock. The condition tables mirror upstream's
pkg/cmd/wait/wait_test.go (TestConditionFuncFor, TestWaitForDifferentJSONPathExpression, the
observedGeneration cases of TestWaitForCondition); the CLI cases' texts are what kubectl v1.36
prints against a v1.35 cluster."""

from __future__ import annotations

import pytest

from kubesim.errors import KubesimError, RawError
from kubesim.kubectl.cmd import wait as W
from kubesim.testing.cli import snapshot

# -- conditionFuncsFor (TestConditionFuncFor) -------------------------------------------------


@pytest.mark.parametrize("conditions, error", [
    (["jsonpath="], "jsonpath expression cannot be empty"),
    (["jsonpath={.metadata.name}"], None),
    (["jsonpath=abc"], None),
    (["jsonpath={.metadata.name}=foo-b6699dcfb-rnv7t"], None),
    (["jsonpath=.metadata.name=foo-b6699dcfb-rnv7t"], None),
    (['jsonpath={.status.containerStatuses[?(@.name=="foo")].ready}=True'], None),
    (['jsonpath=status.conditions[?(@.type=="Available")].status=True'], None),
    (['jsonpath={.status.containerStatuses[?(@.name=="foo")].ready}'], None),
    (['jsonpath=.status.containerStatuses[?(@.name=="foo")].ready'], None),
    (["jsonpath={.metadata.name}='test=wrong'"],
     "jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or "
     "--for=jsonpath='{.status.readyReplicas}'"),
    (["jsonpath={.metadata.name}="],
     "jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3"),
    (['jsonpath={.status.conditions[?(@.type=="Failed"||@.type=="Complete")].status}=True'],
     "unrecognized character in action: U+007C '|'"),
    (["jsonpath={=True"], "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or "
                          "'{.name1.name2}'"),
    (["delete"], None),
    (["condition=hello"], None),
    (["condition=hello=world"], None),
    (["cond=invalid"], 'unrecognized condition: "cond=invalid"'),
    (["condition=Ready", "condition=Available"], None),
    (["condition=Ready", "jsonpath={.status.phase}=Running"], None),
    (["jsonpath={.status.phase}=Running", "jsonpath={.metadata.name}=foo"], None),
    ([], "unrecognized condition: []"),
    (["CREATE", "Delete"], None),
    (["CONDITION=Ready"], 'unrecognized condition: "CONDITION=Ready"'),
], ids=lambda v: repr(v) if isinstance(v, list) else "")
def test_condition_funcs_for(conditions, error):
    if error is None:
        assert len(W.parse_conditions(conditions)) == len(conditions)
    else:
        with pytest.raises(KubesimError) as e:
            W.parse_conditions(conditions)
        assert str(e.value) == f"error: {error}"


# -- JSONPathWait.checkCondition (TestWaitForDifferentJSONPathExpression) ---------------------

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "foo-b6699dcfb-rnv7t", "namespace": "default"},
       "spec": {"nodeName": "knode0", "containers": [{"name": "nginx", "ports": [{"containerPort": 80}]}]},
       "status": {"phase": "Running",
                  "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}],
                  "containerStatuses": [{"name": "nginx", "ready": True}]}}


@pytest.mark.parametrize("expression, value, met", [
    ("{.foo.bar}", "baz", False),
    ("{.status.containerStatuses[0].ready}", "true", True),
    ("{.status.containerStatuses[0].ready}", "false", False),
    ("{.spec.containers[0].ports[0].containerPort}", "80", True),
    ("{.spec.containers[0].ports[0].containerPort}", "81", False),
    ("{.spec.nodeName}", "knode0", True),
    ("{.spec.nodeName}", "", True),
    ("{.spec}", "", True),
    ("{.spec.nodeName}", "kmaster", False),
    ("{.status.conditions[*]}", "foo", "given jsonpath expression matches more than one value"),
    ("{.status.conditions[*]}", "", "given jsonpath expression matches more than one value"),
    ("{range .status.conditions[*]}[{.status}] {end}", "foo", "given jsonpath expression matches more than one list"),
    ("{range .status.conditions[*]}[{.status}] {end}", "", "given jsonpath expression matches more than one list"),
    ("{.status.conditions}", "True", "jsonpath leads to a nested object or list which is not supported"),
    ("{.spec}", "foo", "jsonpath leads to a nested object or list which is not supported"),
], ids=["JSONPath entry not exist", "compare boolean JSONPath entry", "compare boolean JSONPath entry wrong value",
        "compare integer JSONPath entry", "compare integer JSONPath entry wrong value", "compare string JSONPath entry",
        "matches literal value of JSONPath entry without value condition",
        "matches complex types map[string]interface{} without value condition",
        "compare string JSONPath entry wrong value", "matches more than one value",
        "matches more than one value without value condition", "matches more than one list",
        "matches more than one list without value condition", "unsupported type []interface{}",
        "unsupported type map[string]interface{}"])
def test_jsonpath_conditions(expression, value, met):
    from kubesim.printers import jsonpath

    cond = W.JSONPathCondition(jsonpath.parse(expression), value)  # as the upstream test builds JSONPathWait
    if isinstance(met, bool):
        assert cond.check(POD) is met
    else:
        with pytest.raises(RawError) as e:
            cond.check(POD)
        assert str(e.value) == f"error: {met}"


# -- ConditionalWait.checkCondition -----------------------------------------------------------

def deployment(generation, observed=None, condition_observed=None, status="True"):
    cond = {"type": "Available", "status": status}
    if condition_observed is not None:
        cond["observedGeneration"] = condition_observed
    st = {"conditions": [cond]}
    if observed is not None:
        st["observedGeneration"] = observed
    return {"metadata": {"name": "d", "generation": generation}, "status": st}


@pytest.mark.parametrize("condition, obj, met", [
    ("condition=Available", deployment(1, observed=1), True),
    ("condition=available=TRUE", deployment(1, observed=1), True),
    ("condition=Available=false", deployment(1, observed=1), False),
    ("condition=Available", deployment(2, condition_observed=1, observed=2), False),
    ("condition=Available", deployment(2, condition_observed=2, observed=1), True),
    ("condition=Available", deployment(2, observed=1), False),
    ("condition=Available", deployment(2), True),
    ("condition=Progressing", deployment(1, observed=1), False),
], ids=["the condition's status is compared with true by default",
        "names and values are compared case-insensitively",
        "a value after the name is compared instead",
        "times out due to stale .status.conditions[0].observedGeneration",
        "the condition's own observedGeneration wins over the status's",
        "times out due to stale .status.observedGeneration",
        "without any observedGeneration the generation is not checked",
        "a condition the object does not have is not met"])
def test_status_conditions(condition, obj, met):
    assert W.parse_conditions([condition])[0].check(obj) is met


# -- the command ------------------------------------------------------------------------------

WEB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      initContainers:
      - name: warm-up
        image: busybox
        command: ["sh", "-c", "sleep 5"]
      containers:
      - name: nginx
        image: nginx
"""
SLOW = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: slow\n  labels: {app: slow}\nspec:\n  nodeName: node01\n"
        "  containers:\n  - name: c\n    image: busybox\n    command: [\"sleep\", \"infinity\"]\n")


@pytest.fixture
def web(kubesim):
    kubesim.apply(WEB)
    kubesim.pods = sorted(kubesim.ok("get pods -l app=web -o name").split())
    return kubesim


def test_wait_for_ready_pods_by_label_waits_for_their_init_containers(web):
    r = web("wait --for=condition=Ready pod -l app=web")
    assert (r.code, r.err) == (0, "")
    assert r.out == "".join(f"{p} condition met\n" for p in web.pods)
    assert web.clock() == "2026-11-22T10:00:08Z"  # busybox pulled, 5s of init, nginx pulled (serially per node)


@pytest.mark.parametrize("command, out", [
    ("wait --for=condition=Available deployment/web", "deployment.apps/web condition met\n"),
    ("wait --for=jsonpath={.status.readyReplicas}=2 deploy/web", "deployment.apps/web condition met\n"),
    ("wait --for=jsonpath='{.status.phase}'=Running pods --all", None),
    ("wait --for=condition=Ready pod -l app=web -o name", None),
    ("wait --for=condition=Ready --for=jsonpath={.status.phase}=Running pod -l app=web", None),
], ids=["a Deployment's Available condition", "a JSONPath value", "--all, a quoted JSONPath", "-o name",
        "several conditions, each printed when met, in order"])
def test_wait_for_conditions(web, command, out):
    r = web(command)
    assert (r.code, r.err) == (0, "")
    if out is None:
        per_pod = 2 if command.count("--for") == 2 else 1
        suffix = "" if "-o name" in command else " condition met"
        out = "".join(f"{p}{suffix}\n" * per_pod for p in web.pods)
    assert r.out == out


def test_wait_for_delete_follows_the_grace_period(kubesim):
    kubesim.apply(SLOW)
    kubesim.ok("advance 1s")  # busybox pulled: the container runs
    kubesim.ok("delete pod slow --wait=false")
    r = kubesim("wait --for=delete pod/slow --timeout=10s")
    assert (r.code, r.err) == (1, "error: timed out waiting for the condition on pods/slow\n")
    assert kubesim.clock() == "2026-11-22T10:00:11Z"
    assert kubesim.ok("wait --for=delete pod/slow") == "pod/slow condition met\n"
    assert kubesim.clock() == "2026-11-22T10:00:31Z"  # the pod's grace period, 30s


def test_wait_for_create_polls_until_found(kubesim):
    r = kubesim("wait --for=create pod/late --timeout=3s")
    assert (r.code, r.out, r.err) == (1, "", "error: timed out waiting for the condition\n")
    assert kubesim.clock() == "2026-11-22T10:00:03Z"
    kubesim.apply(SLOW)
    assert kubesim.ok("wait --for=create pod/slow") == "pod/slow condition met\n"


@pytest.mark.parametrize("command, code, out, err, ends", [
    ("wait --for=condition=Ready=false pod/slow --timeout=2s", 1, "",
     "error: timed out waiting for the condition on pods/slow\n", "10:00:03"),
    ("wait --for=condition=Ready=false pod/slow --timeout=0", 1, "", "error: condition not met for pods/slow\n",
     "10:00:01"),
    ("wait --for=condition=Ready pod/slow --timeout=0", 0, "pod/slow condition met\n", "", "10:00:01"),
    ("wait --for=delete pod/slow --timeout=0", 1, "", "error: condition not met for pods/slow\n", "10:00:01"),
    ("wait --for=delete pod/nothere", 0, "", "", "10:00:01"),
    ("wait --for=delete pods -l app=none", 0, "", "", "10:00:01"),
    ("wait --for=condition=Ready pod/nothere --timeout=1s", 1, "",
     'Error from server (NotFound): pods "nothere" not found\n', "10:00:01"),
    ("wait --for=condition=Ready pod/nothere pod/slow", 1, "pod/slow condition met\n",
     'Error from server (NotFound): pods "nothere" not found\n', "10:00:01"),
    ("wait --for=condition=Ready pods -l app=none", 1, "", "error: no matching resources found\n", "10:00:01"),
    ("wait --for=condition=Ready=false pod/slow --timeout=-1s", 1, "",
     "error: pods/slow does not meet the condition yet, and nothing in the cluster will change that (kubectl would "
     "wait up to 168h0m0s; kubesim stops)\n", "10:00:30"),  # node01 listing busybox: the last wake-up
], ids=["when nothing will change the answer the clock goes to the deadline, and the wait times out",
        "--timeout=0 looks once", "--timeout=0 looks once and may find it met",
        "--timeout=0 with --for=delete looks once", "a missing object is deleted already",
        "--for=delete with a selector matching nothing succeeds",
        "any other condition on a missing object is NotFound at once",
        "each object in turn; errors come last",
        "no match for a selector",
        "a negative timeout (a week) stops where nothing more can change"])
def test_wait_outcomes(kubesim, command, code, out, err, ends):
    kubesim.apply(SLOW)
    kubesim.ok("advance 1s")  # busybox pulled: the container runs
    r = kubesim(command)
    assert (r.code, r.out, r.err) == (code, out, err)
    assert kubesim.clock() == f"2026-11-22T{ends}Z"


def test_yaml_output_prints_each_object_met(kubesim):
    kubesim.apply(SLOW + "---\n" + SLOW.replace("name: slow", "name: slow2"))
    out = kubesim.ok("wait --for=condition=Ready pod slow slow2 -o yaml")
    docs = out.split("---\n")
    assert len(docs) == 2 and "name: slow\n" in docs[0] and "name: slow2\n" in docs[1]


@pytest.mark.parametrize("args, err", [
    ("pod/slow", "error: unrecognized condition: []\n"),
    ("--for=foo pod/slow", 'error: unrecognized condition: "foo"\n'),
    ("--for=condition pod/slow", 'error: unrecognized condition: "condition"\n'),
    ("--for=jsonpath= pod/slow", "error: jsonpath expression cannot be empty\n"),
    ("--for=jsonpath={.status.phase}= pod/slow",
     "error: jsonpath wait has to have a value after equal sign, like --for=jsonpath='{.status.readyReplicas}'=3\n"),
    ("--for=jsonpath={.status.phase}=a=b pod/slow",
     "error: jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or "
     "--for=jsonpath='{.status.readyReplicas}'\n"),
    ("--for=jsonpath={.status.phase pod/slow",
     "error: unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or "
     "'{.name1.name2}'\n"),
    ("--for=jsonpath={.status}=x pod/slow --timeout=1s",
     "error: jsonpath leads to a nested object or list which is not supported\n"),
    ("--for=condition=Ready pod/slow --timeout=abc",
     'error: invalid argument "abc" for "--timeout" flag: time: invalid duration "abc"\n'
     "See 'kubesim wait --help' for usage.\n"),
    ("--for=condition=Ready pod/slow --timeout=1",
     'error: invalid argument "1" for "--timeout" flag: time: missing unit in duration "1"\n'
     "See 'kubesim wait --help' for usage.\n"),
    ("--for=condition=Ready pods", "error: resource(s) were provided, but no name was specified\n"),
    ("--for=condition=Ready",
     "error: You must provide one or more resources by argument or filename.\nExample resource specifications "
     "include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'\n"),
    ("--for=condition=Ready pod/slow -o wide",
     'error: unable to match a printer suitable for the output format "wide", allowed formats are: go-template,'
     "go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,template,templatefile,yaml\n"),
    ("--for=condition=Ready pod/slow -f /nonexistent.yaml", 'error: the path "/nonexistent.yaml" does not exist\n'),
])
def test_bad_input_fails_as_kubectl_does_and_changes_nothing(kubesim, args, err):
    kubesim.apply(SLOW)
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"wait {args}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(kubesim.state_dir) == before
