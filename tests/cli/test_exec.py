"""kubesim exec and explain-network through the CLI: kubectl exec.go's texts (checked against
the oracle: a real v1.35 API server and kubectl 1.36), the NetworkPolicy walk-through of the
README, and state left untouched."""

import json

import pytest

from kubesim.testing.cli import snapshot

PODS = """
apiVersion: v1
kind: Pod
metadata: {name: two}
spec:
  containers: [{name: a, image: nginx}, {name: b, image: busybox, command: [sleep, "3600"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: dflt, annotations: {kubectl.kubernetes.io/default-container: zz}}
spec:
  containers: [{name: a, image: nginx}, {name: b, image: busybox, command: [sleep, "3600"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: picked, annotations: {kubectl.kubernetes.io/default-container: b}}
spec:
  containers: [{name: a, image: nginx}, {name: b, image: busybox, command: [sleep, "3600"]}]
---
apiVersion: v1
kind: Pod
metadata: {name: stuck}
spec:
  nodeSelector: {nope: x}
  containers: [{name: stuck, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: done}
spec:
  restartPolicy: Never
  containers: [{name: done, image: busybox, command: ["true"]}]
"""


@pytest.fixture
def cluster(kubesim):
    kubesim.ok("run web --image=nginx")
    kubesim.apply(PODS)
    kubesim.ok("advance 30s")  # the images pulled, the containers running
    return kubesim


@pytest.mark.parametrize("args,err", [
    pytest.param("exec nope -- ls", 'Error from server (NotFound): pods "nope" not found\n', id="no such pod"),
    pytest.param("exec stuck -- ls", "error: unable to upgrade connection: pod stuck does not have a host assigned\n",
                 id="an unscheduled pod"),
    pytest.param("exec web -c bad -- ls", "error: container bad is not valid for pod web out of: web\n",
                 id="an unknown container"),
    pytest.param("exec web ls", "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] "
                                "instead\nSee 'kubesim exec -h' for help and examples\n", id="a command without --"),
    pytest.param("exec web", "error: you must specify at least one command for the container\n", id="no command"),
    pytest.param("exec", "error: pod, type/name or --filename must be specified\n", id="no pod"),
    pytest.param("exec dflt -- ls", "error: container zz is not valid for pod dflt out of: a, b\n",
                 id="a default-container annotation naming no container"),
    pytest.param("exec deploy/nope -- ls", 'Error from server (NotFound): deployments.apps "nope" not found\n',
                 id="no such deployment"),
    pytest.param("exec svc/nope -- ls", 'Error from server (NotFound): services "nope" not found\n',
                 id="no such service"),
    pytest.param("exec done -- ls", "error: cannot exec into a container in a completed pod; current phase is "
                                    "Succeeded\n", id="a completed pod"),
])
def test_bad_input_is_refused_with_kubectls_text_and_changes_nothing(cluster, args, err):
    before = snapshot(cluster.state_dir)
    r = cluster(args)
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(cluster.state_dir) == before


@pytest.mark.parametrize("args,out,err", [
    pytest.param("exec two -- hostname", "two\n", 'Defaulted container "a" out of: a, b\n',
                 id="the first container, announced when there are several"),
    pytest.param("exec two -q -- hostname", "two\n", "", id="--quiet drops the notice"),
    pytest.param("exec picked -- hostname", "two\n".replace("two", "picked"), "",
                 id="the default-container annotation chooses silently"),
    pytest.param("exec two -c b -- echo hi", "hi\n", "", id="-c chooses"),
])
def test_container_defaulting(cluster, args, out, err):
    r = cluster(args)
    assert (r.code, r.out, r.err) == (0, out, err)


@pytest.mark.parametrize("args,out,err", [
    pytest.param("exec web -- ps", 'OCI runtime exec failed: exec failed: unable to start container process: '
                 'exec: "ps": executable file not found in $PATH: unknown\n', "", id="nginx ships no ps"),
    pytest.param("exec web -- /bin/bashx", 'OCI runtime exec failed: exec failed: unable to start container process: '
                 'exec: "/bin/bashx": stat /bin/bashx: no such file or directory: unknown\n', "", id="a missing path"),
    pytest.param("exec two -c b -- ps", "", 'kubesim does not simulate "ps"\n',
                 id="busybox has ps, which kubesim does not run"),
])
def test_a_failing_command_exits_with_its_code(cluster, args, out, err):
    r = cluster(args)
    assert (r.code, r.out, r.err) == (126, out, err + "command terminated with exit code 126\n")


def test_exec_into_a_deployment_uses_one_of_its_pods(kubesim):
    kubesim.ok("create deployment web --image=nginx")
    kubesim.ok("advance 30s")
    r = kubesim("exec deploy/web -- cat /usr/share/nginx/html/index.html")
    assert r.code == 0 and "<h1>Welcome to nginx!</h1>" in r.out


def test_interactive_shell_reads_commands_from_stdin(cluster):
    r = cluster("exec -i two -c b -- sh", stdin="hostname\necho hi\nexit\n")
    assert (r.code, r.out) == (0, "two\nhi\n")


POLICIES = """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny-ingress}
spec:
  podSelector: {}
  policyTypes: [Ingress]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-allow-frontend}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from: [{podSelector: {matchLabels: {role: frontend}}}]
    ports: [{port: 80}]
"""


@pytest.fixture
def walkthrough(kubesim):
    kubesim.ok("create deployment web --image=nginx")
    kubesim.ok("expose deployment web --port=80")
    kubesim.ok("run frontend --image=busybox -l role=frontend -- sleep 3600")
    kubesim.ok("run other --image=busybox -- sleep 3600")
    kubesim.ok("advance 30s")  # the images pulled, the containers running
    return kubesim


def test_the_networkpolicy_walkthrough(walkthrough):
    h = walkthrough
    assert "Welcome to nginx!" in h.ok("exec other -- wget -qO- -T 2 web")
    h.apply(POLICIES)
    assert "Welcome to nginx!" in h.ok("exec frontend -- wget -qO- -T 2 web")
    r = h("exec other -- wget -qO- -T 2 web")
    assert (r.code, r.out, r.err) == (1, "", "wget: download timed out\ncommand terminated with exit code 1\n")


def test_explain_network_json(walkthrough):
    h = walkthrough
    h.apply(POLICIES)
    r = h("explain-network other web -o json")
    exp = json.loads(r.out)
    assert r.code == 1
    assert exp["outcome"] == "timeout"
    # the default cluster's CoreDNS (kubeadm's Deployment) answers through kube-dns
    assert exp["hops"][0] == {"step": "dns", "verdict": "pass", "detail": "ready endpoints 10.244.0.2:53, "
                              "10.244.1.2:53; kube-proxy picks 10.244.0.2:53"}
    assert [(x["step"], x["verdict"], x.get("policy", "")) for x in exp["hops"][1:]] == [
        ("dns", "pass", ""), ("service", "pass", ""), ("endpoints", "pass", ""), ("egress", "pass", ""),
        ("ingress", "fail", "default/default-deny-ingress"), ("ingress", "fail", "default/web-allow-frontend"),
        ("ingress", "fail", "")]
    ok = json.loads(h("explain-network frontend web:80 -o json").out)
    assert ok["outcome"] == "connected" and ok["hops"][-1]["step"] == "port"


def test_dns_blocked_by_an_egress_policy(walkthrough):
    h = walkthrough
    h.apply("""
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-egress}
spec:
  podSelector: {matchLabels: {run: other}}
  policyTypes: [Egress]
""")
    exp = json.loads(h("explain-network other web -o json").out)
    assert exp["outcome"] == "dns-timeout"
    assert [(x["verdict"], x.get("policy", "")) for x in exp["hops"] if x["step"] == "dns"][1:] == [
        ("fail", "default/deny-egress"), ("fail", ""), ("fail", "")]
    r = h("exec other -- nslookup web")
    assert (r.code, r.out) == (1, ";; connection timed out; no servers could be reached\n\n")


def test_explain_network_table_and_exec_explain(walkthrough):
    h = walkthrough
    h.apply(POLICIES)
    table = h("explain-network other web").out
    assert table.splitlines()[0] == "From pod default/other (10.244.2.3) to web:80/TCP   outcome: timed out (packets dropped)"
    assert "default/default-deny-ingress" in table
    assert h("exec other --explain -- wget -qO- -T 2 web").out == table


@pytest.mark.parametrize("args,err", [
    pytest.param("explain-network other", "error: explain-network needs a source pod and a destination: explain-network SRC "
                                          "DST[:PORT]\n", id="no destination"),
    pytest.param("explain-network other web:http", 'error: invalid port "http" in "web:http": a number 1-65535\n',
                 id="a port that is no number"),
    pytest.param("explain-network nope web", 'Error from server (NotFound): pods "nope" not found\n', id="no such pod"),
    pytest.param("exec other --explain -- ls", 'error: --explain explains network commands (wget, curl, nc, nslookup, dig, '
                                               'host), not "ls"\n', id="--explain of a command that is not a network one"),
])
def test_explain_network_bad_input(walkthrough, args, err):
    r = walkthrough(args)
    assert (r.code, r.err) == (1, err)


def test_services_by_nodeport_and_the_behaviour_override(kubesim):
    kubesim.ok("create deployment web --image=httpd")
    kubesim.ok("expose deployment web --port=8080 --target-port=80 --type=NodePort")
    kubesim.ok("run c --image=nginx")
    kubesim.ok(["run", "app", "--image=myorg/app", "--port=8080",
                '--annotations=kubesim.io/behaviour={"app": {"ports": [8080], "http": "hi from app\\n"}}'])
    kubesim.ok("expose pod app --port=8080")
    kubesim.ok("advance 30s")
    node_port = kubesim.ok("get svc web -o jsonpath={.spec.ports[0].nodePort}")
    node_ip = kubesim.ok("get node node01 -o jsonpath={.status.addresses[0].address}")
    assert kubesim.ok("exec c -- curl -s web:8080") == "<html><body><h1>It works!</h1></body></html>\n"
    assert kubesim.ok(f"exec c -- curl -s {node_ip}:{node_port}") == "<html><body><h1>It works!</h1></body></html>\n"
    assert kubesim.ok("exec c -- curl -s app:8080/anything") == "hi from app\n"
    r = kubesim("exec c -- curl -s https://kubernetes.default")
    assert (r.code, r.err) == (60, "command terminated with exit code 60\n")
    assert kubesim.ok("exec c -- curl -sk https://kubernetes.default/healthz") == "ok"


def test_deleting_the_pods_behind_a_service_refuses_connections(kubesim):
    kubesim.ok("create deployment web --image=nginx")
    kubesim.ok("expose deployment web --port=80")
    kubesim.ok("run c --image=busybox -- sleep 3600")
    kubesim.ok("advance 30s")
    kubesim.ok("scale deployment web --replicas=0")
    r = kubesim("exec c -- wget -qO- web")
    assert r.err.startswith("wget: can't connect to remote host (10.") and r.err.endswith(
        "): Connection refused\ncommand terminated with exit code 1\n")


@pytest.mark.parametrize("run,name", [
    pytest.param("run bad --image=nginx:nosuchtag-123", "bad", id="a container whose image does not pull"),
    pytest.param("run crash --image=busybox -- false", "crash", id="a container in CrashLoopBackOff"),
])
def test_a_container_that_does_not_run_cannot_be_exec_ed(kubesim, run, name):
    kubesim.ok(run)
    r = kubesim(f"exec {name} -- ls")
    assert (r.code, r.out, r.err) == (1, "", f'error: unable to upgrade connection: container not found ("{name}")\n')


def test_a_pods_own_command_reaches_the_network_and_its_log_keeps_what_it_got(walkthrough):
    h = walkthrough
    h.apply(POLICIES)
    r = h("run tmp --image=busybox --rm -i --restart=Never -- wget -qO- -T 2 web")
    assert r.out.startswith("wget: download timed out\n")
    r = h("run tmp --image=busybox --labels=role=frontend --rm -i --restart=Never -- wget -qO- -T 2 web")
    assert "<h1>Welcome to nginx!</h1>" in r.out
    h.ok("run once --image=busybox --restart=Never -- nslookup web.default.svc.cluster.local")
    h.ok("advance 5s")
    before = h.ok("logs once")
    assert "Name:\tweb.default.svc.cluster.local\n" in before
    h.ok("delete svc web")
    assert h.ok("logs once") == before  # what the command got when it ran, not what it would get now


def test_nc_checks_a_port_as_policies_allow(walkthrough):
    h = walkthrough
    h.apply(POLICIES)
    r = h("exec frontend -- nc -zv -w 2 web 80")
    assert (r.code, r.err) == (0, f"web ({h.ok('get svc web -o jsonpath={.spec.clusterIP}')}:80) open\n")
    r = h("exec other -- nc -zv -w 2 web 80")
    assert r.code == 1 and r.err.endswith(":80): Connection timed out\ncommand terminated with exit code 1\n")
    assert "outcome: timed out" in h.ok("exec other --explain -- nc -zv -w 2 web 80")


@pytest.mark.parametrize("flags,err", [
    pytest.param("-it", "Unable to use a TTY - input is not a terminal or the right kind of file\n",
                 id="-it without a terminal: SetupTTY's notice (as the oracle's kubectl prints it)"),
    pytest.param("-t", "", id="-t without -i: no TTY, silently"),
    pytest.param("-itq", "", id="--quiet keeps the notice back"),
])
def test_tty_without_a_terminal(cluster, flags, err):
    r = cluster(f"exec {flags} web -- hostname")
    assert (r.code, r.out, r.err) == (0, "web\n", err)


@pytest.mark.parametrize("command,seconds", [
    pytest.param("sleep 30", 30, id="sleep"),
    pytest.param("sleep 1m", 60, id="sleep with a suffix"),
    pytest.param("sh -c 'sleep 5; echo hi; sleep 5'", 10, id="the sleeps of a script"),
    pytest.param("wget -T 3 -qO- http://10.99.99.99", 3, id="wget waiting for a peer that never answers"),
    pytest.param("nc -w 4 10.99.99.99 80", 4, id="nc -w"),
    pytest.param("sleep infinity", 0, id="sleep infinity returns at once"),
    pytest.param("sleep x", 0, id="a refused sleep"),
])
def test_the_time_a_command_takes_passes_on_the_clock(cluster, command, seconds):
    """kubectl exec returns when the command does: the cluster's clock moves on by what its
    sleeps and its tools' timeouts took (pods age, back-offs expire)."""
    before = cluster.ok("get pod web --no-headers").split()[-1]
    cluster(f"exec two -c b -- {command}")
    after = cluster.ok("get pod web --no-headers").split()[-1]
    assert (before, after) == ("30s", _age(30 + seconds))


def _age(seconds: int) -> str:
    return f"{seconds}s" if seconds < 120 else f"{seconds // 60}m{seconds % 60}s"
