"""kubectl logs -f (logs.go consumeWithRetry with Follow) on the simulated clock: the container's
lines as it prints them, until that instance of the container ends; while it cannot be read
yet, the server's reason on stderr every second, up to --pod-running-timeout."""

from __future__ import annotations

import pytest

COUNTER = """apiVersion: v1
kind: Pod
metadata:
  name: counter
spec:
  restartPolicy: Never
  initContainers:
  - name: warm-up
    image: busybox
    command: ["sh", "-c", "sleep 3"]
  containers:
  - name: c
    image: busybox
    command: ["sh", "-c", "for i in 1 2 3; do echo tick $i; sleep 2; done; echo done"]
"""
WAITING = 'container "c" in pod "counter" is waiting to start: PodInitializing\n'
TICKS = "tick 1\ntick 2\ntick 3\ndone\n"
# an init container makes kubectl say which container it defaulted to (logsforobject.go)
DEFAULTED = 'Defaulted container "c" out of: c, warm-up (init)\n'


def test_follow_waits_for_the_container_then_prints_it_to_its_end(kubesim):
    kubesim.apply(COUNTER)
    r = kubesim("logs -f counter")
    # busybox pulled (0.6s), 3s of init, busybox pulled again (untagged: Always): tried at 0, 1, 2 and
    # 3s, readable at 4s
    assert (r.code, r.out, r.err) == (0, TICKS, DEFAULTED + WAITING * 4)
    assert kubesim.clock() == "2026-11-22T10:00:09Z"  # then 6s of ticks: done at 9.9s


def test_follow_of_a_finished_container_prints_its_log_at_once(kubesim):
    kubesim.apply(COUNTER)
    kubesim.ok("advance 1m")
    assert kubesim.ok("logs -f counter --tail=2") == "tick 3\ndone\n"
    assert kubesim.clock() == "2026-11-22T10:01:00Z"


def test_the_retries_end_at_the_pod_running_timeout(kubesim):
    kubesim.apply(COUNTER)
    r = kubesim("logs --follow counter --pod-running-timeout=2s")
    assert (r.code, r.out, r.err) == (1, "", DEFAULTED + WAITING * 2 + "error: context deadline exceeded\n")


def test_a_container_that_runs_for_ever_is_followed_until_nothing_more_is_due(kubesim):
    kubesim.ok("run loop --image=busybox -- sh -c 'while true; do date; sleep 5; done'")
    kubesim.ok("advance 11s")
    r = kubesim("logs -f pod/loop")
    assert r.code == 0
    # the last thing due: its node listing the busybox image it pulled, at the image cache's refresh
    assert r.out == "".join(f"Sun Nov 22 10:00:{s:02d} UTC 2026\n" for s in range(0, 31, 5))
    assert r.err == ("kubesim: following ends at 2026-11-22T10:00:30Z (simulated time), the container runs on and "
                     "nothing in the cluster is due (kubectl would keep following until interrupted; `kubesim "
                     "advance` lets the log grow)\n")


def test_follow_ends_with_the_instance_it_follows(kubesim):
    kubesim.ok("run flaky --image=busybox -- sh -c 'echo up; sleep 4; echo down; exit 1'")
    assert kubesim.ok("logs -f flaky") == "up\ndown\n"  # the restart after it is another instance
    assert kubesim.clock() == "2026-11-22T10:00:04Z"


@pytest.mark.parametrize("args, err", [
    ("counter --follow=maybe", 'error: invalid argument "maybe" for "-f, --follow" flag: strconv.ParseBool: parsing '
                               "\"maybe\": invalid syntax\nSee 'kubesim logs --help' for usage.\n"),
    ("counter -f --pod-running-timeout=3", 'error: invalid argument "3" for "--pod-running-timeout" flag: time: '
                                           "missing unit in duration \"3\"\nSee 'kubesim logs --help' for usage.\n"),
    # kubectl v1.30+ rewords the builder's NotFound (logs.go Complete)
    ("nothere -f", 'error: error from server (NotFound): pods "nothere" not found in namespace "default"\n'),
])
def test_bad_input_fails_as_kubectl_does(kubesim, args, err):
    kubesim.apply(COUNTER)
    r = kubesim(f"logs {args}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert kubesim.clock() == "2026-11-22T10:00:00Z"
