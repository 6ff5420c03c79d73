"""kubectl get -w / --watch-only (get.go watch) on the simulated clock: the table, then a row per
watch event, each aged at its event, through one tabwriter whose columns keep their widest width
(cli-runtime's RememberWidths); the header once; the watch ends at --request-timeout (silently,
as kubectl's does) or, saying so, when nothing more can change. The flag errors are get.go's
Complete/Validate and the builder's, as kubectl v1.36 prints them."""

from __future__ import annotations

import pytest

from kubesim.testing.cli import snapshot

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
        image: nginx:1.27
"""
SLOW = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: slow\nspec:\n  nodeName: node01\n  containers:\n"
        "  - name: c\n    image: busybox\n    command: [\"sleep\", \"infinity\"]\n")

ROLLING = """\
NAME                   READY   STATUS     RESTARTS   AGE
web-6f5c854749-25tvl   1/1     Running    0          8s
web-6f5c854749-qjt6v   1/1     Running    0          8s
web-b9c6dbc96-tgfwp    0/1     Init:0/1   0          0s
web-b9c6dbc96-tgfwp    0/1     Init:0/1   0          1s
web-b9c6dbc96-tgfwp    0/1     PodInitializing   0          6s
web-b9c6dbc96-tgfwp    1/1     Running           0          8s
web-6f5c854749-25tvl   1/1     Terminating       0          16s
web-6f5c854749-25tvl   0/1     Completed         0          16s
web-6f5c854749-25tvl   0/1     Completed         0          16s
web-b9c6dbc96-szv8r    0/1     Pending           0          0s
web-b9c6dbc96-szv8r    0/1     Pending           0          0s
web-b9c6dbc96-szv8r    0/1     Init:0/1          0          0s
web-b9c6dbc96-szv8r    0/1     Init:0/1          0          0s
web-b9c6dbc96-szv8r    0/1     PodInitializing   0          5s
web-b9c6dbc96-szv8r    1/1     Running           0          9s
web-6f5c854749-qjt6v   1/1     Terminating       0          25s
web-6f5c854749-qjt6v   0/1     Completed         0          25s
web-6f5c854749-qjt6v   0/1     Completed         0          25s
"""


@pytest.fixture
def rolling(kubesim):
    """A Deployment rolled out (its init container pulls busybox and takes 5s, then nginx:1.27 is
    pulled), then given a new image: each new pod pulls busybox, runs its init container, then
    waits in PodInitializing while nginx:1.28 is pulled."""
    kubesim.apply(WEB)
    kubesim.ok("rollout status deployment/web")
    kubesim.ok("set image deployment/web nginx=nginx:1.28")
    return kubesim


def test_get_pods_watch_across_a_rolling_update(rolling):
    r = rolling("get pods -w")
    # every write of a pod is a row: created (Pending), bound (Pending), its init container started,
    # then its image pulled (PodInitializing), started, ready; deleted
    # gracefully (Terminating), its final status, gone. STATUS widens at Terminating and stays so.
    assert (r.code, r.out) == (0, ROLLING)
    # the last thing due: the nodes listing nginx:1.28 at their image cache's refresh (the
    # Deployment controller's progress check, asked for while the rollout progressed, is dropped
    # once it completes: upstream's requeue would sync at 10:10:17 and change nothing)
    assert r.err == ("kubesim: the watch ends at 2026-11-22T10:00:30Z (simulated time), nothing in the cluster "
                     "will change any more (kubectl would keep watching until interrupted)\n")


def test_request_timeout_ends_the_watch_silently_as_kubectl_does(rolling):
    r = rolling("get pods --watch --request-timeout=4s")
    assert (r.code, r.err) == (0, "")
    assert r.out == "".join(ROLLING.splitlines(keepends=True)[:5])  # one change in the first 4 seconds
    assert rolling.clock() == "2026-11-22T10:00:12Z"  # the rollout started at 10:00:08


def test_watch_only_prints_the_header_with_the_first_event(rolling):
    r = rolling("get pods --watch-only --request-timeout=12s")
    assert (r.code, r.err) == (0, "")
    # the first row sets the widths; a longer name later widens its column, as kubectl's does
    assert r.out.splitlines()[:5] == ["NAME                  READY   STATUS     RESTARTS   AGE",
                                      "web-b9c6dbc96-tgfwp   0/1     Init:0/1   0          1s",
                                      "web-b9c6dbc96-tgfwp   0/1     PodInitializing   0          6s",
                                      "web-b9c6dbc96-tgfwp   1/1     Running           0          8s",
                                      "web-6f5c854749-25tvl   1/1     Terminating       0          16s"]
    assert r.out.splitlines()[5:] == ROLLING.splitlines()[8:14]


def test_output_watch_events_adds_the_event_column(rolling):
    lines = rolling.ok("get pods -w --output-watch-events --request-timeout=12s").splitlines()
    assert lines[0].startswith("EVENT      NAME ")
    assert [line.split()[0] for line in lines[1:]] == ["ADDED", "ADDED", "ADDED", "MODIFIED", "MODIFIED", "MODIFIED",
                                                         "MODIFIED", "MODIFIED", "DELETED", "ADDED", "MODIFIED",
                                                         "MODIFIED", "MODIFIED"]
    assert lines[9] == "DELETED    web-6f5c854749-25tvl   0/1     Completed         0          16s"


def test_one_object_is_watched_without_the_others(kubesim):
    kubesim.apply(SLOW)
    kubesim.apply(SLOW.replace("name: slow", "name: other"))
    kubesim.ok("advance 1s")  # busybox pulled: the containers run
    kubesim.ok("delete pod slow other --wait=false")
    r = kubesim("get pod slow -w -o name")
    assert r.out == "pod/slow\n" * 3  # as listed, its final status, its deletion
    assert kubesim.clock() == "2026-11-22T10:00:31Z"


def test_yaml_streams_one_document_per_event(kubesim):
    kubesim.apply(SLOW)
    kubesim.ok("advance 1s")  # busybox pulled: the container runs
    kubesim.ok("delete pod slow --wait=false")
    docs = kubesim.ok("get pods -w -o yaml").split("---\n")
    assert len(docs) == 3 and all(d.startswith("apiVersion: v1\nkind: Pod\n") for d in docs)
    assert "deletionTimestamp" in docs[0] and "exitCode: 137" in docs[2]


def test_all_namespaces_adds_the_namespace_column_even_for_cluster_scoped_kinds(kubesim):
    assert kubesim.ok("get nodes -A -w --request-timeout=1s").splitlines()[:2] == [
        "NAMESPACE   NAME           STATUS   ROLES           AGE   VERSION",
        "            controlplane   Ready    control-plane   0s    v1.35.0"]


def test_sort_by_is_ignored_for_events_with_kubectls_warning(kubesim):
    r = kubesim("get nodes -w --sort-by=.metadata.name --request-timeout=1s")
    assert r.err == "warning: --watch requested, --sort-by will be ignored for watch events received\n"


def test_several_names_print_then_fail_as_kubectl_does(kubesim):
    kubesim.apply(SLOW)
    r = kubesim("get nodes node01 node02 -w")
    assert r.code == 1 and len(r.out.splitlines()) == 3
    assert r.err == "error: you may only watch a single resource or type of resource at a time\n"


NO_RESOURCES = ("error: You must provide one or more resources by argument or filename.\nExample resource "
                "specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n"
                "   '<resource>'\n")


@pytest.mark.parametrize("args, err", [
    ("pods,nodes -w", "error: you may only specify a single resource type\n"),
    ("all -w", "error: you may only specify a single resource type\n"),
    ("-w", NO_RESOURCES),
    ("pod nothere -w", 'Error from server (NotFound): pods "nothere" not found\n'),
    ("pods --output-watch-events", "error: --output-watch-events option can only be used with --watch or "
                                   "--watch-only\n"),
    ("pods -w=maybe", 'error: invalid argument "maybe" for "-w, --watch" flag: strconv.ParseBool: parsing "maybe": '
                      "invalid syntax\nSee 'kubesim get --help' for usage.\n"),
    ("pods -w --request-timeout=abc", "error: Invalid timeout value. Timeout must be a single integer in seconds, or "
                                      "an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)\n"),
    ("pods -w -o bogus", 'error: unable to match a printer suitable for the output format "bogus", allowed formats '
                         "are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,"
                         "jsonpath-as-json,jsonpath-file,kyaml,name,template,templatefile,wide,yaml\n"),
    ("nodes -w --raw /api", "error: arguments may not be passed when --raw is specified\n"),
])
def test_bad_input_fails_as_kubectl_does_and_changes_nothing(kubesim, args, err):
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"get {args}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(kubesim.state_dir) == before


@pytest.mark.parametrize("flags", ["-w pods", "--watch pods", "pods --watch=true", "-w=true pods"])
def test_a_bare_watch_flag_never_takes_the_next_word_as_its_value(rolling, flags):
    """pflag's NoOptDefVal: ``-w`` alone is ``-w=true``, and ``pods`` stays the resource type."""
    assert rolling.ok(f"get {flags} --request-timeout=4s") == "".join(ROLLING.splitlines(keepends=True)[:5])
