"""kubectl run -i / --attach / --rm (run.go's attach path) on the simulated clock: the container's
output as it is printed, the pod deleted after with ``--rm``, the container's exit code for
``--restart=Never``. Validations as upstream's pkg/cmd/run/run_test.go TestRunValidations and
TestGetRestartPolicy."""

from __future__ import annotations

import pytest

from kubesim.kubectl.cmd.run import ATTACH_NOTICE
from kubesim.testing.cli import snapshot


@pytest.mark.parametrize("command, out, err, code", [
    ("run -i --rm --restart=Never hello --image=busybox -- echo hi",
     'hi\npod "hello" deleted from default namespace\n', "", 0),
    ("run -i --rm ticker --image=busybox -- sh -c 'for i in 1 2 3; do echo tick $i; sleep 2; done'",
     'tick 1\ntick 2\ntick 3\npod "ticker" deleted from default namespace\n', ATTACH_NOTICE, 0),
    ("run -it --rm --restart=Never bad --image=busybox -- sh -c 'echo oops; exit 3'",
     'oops\npod "bad" deleted from default namespace\n', "pod default/bad terminated (Error)\n", 3),
    ("run --attach --restart=Never keep --image=busybox -- echo once", "once\n", "", 0),
    ("run -i --rm -q --restart=Never quiet --image=busybox -- sh -c 'sleep 1; echo shh'", "shh\n", "", 0),
], ids=["a command that ends at once: its log, then --rm's deletion (no attach)",
        "a running container is attached to: its lines as they come, until it ends",
        "--restart=Never returns the container's exit code",
        "--attach without -i keeps the pod",
        "-q prints neither the notices nor the deletion"])
def test_run_attached_prints_the_output_and_cleans_up(kubesim, command, out, err, code):
    r = kubesim(command)
    assert (r.code, r.out, r.err) == (code, out, err)
    name = command.split(" --image")[0].split()[-1]
    assert (kubesim(f"get pod {name}").code == 0) == ("--rm" not in command)


def test_the_output_takes_simulated_time_and_no_wall_time(kubesim):
    kubesim.ok("run -i --rm ticker --image=busybox -- sh -c 'for i in 1 2 3; do echo tick $i; sleep 2; done'")
    assert kubesim.clock() == "2026-11-22T10:00:06Z"


def test_a_pod_that_never_runs_fails_at_the_pod_running_timeout_and_is_still_removed(kubesim):
    kubesim.ok("cordon node01")
    kubesim.ok("cordon node02")
    r = kubesim("run -i --rm --restart=Never stuck --image=busybox --pod-running-timeout=10s -- echo hi")
    assert (r.code, r.out, r.err) == (1, 'pod "stuck" deleted from default namespace\n',
                                      "error: timed out waiting for the condition\n")
    assert kubesim.clock() == "2026-11-22T10:00:10Z"


def test_a_container_that_never_ends_is_detached_from_with_an_error(kubesim):
    r = kubesim("run -i --rm forever --image=busybox -- sleep infinity")
    assert r.code == 1 and r.out == 'pod "forever" deleted from default namespace\n'
    assert r.err == ATTACH_NOTICE + ("error: kubesim stops attaching: the container runs on and nothing in the "
                                     "cluster will end it (kubectl would stay attached until interrupted)\n")


def test_interactive_pods_default_to_restart_on_failure_and_keep_stdin(kubesim):
    out = kubesim.ok("run x --image=busybox -i --attach=false --dry-run=client -o yaml")
    assert "    stdin: true\n    stdinOnce: true\n" in out and "  restartPolicy: OnFailure\n" in out


@pytest.mark.parametrize("args, err", [
    ("x --image=busybox --rm", "error: --rm should only be used for attached containers\n"),
    ("x --image=busybox -i --dry-run=client", "error: --dry-run=[server|client] can't be used with attached "
                                               "containers options (--attach, --stdin, or --tty)\n"),
    ("x --image=busybox --attach --dry-run=server", "error: --dry-run=[server|client] can't be used with attached "
                                                     "containers options (--attach, --stdin, or --tty)\n"),
    ("x --image=busybox -t", "error: -i/--stdin is required for containers with -t/--tty=true\n"),
    ("x --image=busybox -i --pod-running-timeout=5", 'error: invalid argument "5" for "--pod-running-timeout" flag: '
                                                      "time: missing unit in duration \"5\"\nSee 'kubesim run --help' "
                                                      "for usage.\n"),
], ids=["test rm errors when used on non-attached containers", "test error on attached containers options",
        "test error on attached containers options, with --attach", "test error when tty=true and no stdin provided",
        "a bad --pod-running-timeout"])
def test_run_validations(kubesim, args, err):
    kubesim.ok("get pods")
    before = snapshot(kubesim.state_dir)
    r = kubesim(f"run {args}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(kubesim.state_dir) == before
