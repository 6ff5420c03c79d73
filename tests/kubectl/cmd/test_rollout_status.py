"""kubectl rollout status watches the object (rollout_status.go: a status line for the object as
listed, then one per write of it, until the viewer says done) on the simulated clock. Cases
after upstream's pkg/cmd/rollout/rollout_status_test.go (TestRolloutStatus, ...WithSelector,
...WatchDisabledUnavailable, ...EmptyList) plus the waits that test cannot show."""

from __future__ import annotations

import itertools

import pytest

WEB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: NAME
  labels: {tier: front}
spec:
  replicas: 3
  selector:
    matchLabels: {app: NAME}
  template:
    metadata:
      labels: {app: NAME}
    spec:
      initContainers:
      - name: warm-up
        image: busybox
        command: ["sh", "-c", "sleep 5"]
      containers:
      - name: nginx
        image: nginx:1.27
"""
AGENT = """apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      initContainers:
      - name: warm-up
        image: busybox
        command: ["sh", "-c", "sleep 8"]
      containers:
      - name: agent
        image: nginx
"""


def web(name="web") -> str:
    return WEB.replace("NAME", name)


def waiting_for(name, what) -> str:
    return f'Waiting for deployment "{name}" rollout to finish: {what}...\n'


def runs(text: str) -> list[str]:
    """The lines, each run of repeats as one (a watch prints a line per write of the object)."""
    return [line for line, _ in itertools.groupby(text.splitlines(keepends=True))]


def test_a_new_deployment_is_watched_until_its_pods_are_available(kubesim):
    kubesim.apply(web())
    r = kubesim("rollout status deployment/web")
    assert (r.code, r.err) == (0, "")
    # the pods on the two workers pull busybox, run the init container's 5 seconds, then pull
    # nginx:1.27: each node's pulls are serial, so the pods become available one after the other
    assert r.out == waiting_for("web", "0 of 3 updated replicas are available") + \
        waiting_for("web", "1 of 3 updated replicas are available") + \
        waiting_for("web", "2 of 3 updated replicas are available") + \
        'deployment "web" successfully rolled out\n'
    assert kubesim.clock() == "2026-11-22T10:00:08Z"  # in no wall time


def test_a_rolling_update_prints_each_status_the_watch_sees(kubesim):
    kubesim.apply(web())
    kubesim.ok("rollout status deployment/web")
    kubesim.ok("set image deployment/web nginx=nginx:1.28")
    r = kubesim("rollout status deployment/web")
    assert r.code == 0
    assert runs(r.out) == [
        waiting_for("web", "1 out of 3 new replicas have been updated"),
        waiting_for("web", "2 out of 3 new replicas have been updated"),
        waiting_for("web", "1 old replicas are pending termination"),
        'deployment "web" successfully rolled out\n',
    ]
    assert len(r.out.splitlines()) > len(runs(r.out))  # each write of the Deployment is a line, repeats too
    assert kubesim.clock() == "2026-11-22T10:00:30Z"  # three new pods, one after the other: pulls and 5s each


def test_watch_false_prints_the_status_once_even_when_unfinished(kubesim):
    kubesim.apply(web())
    r = kubesim("rollout status deployment/web --watch=false")
    assert (r.code, r.out, r.err) == (0, waiting_for("web", "0 of 3 updated replicas are available"), "")
    assert kubesim.clock() == "2026-11-22T10:00:00Z"


def test_a_timeout_ends_the_watch_as_kubectl_does(kubesim):
    kubesim.apply(web())
    r = kubesim("rollout status deployment/web --timeout=3s")
    assert (r.code, r.out, r.err) == (1, waiting_for("web", "0 of 3 updated replicas are available"),
                                      "error: timed out waiting for the condition\n")
    assert kubesim.clock() == "2026-11-22T10:00:03Z"


def test_a_selector_watches_each_object_in_turn(kubesim):
    kubesim.apply(web("a") + "---\n" + web("b"))
    r = kubesim("rollout status deployment -l tier=front")
    assert r.out == (waiting_for("a", "0 of 3 updated replicas are available")
                     + waiting_for("a", "1 of 3 updated replicas are available")
                     + waiting_for("a", "2 of 3 updated replicas are available")
                     + 'deployment "a" successfully rolled out\n'
                     + waiting_for("b", "1 of 3 updated replicas are available")
                     + waiting_for("b", "2 of 3 updated replicas are available")
                     + 'deployment "b" successfully rolled out\n')  # b's last two pods came after a's
    # (CoreDNS's requests on node01 tip the scheduler's spreading of the six pods)


def test_a_selector_that_matches_nothing_says_so(kubesim):
    r = kubesim("rollout status deployment -l tier=none")
    assert (r.code, r.out, r.err) == (0, "", "No resources found in default namespace.\n")


def test_a_paused_rollout_never_finishes_and_kubesim_stops_watching(kubesim):
    kubesim.apply(web())
    kubesim.ok("rollout status deployment/web")
    kubesim.ok("rollout pause deployment/web")
    kubesim.ok("set image deployment/web nginx=nginx:1.28")
    r = kubesim("rollout status deployment/web")
    assert (r.code, r.out) == (1, waiting_for("web", "0 out of 3 new replicas have been updated"))
    assert r.err == ('error: deployment "web" rollout is not finished, and nothing in the cluster will change that '
                     "(kubectl would keep watching; kubesim stops)\n")


def test_an_object_deleted_while_watched_ends_the_watch_with_kubectls_error(kubesim):
    kubesim.apply(web())
    kubesim.ok("advance 1s")  # the init containers run (a waiting container would stop at once)
    kubesim.ok("delete deployment web --cascade=foreground --wait=false")  # goes once its pods are gone
    r = kubesim("rollout status deployment/web")
    assert (r.code, r.err) == (1, "error: object has been deleted\n")
    assert r.out and all(line.startswith('Waiting for deployment "web" rollout') for line in r.out.splitlines())


@pytest.mark.parametrize("flags, err", [
    ("--timeout=3", 'error: invalid argument "3" for "--timeout" flag: time: missing unit in duration "3"\n'
                    "See 'kubesim rollout status --help' for usage.\n"),
    ("--watch=maybe", 'error: invalid argument "maybe" for "-w, --watch" flag: strconv.ParseBool: parsing "maybe": '
                      "invalid syntax\nSee 'kubesim rollout status --help' for usage.\n"),
    ("--revision=-1", "error: revision must be a positive integer: -1\n"),
])
def test_bad_flags_fail_as_kubectl_does(kubesim, flags, err):
    kubesim.apply(web())
    r = kubesim(f"rollout status deployment/web {flags}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert kubesim.clock() == "2026-11-22T10:00:00Z"


def test_a_daemon_set_rollout_is_watched_too(kubesim):
    kubesim.apply(AGENT)
    r = kubesim("rollout status daemonset/agent")
    assert r.out == ('Waiting for daemon set "agent" rollout to finish: 0 of 2 updated pods are available...\n'
                     'Waiting for daemon set "agent" rollout to finish: 1 of 2 updated pods are available...\n'
                     'daemon set "agent" successfully rolled out\n')
    assert kubesim.clock() == "2026-11-22T10:00:11Z"  # busybox pulled, 8s of init, nginx pulled


def test_watch_flag_before_the_resource(kubesim):
    kubesim.apply(web())
    assert kubesim.ok("rollout status -w deployment/web").endswith('deployment "web" successfully rolled out\n')
