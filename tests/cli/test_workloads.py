"""scale, set image, rollout and drain, end to end through the CLI (pinned clock and seed).

Expected lines are kubectl's (staging/src/k8s.io/kubectl/pkg/cmd/{scale,set,rollout,drain} and
pkg/drain); where kubesim is all or nothing, a failing command leaves the state byte for byte
as it was (``snapshot``)."""

import json

import pytest

from kubesim.testing.cli import snapshot

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
{extra}      containers:
      - name: nginx
        image: nginx:1.27
"""

DAEMONSET = """apiVersion: apps/v1
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
      containers:
      - name: agent
        image: nginx:1.27
"""

REPLICASET = """apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: plain
spec:
  replicas: 1
  selector:
    matchLabels: {app: plain}
  template:
    metadata:
      labels: {app: plain}
    spec:
      containers:
      - name: c
        image: nginx:1.27
"""

BARE_POD = """apiVersion: v1
kind: Pod
metadata:
  name: bare
spec:
  nodeName: node01
  containers:
  - name: c
    image: nginx:1.27
"""


def deployment(name="web", replicas=3, extra=""):
    return DEPLOYMENT.format(name=name, replicas=replicas, extra=extra)


def apply(kubesim, tmp_path, *docs, name="objects.yaml"):
    f = tmp_path / name
    f.write_text("---\n".join(docs))
    return kubesim.ok(f"apply -f {f}")


def obj(kubesim, what):
    return json.loads(kubesim.ok(f"get {what} -o json"))


def pods(kubesim, selector):
    return obj(kubesim, f"pods -l {selector}")["items"]


def image(kubesim, what="deployment/web"):
    return obj(kubesim, what)["spec"]["template"]["spec"]["containers"][0]["image"]


@pytest.fixture
def web(kubesim, tmp_path):
    apply(kubesim, tmp_path, deployment())
    kubesim.ok("advance 5s")  # nginx:1.27 pulled: the pods run
    return kubesim


@pytest.fixture
def workloads(kubesim, tmp_path):
    """A Deployment of three, a DaemonSet and a bare pod on node01, a standalone ReplicaSet."""
    apply(kubesim, tmp_path, deployment(), DAEMONSET, BARE_POD, REPLICASET)
    kubesim.ok("advance 5s")  # the image pulls: the pods run
    return kubesim


def fails_cleanly(kubesim, command, stderr):
    before = snapshot(kubesim.state_dir)
    r = kubesim(command)
    assert (r.code, r.out, r.err) == (1, "", stderr)
    assert snapshot(kubesim.state_dir) == before


# -- scale ------------------------------------------------------------------------------------

@pytest.mark.parametrize("command, line, what, replicas", [
    ("scale deployment web --replicas=5", "deployment.apps/web scaled", "deployment/web", 5),
    ("scale deploy/web --replicas 1", "deployment.apps/web scaled", "deployment/web", 1),
    ("scale --replicas=0 deployments.apps web", "deployment.apps/web scaled", "deployment/web", 0),
    ("scale deployment web --replicas=4 --current-replicas=3", "deployment.apps/web scaled", "deployment/web", 4),
    ("scale rs plain --replicas=2", "replicaset.apps/plain scaled", "rs/plain", 2),
    ("scale deployment web --replicas=2 -o name", "deployment.apps/web", "deployment/web", 2),
], ids=["scaling a deployment up", "TYPE/NAME and a separate flag value", "to zero, with a qualified type",
        "a --current-replicas precondition that holds", "a standalone replica set",
        "-o name prints only the reference"])
def test_scale_sets_replicas_and_the_controllers_follow(workloads, command, line, what, replicas):
    assert workloads.ok(command) == line + "\n"
    assert obj(workloads, what)["spec"]["replicas"] == replicas
    app = "web" if "web" in what else "plain"
    assert len(pods(workloads, f"app={app}")) == replicas


@pytest.mark.parametrize("command, stderr", [
    ("scale deployment nope --replicas=2", 'Error from server (NotFound): deployments.apps "nope" not found'),
    ("scale deployment web nope --replicas=2", 'Error from server (NotFound): deployments.apps "nope" not found'),
    ("scale deployment web --replicas=-1",
     "error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0"),
    ("scale deployment web", 'error: required flag(s) "replicas" not set'),
    ("scale deployment web --replicas=abc", 'error: invalid argument "abc" for "--replicas" flag: '
     'strconv.ParseInt: parsing "abc": invalid syntax\nSee \'kubesim scale --help\' for usage.'),
    ("scale deployment web --replicas=99999999999999999999", 'error: invalid argument "99999999999999999999" for '
     '"--replicas" flag: strconv.ParseInt: parsing "99999999999999999999": value out of range\n'
     "See 'kubesim scale --help' for usage."),
    ("scale deployment web --replicas=2 --current-replicas=-2",
     "error: The --current-replicas must specify an integer of -1 or greater"),
    ("scale deployment web --replicas=2 --current-replicas=5", "error: Expected replicas to be 5, was 3"),
    ("scale daemonset agent --replicas=2",
     "Error from server (NotFound): the server could not find the requested resource"),
    ("scale deployment --replicas=2", "error: resource(s) were provided, but no name was specified"),
    ("scale --replicas=2", "error: You must provide one or more resources by argument or filename.\n"
                           "Example resource specifications include:\n   '-f rsrc.yaml'\n"
                           "   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"),
], ids=["a missing object", "one of two names missing changes neither", "negative replicas",
        "no --replicas", "not an integer", "past int64", "a --current-replicas below -1", "a --current-replicas precondition that fails",
        "a kind without a scale subresource", "a type without a name", "no resource at all"])
def test_scale_refuses_bad_input_and_changes_nothing(workloads, command, stderr):
    fails_cleanly(workloads, command, stderr + "\n")


def test_scale_past_int32_is_the_api_servers_decoding_error(workloads):
    # kubectl's int flag takes it; the patched Scale does not decode into ScaleSpec's int32
    before = snapshot(workloads.state_dir)
    r = workloads("scale deployment web --replicas=2147483648")
    assert r.code == 1 and r.out == ""
    assert r.err.startswith('The request is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"autoscaling/v1\\",'
                            '\\"kind\\":\\"Scale\\",\\"metadata\\":{\\"name\\":\\"web\\",')
    assert r.err.endswith('\\"spec\\":{\\"replicas\\":2147483648},\\"status\\":{\\"replicas\\":3,'
                          '\\"selector\\":\\"app=web\\"}}": json: cannot unmarshal number 2147483648 into Go '
                          "struct field ScaleSpec.spec.replicas of type int32\n")
    assert snapshot(workloads.state_dir) == before
    assert workloads.ok("scale deployment web --replicas=2147483647 --dry-run=server") == \
        "deployment.apps/web scaled (server dry run)\n"


def test_scale_with_record_writes_the_change_cause(web):
    r = web("scale deployment web --replicas=2 --record")
    assert r.code == 0 and r.out == "deployment.apps/web scaled\n"
    assert r.err == "Flag --record has been deprecated, --record will be removed in the future\n"
    annotations = obj(web, "deployment/web")["metadata"]["annotations"]
    assert annotations["kubernetes.io/change-cause"] == "kubesim scale deployment web --replicas=2 --record=true"


def test_the_tenth_similar_scaling_event_is_combined(kubesim):
    # client-go's EventAggregator: the deployment controller's ScalingReplicaSet events about one
    # Deployment differ only by message; the tenth distinct one in ten minutes becomes the
    # aggregate event, which the next one updates (count, last time, message)
    kubesim.ok("create deployment web --image=nginx:1.27 --replicas=1")
    for n in range(2, 13):
        kubesim.ok("advance 1s")
        kubesim.ok(f"scale deployment web --replicas={n}")
    events = kubesim.ok("describe deploy web").split("Events:\n", 1)[1]
    rs = obj(kubesim, "rs -l app=web")["items"][0]["metadata"]["name"]
    lines = [f"  Normal  ScalingReplicaSet  {f'{11 - i}s':<15}  deployment-controller  "
             f"Scaled up replica set {rs} from {i} to {i + 1}" for i in range(9)]
    assert events.splitlines()[2:] == lines + [
        "  Normal  ScalingReplicaSet  0s (x3 over 2s)  deployment-controller  "
        f"(combined from similar events): Scaled up replica set {rs} from 11 to 12"]


# -- set image --------------------------------------------------------------------------------

@pytest.mark.parametrize("command, line", [
    ("set image deployment/web nginx=nginx:1.28", "deployment.apps/web image updated"),
    ("set image deploy web nginx=nginx:1.28", "deployment.apps/web image updated"),
    ("set image deployment/web *=nginx:1.28", "deployment.apps/web image updated"),
    ("set image deployment/web nginx=nginx:1.28 -o name", "deployment.apps/web"),
], ids=["TYPE/NAME", "TYPE NAME with a short name", "the * wildcard", "-o name"])
def test_set_image_updates_the_template_and_rolls_out(web, command, line):
    old_rs = {rs["metadata"]["name"] for rs in obj(web, "rs")["items"]}
    assert web.ok(command) == line + "\n"
    assert image(web) == "nginx:1.28"
    web.ok("advance 15s")  # the rolling update: each new pod pulls nginx:1.28 before the next step
    rss = {rs["metadata"]["name"]: rs for rs in obj(web, "rs")["items"]}
    new = [rs for n, rs in rss.items() if n not in old_rs]
    assert len(new) == 1 and new[0]["spec"]["replicas"] == 3
    assert all(rss[n]["spec"]["replicas"] == 0 for n in old_rs)
    assert {p["spec"]["containers"][0]["image"] for p in pods(web, "app=web")} == {"nginx:1.28"}


def test_set_image_of_several_containers_and_of_a_pod(workloads, tmp_path):
    two = deployment("two").replace("        image: nginx:1.27\n",
                                    "        image: nginx:1.27\n      - name: side\n        image: busybox:1.36\n")
    apply(workloads, tmp_path, two, name="two.yaml")
    assert workloads.ok("set image deployment/two nginx=nginx:1.28 side=busybox:1.37") == \
        "deployment.apps/two image updated\n"
    containers = obj(workloads, "deployment/two")["spec"]["template"]["spec"]["containers"]
    assert [c["image"] for c in containers] == ["nginx:1.28", "busybox:1.37"]
    assert workloads.ok("set image pod/bare c=nginx:1.28") == "pod/bare image updated\n"
    assert obj(workloads, "pod/bare")["spec"]["containers"][0]["image"] == "nginx:1.28"


def test_set_image_to_the_image_it_already_has_prints_nothing(web):
    before = snapshot(web.state_dir)
    r = web("set image deployment/web nginx=nginx:1.27")
    assert (r.code, r.out, r.err) == (0, "", "")
    assert snapshot(web.state_dir) == before


@pytest.mark.parametrize("command, stderr", [
    ("set image deployment/web nope=nginx:1.28", 'error: unable to find container named "nope"'),
    ("set image deployment/web nope=a other=b",
     'error: unable to find container named "nope"\nerror: unable to find container named "other"'),
    ("set image deployment/web", "error: at least one image update is required"),
    ("set image deployment/web nginx=a *=b",
     "error: all containers are already specified by *, but saw more than one container_name=container_image pairs"),
    ("set image deployment/web nginx=a extra", "error: all resources must be specified before image changes: extra"),
    ("set image deployment/nope nginx=a", 'Error from server (NotFound): deployments.apps "nope" not found'),
    ("set image node/node01 c=a",
     "error: nodes/node01 the object is not a pod or does not have a pod template: *v1.Node"),
    ("set image deployment/web nginx=a --all -l app=web",
     "error: selectors and the all flag cannot be used when passing resource/name arguments"),
    ("set image deployment nginx=a --all -l app=web", "error: cannot set --all and --selector at the same time"),
    ("set nope deployment/web", 'error: unknown command "nope" for "kubesim set"'),
], ids=["an unknown container", "two unknown containers, one line each", "no image", "* with other pairs",
        "a resource after the pairs", "a missing object", "a kind without a pod template",
        "--all with a name", "--all with --selector", "an unknown set subcommand"])
def test_set_image_refuses_bad_input_and_changes_nothing(workloads, command, stderr):
    fails_cleanly(workloads, command, stderr + "\n")


# -- rollout: the rolling update, history and undo --------------------------------------

def test_a_rolling_update_through_set_image_is_recorded_in_history_and_undo_restores_it(web):
    assert web.ok("rollout status deployment/web") == 'deployment "web" successfully rolled out\n'
    web.ok("set image deployment/web nginx=nginx:1.28")
    assert web.ok("rollout status deployment/web").endswith('deployment "web" successfully rolled out\n')
    web.ok("set image deployment/web nginx=nginx:1.29 --record")
    assert web.ok("rollout history deployment/web") == (
        "deployment.apps/web \n"
        "REVISION  CHANGE-CAUSE\n"
        "1         <none>\n"
        "2         <none>\n"
        "3         kubesim set image deployment/web nginx=nginx:1.29 --record=true\n"
        "\n")
    rs2 = [rs for rs in obj(web, "rs")["items"]
           if rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2"][0]
    hash2 = rs2["metadata"]["labels"]["pod-template-hash"]
    assert web.ok("rollout history deployment/web --revision=2") == (
        "deployment.apps/web with revision #2\n"
        "Pod Template:\n"
        "  Labels:\tapp=web\n"
        f"\tpod-template-hash={hash2}\n"
        "  Containers:\n"
        "   nginx:\n"
        "    Image:\tnginx:1.28\n"
        "    Port:\t<none>\n"
        "    Host Port:\t<none>\n"
        "    Environment:\t<none>\n"
        "    Mounts:\t<none>\n"
        "  Volumes:\t<none>\n"
        "  Node-Selectors:\t<none>\n"
        "  Tolerations:\t<none>\n"
        "\n")

    r = web("rollout undo deployment/web")
    assert (r.code, r.out, r.err) == (0, "deployment.apps/web rolled back\n", applied_warning("deployments/web"))
    assert image(web) == "nginx:1.28"
    assert {p["spec"]["containers"][0]["image"] for p in pods(web, "app=web")} == {"nginx:1.28"}
    assert [line.split()[0] for line in web.ok("rollout history deploy/web").splitlines()[2:-1]] == ["1", "3", "4"]
    d = obj(web, "deployment/web")
    assert d["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "4"
    assert "kubernetes.io/change-cause" not in d["metadata"]["annotations"]

    assert web.ok("rollout undo deployment/web --to-revision=1") == "deployment.apps/web rolled back\n"
    assert image(web) == "nginx:1.27"
    assert web.ok("rollout status deploy/web") == 'deployment "web" successfully rolled out\n'


def test_undo_to_the_template_already_running_is_skipped(web):
    web.ok("set image deployment/web nginx=nginx:1.28")
    assert web.ok("rollout undo deployment/web --to-revision=2") == \
        "deployment.apps/web skipped rollback (current template already matches revision 2)\n"


def test_change_cause_annotations_show_in_history(web):
    web.ok("annotate deployment web kubernetes.io/change-cause=first")
    web.ok("set image deployment/web nginx=nginx:1.28")
    web.ok("annotate deployment web kubernetes.io/change-cause=upgrade\\ to\\ 1.28 --overwrite")
    assert web.ok("rollout history deployment web").splitlines()[1:4] == [
        "REVISION  CHANGE-CAUSE", "1         first", "2         upgrade to 1.28"]


def applied_warning(resource: str) -> str:
    """rollout undo's warning for an object kubectl apply manages (rollout_undo.go)."""
    return (f"Warning: resource {resource} was previously managed with 'kubesim apply'. Rolling back will not "
            "update the kubectl.kubernetes.io/last-applied-configuration annotation, which may cause unexpected "
            "behavior on future 'kubesim apply' operations. Consider using 'kubesim apply' with your previous "
            "configuration file instead.\n")


@pytest.mark.parametrize("command, stderr", [
    ("rollout undo deployment/web --to-revision=9",
     applied_warning("deployments/web") + "error: unable to find specified revision 9 in history"),
    ("rollout undo deployment/web --to-revision=-1",
     applied_warning("deployments/web") + "error: unable to find specified revision -1 in history"),
    ("rollout undo deployment/nope", 'Error from server (NotFound): deployments.apps "nope" not found'),
    ("rollout history deployment/web --revision=7", "error: unable to find the specified revision"),
    ("rollout status deployment/web --revision=3",
     "error: desired revision (3) is different from the running revision (2)"),
    ("rollout status rs/plain", "error: no status viewer has been implemented for ReplicaSet.apps"),
    ("rollout history rs/plain", 'error: no history viewer has been implemented for "ReplicaSet.apps"'),
    ("rollout undo rs/plain",
     applied_warning("replicasets/plain") + 'error: no rollbacker has been implemented for "ReplicaSet.apps"'),
    ("rollout pause daemonset/agent", 'error: daemonsets.apps "agent" pausing is not supported'),
    ("rollout restart rs/plain", 'error: replicasets.apps "plain" restarting is not supported'),
    ("rollout resume deployment/web", 'error: deployments.apps "web" is not paused'),
    ("rollout status", "error: required resource not specified"),
    ("rollout history deployment/web --to-revision=1",
     "error: unknown flag: --to-revision\nSee 'kubesim rollout history --help' for usage."),
    ("rollout nope deployment/web", 'error: unknown command "nope" for "kubesim rollout"'),
], ids=["undo to a revision that does not exist", "undo to a negative revision", "undo of a missing object",
        "history of a revision that does not exist", "status pinned to another revision",
        "status of a kind without a status viewer", "history of a kind without history",
        "undo of a kind without a rollbacker", "pause of a daemon set", "restart of a replica set",
        "resume of a deployment that is not paused", "no resource", "a flag of another subcommand",
        "an unknown subcommand"])
def test_rollout_refuses_bad_input_and_changes_nothing(workloads, command, stderr):
    workloads.ok("set image deployment/web nginx=nginx:1.28")
    fails_cleanly(workloads, command, stderr + "\n")


def test_undo_without_history_says_so(web):
    fails_cleanly(web, "rollout undo deployment/web",
                  applied_warning("deployments/web") + 'error: no rollout history found for deployment "web"\n')


def test_pause_holds_the_rollout_and_resume_releases_it(web):
    assert web.ok("rollout pause deployment/web") == "deployment.apps/web paused\n"
    assert obj(web, "deployment/web")["spec"]["paused"] is True
    fails_cleanly(web, "rollout pause deployment/web", 'error: deployments.apps "web" is already paused\n')
    web.ok("set image deployment/web nginx=nginx:1.28")
    assert len(obj(web, "rs")["items"]) == 1  # paused: no new ReplicaSet
    assert {p["spec"]["containers"][0]["image"] for p in pods(web, "app=web")} == {"nginx:1.27"}
    fails_cleanly(web, "rollout restart deployment/web",
                  'error: deployments.apps "web" can\'t restart paused deployment (run rollout resume first)\n')
    fails_cleanly(web, "rollout undo deployment/web --to-revision=1",
                  applied_warning("deployments/web") + "error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' "
                  "and try again\n")
    assert web.ok("rollout resume deployment/web") == "deployment.apps/web resumed\n"
    assert "paused" not in obj(web, "deployment/web")["spec"]
    web.ok("advance 15s")  # the rolling update and its pulls
    assert {p["spec"]["containers"][0]["image"] for p in pods(web, "app=web")} == {"nginx:1.28"}


def test_restart_stamps_the_template_and_replaces_the_pods(web):
    before = {p["metadata"]["name"] for p in pods(web, "app=web")}
    assert web.ok("rollout restart deployment/web") == "deployment.apps/web restarted\n"
    template = obj(web, "deployment/web")["spec"]["template"]
    assert template["metadata"]["annotations"] == {"kubectl.kubernetes.io/restartedAt": "2026-11-22T10:00:05Z"}
    web.ok("advance 15s")  # the rolling update (nginx:1.27 is present: each pod starts at once)
    after = {p["metadata"]["name"] for p in pods(web, "app=web")}
    assert len(after) == 3 and not before & after
    assert web.ok("rollout history deployment/web").splitlines()[2:4] == ["1         <none>", "2         <none>"]


def test_status_of_a_rollout_that_cannot_finish_fails_at_its_progress_deadline(kubesim, tmp_path):
    extra = "      nodeSelector: {disk: none}\n"
    apply(kubesim, tmp_path, deployment("stuck", 2, extra))
    waiting = 'Waiting for deployment "stuck" rollout to finish: 0 of 2 updated replicas are available...\n'
    r = kubesim("rollout status deployment/stuck --watch=false")
    assert (r.code, r.out, r.err) == (0, waiting, "")
    r = kubesim("rollout status deployment/stuck --timeout=1m")
    assert (r.code, r.out, r.err) == (1, waiting, "error: timed out waiting for the condition\n")
    # the Deployment controller marks it ProgressDeadlineExceeded 600s after it last progressed
    r = kubesim("rollout status deployment/stuck")
    assert (r.code, r.out, r.err) == (1, waiting, 'error: deployment "stuck" exceeded its progress deadline\n')


def test_daemon_set_rollouts(workloads):
    assert workloads.ok("rollout status daemonset/agent") == 'daemon set "agent" successfully rolled out\n'
    assert workloads.ok("set image ds/agent agent=nginx:1.28") == "daemonset.apps/agent image updated\n"
    assert workloads.ok("rollout history ds/agent") == (
        "daemonset.apps/agent \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n")
    assert workloads.ok("rollout undo ds/agent") == "daemonset.apps/agent rolled back\n"
    assert image(workloads, "ds/agent") == "nginx:1.27"
    assert {p["spec"]["containers"][0]["image"] for p in pods(workloads, "app=agent")} == {"nginx:1.27"}
    assert workloads.ok("rollout restart ds/agent") == "daemonset.apps/agent restarted\n"


def test_history_as_objects(web):
    web.ok("set image deployment/web nginx=nginx:1.28")
    names = sorted(obj(web, "rs")["items"], key=lambda rs: rs["metadata"]["annotations"][
        "deployment.kubernetes.io/revision"])
    assert web.ok("rollout history deployment/web -o name") == \
        "".join(f"replicaset.apps/{rs['metadata']['name']}\n" for rs in names)
    assert web.ok("rollout history deployment/web --revision=1 -o name") == \
        f"replicaset.apps/{names[0]['metadata']['name']}\n"


# -- drain: the scenario and kubectl's refusals -------------------------------------------

def _on(kubesim, node, selector, namespace=""):
    return sorted(p["metadata"]["name"] for p in pods(kubesim, selector + namespace)
                  if p["spec"].get("nodeName") == node)


def _addons(kubesim, node):
    """kubeadm's pods on the node: its kube-proxy (DaemonSet-managed) and any CoreDNS pod (evicted
    like any managed pod), as ``namespace/name``."""
    proxy = [f"kube-system/{p}" for p in _on(kubesim, node, "k8s-app=kube-proxy", " -n kube-system")]
    dns = [f"kube-system/{p}" for p in _on(kubesim, node, "k8s-app=kube-dns", " -n kube-system")]
    return proxy, dns


def test_drain_moves_a_deployments_pods_elsewhere_and_leaves_the_daemon_set_pod(kubesim, tmp_path):
    apply(kubesim, tmp_path, deployment(), DAEMONSET)
    kubesim.ok("advance 5s")  # the image pulls: the pods run
    moving = _on(kubesim, "node01", "app=web")
    agent = _on(kubesim, "node01", "app=agent")
    assert moving and len(agent) == 1
    proxy, dns = _addons(kubesim, "node01")
    r = kubesim("drain node01 --ignore-daemonsets")
    assert r.code == 0
    assert r.out == ("node/node01 cordoned\n"
                     + "".join(f"evicting pod default/{p}\n" for p in moving)
                     + "".join(f"evicting pod {p}\n" for p in dns)
                     + "".join(f"pod/{p} evicted\n" for p in moving)
                     + "".join(f"pod/{p.split('/')[1]} evicted\n" for p in dns)  # its grace ends later
                     + "node/node01 drained\n")
    assert r.err == f"Warning: ignoring DaemonSet-managed Pods: {', '.join([f'default/{agent[0]}'] + proxy)}\n"
    assert _on(kubesim, "node01", "app=web") == []
    assert len(_on(kubesim, "node02", "app=web")) == 3
    kubesim.ok("advance 1s")  # the replacements start (nginx:1.27 already on node02)
    assert all(p["status"]["phase"] == "Running" for p in pods(kubesim, "app=web"))
    assert _on(kubesim, "node01", "app=agent") == agent
    assert obj(kubesim, "node/node01")["spec"]["unschedulable"] is True
    assert "SchedulingDisabled" in kubesim.ok("get node node01")


def test_drain_refuses_unmanaged_pods_but_keeps_the_cordon(workloads):
    bare_before = obj(workloads, "pod/bare")
    web_before = _on(workloads, "node01", "app=web")
    r = workloads("drain node01 --ignore-daemonsets")
    assert (r.code, r.out) == (1, "node/node01 cordoned\n")
    assert r.err == (
        'error: unable to drain node "node01" due to error: cannot delete Pods that declare no controller '
        "(use --force to override): default/bare, continuing command...\n"
        "There are pending nodes to be drained:\n"
        " node01\n"
        "cannot delete Pods that declare no controller (use --force to override): default/bare\n")
    assert obj(workloads, "pod/bare")["metadata"]["uid"] == bare_before["metadata"]["uid"]
    assert _on(workloads, "node01", "app=web") == web_before
    assert obj(workloads, "node/node01")["spec"]["unschedulable"] is True


def test_drain_refuses_daemon_set_pods_without_ignore_daemonsets(workloads):
    agent = _on(workloads, "node01", "app=agent")[0]
    daemons = ", ".join([f"default/{agent}"] + _addons(workloads, "node01")[0])  # and kube-proxy
    r = workloads("drain node01")
    assert r.code == 1
    assert r.err == (
        'error: unable to drain node "node01" due to error: [cannot delete DaemonSet-managed Pods '
        f"(use --ignore-daemonsets to ignore): {daemons}, cannot delete Pods that declare no controller "
        "(use --force to override): default/bare], continuing command...\n"
        "There are pending nodes to be drained:\n"
        " node01\n"
        f"cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): {daemons}\n"
        "cannot delete Pods that declare no controller (use --force to override): default/bare\n")


def test_drain_with_force_deletes_unmanaged_pods_with_a_warning(workloads):
    agent = _on(workloads, "node01", "app=agent")[0]
    moving = _on(workloads, "node01", "app=web")
    proxy, dns = _addons(workloads, "node01")
    r = workloads("drain node01 --ignore-daemonsets --force --grace-period=5")
    assert r.code == 0
    assert r.err == (f"Warning: ignoring DaemonSet-managed Pods: {', '.join([f'default/{agent}'] + proxy)}; "
                     "deleting Pods that declare no controller: default/bare\n")
    evicted = sorted(["bare"] + moving)
    assert r.out.splitlines() == ["node/node01 cordoned"] + \
        [f"evicting pod default/{p}" for p in evicted] + [f"evicting pod {p}" for p in dns] + \
        [f"pod/{p} evicted" for p in evicted + [d.split("/")[1] for d in dns]] + ["node/node01 drained"]
    assert workloads("get pod bare").code == 1


def test_drain_refuses_local_storage_unless_told(kubesim, tmp_path):
    extra = "      volumes:\n      - name: scratch\n        emptyDir: {}\n"
    apply(kubesim, tmp_path, deployment("cache", 2, extra))
    on01 = _on(kubesim, "node01", "app=cache")
    assert on01
    r = kubesim("drain node01 --ignore-daemonsets")
    assert r.code == 1
    assert r.err.splitlines()[-1] == ("cannot delete Pods with local storage (use --delete-emptydir-data to "
                                      f"override): {', '.join('default/' + p for p in on01)}")
    proxy, _ = _addons(kubesim, "node01")
    r = kubesim("drain node01 --ignore-daemonsets --delete-emptydir-data")
    # upstream's later filters drop the local-storage warning; kube-proxy's stays
    assert (r.code, r.err) == (0, f"Warning: ignoring DaemonSet-managed Pods: {', '.join(proxy)}\n")
    assert r.out.splitlines()[0] == "node/node01 already cordoned"
    assert _on(kubesim, "node01", "app=cache") == []


def test_drain_skips_mirror_pods(kubesim):
    # kubeadm's static pods are mirror pods: skipped without a word; its kube-proxy needs the flag,
    # and the CoreDNS pod seed 42 puts on the control plane is evicted
    _, dns = _addons(kubesim, "controlplane")
    out = kubesim.ok("drain controlplane --ignore-daemonsets")
    assert out.splitlines()[0] == "node/controlplane cordoned" and out.endswith("node/controlplane drained\n")
    assert [ln for ln in out.splitlines() if ln.startswith("evicting")] == [f"evicting pod {p}" for p in dns]
    assert sum(1 for p in obj(kubesim, "pods -n kube-system")["items"]
               if p["metadata"]["name"].endswith("-controlplane")) == 4


def test_drain_dry_run_changes_nothing(workloads):
    moving = sorted(["bare"] + _on(workloads, "node01", "app=web"))
    _, dns = _addons(workloads, "node01")
    before = snapshot(workloads.state_dir)
    r = workloads("drain node01 --ignore-daemonsets --force --dry-run=client")
    assert r.code == 0
    assert r.out.splitlines() == ["node/node01 cordoned (dry run)"] + \
        [f"evicting pod default/{p} (dry run)" for p in moving] + [f"evicting pod {p} (dry run)" for p in dns] + \
        ["node/node01 drained (dry run)"]
    assert snapshot(workloads.state_dir) == before


@pytest.mark.parametrize("command, stderr", [
    ("drain nope", 'Error from server (NotFound): nodes "nope" not found'),
    ("drain", "error: USAGE: drain NODE [flags]\nSee 'kubesim drain -h' for help and examples"),
    ("drain node01 -l x=y",
     "error: cannot specify both a node name and a --selector option\nSee 'kubesim drain -h' for help and examples"),
    ("drain node01 --pod-selector=a=b=c", "error: --pod-selector=<pod_selector> must be a valid label selector"),
], ids=["a missing node", "no node", "a node and a selector", "a bad pod selector"])
def test_drain_refuses_bad_input_and_changes_nothing(workloads, command, stderr):
    fails_cleanly(workloads, command, stderr + "\n")


@pytest.mark.parametrize("flag, line, replicas", [
    ("--dry-run", "helpers.go:719] --dry-run is deprecated and can be replaced with --dry-run=client.", 3),
    ("--dry-run=true", "helpers.go:733] --dry-run=true is deprecated (boolean value) and can be replaced with "
                       "--dry-run=client.", 3),
    ("--dry-run=false", "helpers.go:736] --dry-run=false is deprecated (boolean value) and can be replaced with "
                        "--dry-run=none.", 5),
], ids=["bare", "true", "false"])
def test_deprecated_dry_run_spellings_warn_as_kubectl_does(web, flag, line, replicas):
    r = web(f"scale deployment/web --replicas=5 {flag}")
    assert r.code == 0 and r.err.endswith(line + "\n") and r.err.startswith("W")
    assert obj(web, "deployment/web")["spec"]["replicas"] == replicas


@pytest.mark.parametrize("command, stderr", [
    ("scale deployment/web --replicas=5 --record=tRuE",
     'error: invalid argument "tRuE" for "--record" flag: strconv.ParseBool: parsing "tRuE": invalid syntax\n'
     "See 'kubesim scale --help' for usage.\n"),
    ("rollout status deployment/web --watch=bogus",
     'error: invalid argument "bogus" for "-w, --watch" flag: strconv.ParseBool: parsing "bogus": invalid syntax\n'
     "See 'kubesim rollout status --help' for usage.\n"),
    ("set image deployment/web nginx=x --record=nope",
     'error: invalid argument "nope" for "--record" flag: strconv.ParseBool: parsing "nope": invalid syntax\n'
     "See 'kubesim set image --help' for usage.\n"),
    ("describe deployment web --show-events=nope",
     'error: invalid argument "nope" for "--show-events" flag: strconv.ParseBool: parsing "nope": invalid syntax\n'
     "See 'kubesim describe --help' for usage.\n"),
], ids=["--record", "--watch", "set image --record", "describe --show-events"])
def test_bool_flags_take_strconv_parsebool_spellings_only(web, command, stderr):
    fails_cleanly(web, command, stderr)


def test_a_background_delete_of_the_last_deployment_still_collects_its_pods(web):
    # the garbage collector runs while a command deletes owners, even when none is left after
    web.ok("delete deployment web")
    assert web("get rs").err == "No resources found in default namespace.\n"
    # nginx stops at once on SIGTERM: the pods are gone within the command
    assert web("get pods").err == "No resources found in default namespace.\n"


def test_a_foreground_deletion_waits_for_the_pods_grace_period(kubesim, tmp_path):
    """The garbage collector deletes the dependents of an owner deleted in the foreground; a pod's
    deletion is graceful whatever the policy, so the owner goes only after its pods' grace period."""
    sleeper = ("      containers:\n      - name: c\n        image: busybox\n"
               "        command: [\"sleep\", \"3600\"]\n")
    apply(kubesim, tmp_path, deployment("slow", 2).split("      containers:")[0] + sleeper)
    kubesim.ok("advance 2s")  # busybox pulled: the pods run
    kubesim.ok("delete deployment slow --cascade=foreground --wait=false")
    assert [line.split()[2] for line in kubesim.ok("get pods --no-headers").splitlines()] == ["Terminating"] * 2
    assert kubesim("get deployment slow").code == 0
    kubesim.ok("advance 29s")
    assert kubesim("get deployment slow").code == 0
    kubesim.ok("advance 1s")
    assert kubesim("get deployment slow").code == 1
    assert kubesim("get pods").err == "No resources found in default namespace.\n"


@pytest.mark.parametrize("cascade, pods_left", [
    pytest.param("foreground", 0, id="foreground: the pods go first, then the Deployment"),
    pytest.param("orphan", 3, id="orphan: the Deployment goes, its ReplicaSet and pods stay"),
])
def test_a_deployment_deleted_with_a_propagation_policy_goes_once_its_finalizer_is_done(
        web, cascade, pods_left):
    web.ok(f"delete deployment web --cascade={cascade}")
    web.ok("advance 30s")
    assert web("get deployment web").code == 1  # NotFound: the finalizer was removed, then it went
    assert len(web.ok("get pods --no-headers").splitlines()) == pods_left if pods_left else \
        web("get pods").err == "No resources found in default namespace.\n"
