"""kubectl logs without -f: the argument forms (POD, TYPE/NAME, -l), the options the server cuts
the log to (--tail, --since, --since-time, --timestamps, --limit-bytes, -p), the containers read
(-c, --all-containers, the default-container annotation), --prefix, and kubectl's errors, as
staging/src/k8s.io/kubectl/pkg/cmd/logs/logs_test.go and logsforobject_test.go check them."""

from __future__ import annotations

import pytest

from kubesim.testing.cli import snapshot

# three pods printing a line every 10 s from 10:00:00; the clock then at 10:00:35
WEB = ("create deployment web --image=busybox --replicas=3 -- "
       "sh -c 'while true; do echo hello from $HOSTNAME; sleep 10; done'")
# seed 42's names, drawn after the default cluster's CoreDNS and kube-proxy pods
PODS = ("web-6858d988c6-25tvl", "web-6858d988c6-qjt6v", "web-6858d988c6-zqvkz")
FIRST = PODS[0]

TWO = """apiVersion: v1
kind: Pod
metadata:
  name: two
  annotations: {}
spec:
  restartPolicy: Never
  initContainers:
  - name: setup
    image: busybox
    command: ["sh", "-c", "echo setting up"]
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c", "echo a; sleep 2; echo b"]
  - name: side
    image: busybox
    command: ["sh", "-c", "echo side"]
"""


def lines(pod: str, seconds: tuple[int, ...], stamp: bool = False, prefix: bool = False) -> str:
    head = f"[pod/{pod}/busybox] " if prefix else ""
    return "".join(f"{head}{f'2026-11-22T10:00:{s:02d}.000000000Z ' if stamp else ''}hello from {pod}\n"
                   for s in seconds)


@pytest.fixture
def web(kubesim):
    kubesim.ok(WEB)
    kubesim.ok("advance 35s")
    return kubesim


@pytest.mark.parametrize("args, out, err", [
    pytest.param("deploy/web", lines(FIRST, (0, 10, 20, 30)), f"Found 3 pods, using pod/{FIRST}\n",
                 id="a deployment's logs are its best pod's, with kubectl's notice"),
    pytest.param("rs/web-6858d988c6 --tail=1", lines(FIRST, (30,)), f"Found 3 pods, using pod/{FIRST}\n",
                 id="a replica set's too"),
    pytest.param(f"pod/{PODS[1]} --tail=2 --timestamps", lines(PODS[1], (20, 30), stamp=True), "",
                 id="--tail keeps the last lines and --timestamps prefixes RFC3339NanoFixed times"),
    pytest.param(f"{PODS[1]} --tail=0", "", "", id="--tail=0 prints nothing"),
    pytest.param(f"{PODS[1]} --since=15s", lines(PODS[1], (20, 30)), "",
                 id="--since keeps the lines newer than the duration"),
    pytest.param(f"{PODS[1]} --since-time=2026-11-22T10:00:10Z", lines(PODS[1], (10, 20, 30)), "",
                 id="--since-time keeps the lines at or after the time"),
    pytest.param(f"{PODS[1]} --limit-bytes=40", lines(PODS[1], (0,)) + "hello fr", "",
                 id="--limit-bytes cuts the log, mid-line if it falls there"),
    pytest.param("-l app=web --prefix --since=15s",
                 "".join(lines(p, (20, 30), prefix=True) for p in PODS), "",
                 id="a selector reads every pod it matches, --prefix names each line's pod and container"),
    pytest.param("-l app=web --tail=-1", "".join(lines(p, (0, 10, 20, 30)) for p in PODS), "",
                 id="--tail=-1 given with a selector reads every line"),
    pytest.param("deploy/web --all-pods --tail=1", "".join(lines(p, (30,), prefix=True) for p in PODS), "",
                 id="--all-pods reads every pod of the object, prefixed"),
    pytest.param("-l app=none", "", "No resources found in default namespace.\n",
                 id="a selector matching nothing says so and succeeds"),
])
def test_reads_what_kubectl_reads(web, args, out, err):
    r = web(f"logs {args}")
    assert (r.code, r.out, r.err) == (0, out, err)


def test_a_selector_reads_ten_lines_of_each_pod_unless_told(kubesim):
    kubesim.ok("run counter --image=busybox --labels=app=c -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo $i; "
               "done'")
    kubesim.ok("advance 5s")
    assert kubesim.ok("logs -l app=c") == "".join(f"{i}\n" for i in range(3, 13))
    assert kubesim.ok("logs counter") == "".join(f"{i}\n" for i in range(1, 13))


@pytest.mark.parametrize("args, out, err", [
    pytest.param("two", "a\nb\n", 'Defaulted container "app" out of: app, side, setup (init)\n',
                 id="the first container, saying so when there are others"),
    pytest.param("two side", "side\n", "", id="the container named after the pod"),
    pytest.param("two -c setup", "setting up\n", "", id="an init container by -c"),
    pytest.param("two --all-containers", "setting up\na\nb\nside\n", "",
                 id="--all-containers: init containers first, then the others"),
    pytest.param("two --all-containers --prefix", "[pod/two/setup] setting up\n[pod/two/app] a\n[pod/two/app] b\n"
                 "[pod/two/side] side\n", "", id="--all-containers --prefix"),
])
def test_containers(kubesim, args, out, err):
    kubesim.apply(TWO)
    kubesim.ok("advance 5s")
    r = kubesim(f"logs {args}")
    assert (r.code, r.out, r.err) == (0, out, err)


def test_the_default_container_annotation_chooses_the_container(kubesim):
    kubesim.apply(TWO.replace("annotations: {}", "annotations: {kubectl.kubernetes.io/default-container: side}"))
    kubesim.ok("advance 5s")
    assert kubesim.ok("logs two") == "side\n"
    kubesim.apply(TWO.replace("name: two", "name: three").replace(
        "annotations: {}", "annotations: {kubectl.kubernetes.io/default-container: gone}"))
    kubesim.ok("advance 5s")
    r = kubesim("logs three")
    assert (r.out, r.err) == ("a\nb\n", 'Default container name "gone" not found in pod three\n'
                              'Defaulted container "app" out of: app, side, setup (init)\n')


def test_previous_reads_the_instance_before_the_current_one(kubesim):
    kubesim.ok("run flaky --image=busybox -- sh -c 'date; sleep 4; exit 1'")
    kubesim.ok("advance 6s")  # ran 10:00:00-10:00:04, restarted at once (the first back-off is 0s)
    assert kubesim.ok("logs flaky -p --timestamps") == "2026-11-22T10:00:00.000000000Z Sun Nov 22 10:00:00 UTC 2026\n"
    assert kubesim.ok("logs flaky") == "Sun Nov 22 10:00:04 UTC 2026\n"


def test_a_workload_without_pods_waits_for_one_up_to_the_pod_running_timeout(kubesim):
    kubesim.ok("create deployment idle --image=nginx --replicas=0")
    r = kubesim("logs deploy/idle --pod-running-timeout=5s")
    assert (r.code, r.out, r.err) == (1, "", "error: timed out waiting for the condition\n")
    assert kubesim.clock() == "2026-11-22T10:00:05Z"


@pytest.mark.parametrize("args, err", [
    ("", "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required "
         "argument for the logs command\nSee 'kubesim logs -h' for help and examples\n"),
    ("a b c", "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required "
              "argument for the logs command\nSee 'kubesim logs -h' for help and examples\n"),
    (f"{FIRST} -l app=web", "error: only a selector (-l) or a POD name is allowed\n"
                            "See 'kubesim logs -h' for help and examples\n"),
    (f"{FIRST} --since=1s --since-time=2026-11-22T10:00:00Z",
     "error: at most one of `sinceTime` or `sinceSeconds` may be specified\n"),
    (f"{FIRST} --since-time=2024-08-30",
     'error: parsing time "2024-08-30" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"\n'),
    (f"{FIRST} --tail=-2", "error: --tail must be greater than or equal to -1\n"),
    (f"{FIRST} --tail=abc", 'error: invalid argument "abc" for "--tail" flag: strconv.ParseInt: parsing "abc": '
                            "invalid syntax\nSee 'kubesim logs --help' for usage.\n"),
    (f"{FIRST} --limit-bytes=-1", "error: --limit-bytes must be greater than 0\n"),
    (f"{FIRST} --since=-5s", "error: --since must be greater than 0\n"),
    (f"{FIRST} --since=400ms", f'The PodLogOptions "{FIRST}" is invalid: sinceSeconds: Invalid value: 0: must be '
                               "greater than 0\n"),
    (f"{FIRST} --all-containers -c busybox",
     "error: --all-containers=true should not be specified with container name busybox\n"),
    (f"{FIRST} busybox -c busybox", "error: only one of -c or an inline [CONTAINER] arg is allowed\n"),
    (f"{FIRST} -c nope", f"error: container nope is not valid for pod {FIRST} out of: busybox\n"),
    ("deploy/nope", 'error: error from server (NotFound): deployments.apps "nope" not found in namespace "default"\n'),
    ("nope", 'error: error from server (NotFound): pods "nope" not found in namespace "default"\n'),
    ("node/node01", "error: cannot get the logs from *v1.Node: selector for *v1.Node not implemented\n"),
    (f"{FIRST} -p", f'Error from server (BadRequest): previous terminated container "busybox" in pod "{FIRST}" '
                    "not found\n"),
    ("-l app=web -f --max-log-requests=2", "error: you are attempting to follow 3 log streams, but maximum allowed "
                                           "concurrency is 2, use --max-log-requests to increase the limit\n"),
])
def test_bad_input_fails_as_kubectl_does_and_changes_nothing(web, tmp_path, args, err):
    before = snapshot(web.state_dir)
    r = web(f"logs {args}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(web.state_dir) == before


def test_ignore_errors_reports_a_failed_request_and_goes_on(kubesim):
    kubesim.apply(TWO)
    kubesim.ok("advance 5s")
    r = kubesim("logs two --all-containers -p --ignore-errors")
    # consumeWithRetry writes the error where the logs go (its internalErrOut is the output)
    assert (r.code, r.err) == (0, "")
    assert r.out == "".join(f'error: previous terminated container "{c}" in pod "two" not found\n'
                            for c in ("setup", "app", "side"))


def test_following_with_ignore_errors_gives_up_a_stream_that_cannot_be_read(kubesim):
    kubesim.apply(TWO.replace('"echo setting up"', '"sleep 3"'))
    r = kubesim("logs two -c app -f --ignore-errors")
    assert (r.code, r.err) == (0, "")
    assert r.out == 'error: container "app" in pod "two" is waiting to start: PodInitializing\n'
    assert kubesim.clock() == "2026-11-22T10:00:00Z"


def test_following_a_selector_interleaves_the_streams_in_time(web):
    r = web("logs -l app=web -f --prefix --tail=1")
    assert r.code == 0
    assert r.out == "".join(lines(p, (30,), prefix=True) for p in PODS)
    assert r.err.startswith("kubesim: following ends at 2026-11-22T10:00:35Z (simulated time)")


@pytest.mark.parametrize("pod, first, last", [
    ("kube-apiserver-controlplane", "I1122 10:00:00.000000       1 server.go:150] Version: v1.35.0",
     'I1122 10:00:00.000000       1 tlsconfig.go:243] "Starting DynamicServingCertificateController"'),
    ("kube-controller-manager-controlplane",
     "I1122 10:00:00.000000       1 serving.go:386] Generated self-signed cert in-memory",
     'I1122 10:00:00.000000       1 leaderelection.go:272] "Successfully acquired lease" '
     'lock="kube-system/kube-controller-manager"'),
    ("kube-scheduler-controlplane", "I1122 10:00:00.000000       1 serving.go:386] Generated self-signed cert in-memory",
     'I1122 10:00:00.000000       1 leaderelection.go:272] "Successfully acquired lease" '
     'lock="kube-system/kube-scheduler"'),
    ("etcd-controlplane", '{"level":"info","ts":"2026-11-22T10:00:00.000000Z","caller":"embed/etcd.go:324",'
                          '"msg":"starting an etcd server"}',
     '{"level":"info","ts":"2026-11-22T10:00:00.000000Z","caller":"embed/serve.go:284",'
     '"msg":"serving client traffic securely"}'),
])
def test_the_control_plane_static_pods_log_their_start_up(kubesim, pod, first, last):
    out = kubesim.ok(f"logs -n kube-system {pod}").splitlines()
    assert (out[0], out[-1]) == (first, last)


BOUND = ('I1122 10:00:{s:02d}.000000       1 schedule_one.go:337] "Successfully bound pod to node" '
         'pod="default/{pod}" node="{node}" evaluatedNodes=3 feasibleNodes=2')


def test_the_scheduler_logs_at_the_verbosity_of_its_static_manifest(kubesim):
    import pathlib

    kubesim.ok("run before --image=nginx")  # at the manifest's default --v=0: nothing logged
    manifest = pathlib.Path(kubesim.state_dir) / "nodes" / "controlplane" / "manifests" / "kube-scheduler.yaml"
    manifest.write_text(manifest.read_text().replace("- --leader-elect=true", "- --leader-elect=true\n    - --v=2"))
    kubesim.ok("advance 15s")  # the kubelet restarts the scheduler with the new flags
    kubesim.ok("run after --image=nginx")
    out = kubesim.ok("logs -n kube-system kube-scheduler-controlplane").splitlines()
    assert out[0].startswith("I1122 10:00:10.000000       1 serving.go:386]")  # the new instance's start
    assert out[-1] == BOUND.format(s=15, pod="after", node="node01")
    assert not any('pod="default/before"' in line for line in out)
    # the command's own --v is independent of it
    assert kubesim("run quiet --image=nginx").err == ""
