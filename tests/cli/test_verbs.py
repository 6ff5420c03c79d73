"""Each verb end to end, through the CLI with a pinned clock and seed."""

import json

import pytest

from kubesim.testing.cli import snapshot
from kubesim.testing.controllers import daemonset_obj

POD = """apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels:
    app: {app}
spec:
{extra}  containers:
  - name: c
    image: nginx:1.27
"""


def pod(name, app="web", node=None, selector=None):
    extra = f"  nodeName: {node}\n" if node else ""
    if selector:
        extra += f"  nodeSelector:\n    {selector}\n"
    return POD.format(name=name, app=app, extra=extra)


@pytest.fixture
def cluster(kubesim, tmp_path):
    f = tmp_path / "pods.yaml"
    f.write_text("---\n".join([pod("a", "web", "node01"), pod("b", "web", "node02"), pod("c", "db", "node01"),
                               pod("pending", "db", selector="disk: none")]))
    kubesim.ok(f"apply -f {f}")
    kubesim.ok("advance 5s")  # the image pulls: the pods run
    return kubesim


# -- the default cluster ----------------------------------------------------------------------

def test_a_fresh_state_is_a_kubeadm_like_cluster(kubesim):
    out = kubesim.ok("get nodes")
    assert out.splitlines() == [
        "NAME           STATUS   ROLES           AGE   VERSION",
        "controlplane   Ready    control-plane   0s    v1.35.0",
        "node01         Ready    <none>          0s    v1.35.0",
        "node02         Ready    <none>          0s    v1.35.0",
    ]
    assert [line.split()[0] for line in kubesim.ok("get ns").splitlines()[1:]] == \
        ["default", "kube-node-lease", "kube-public", "kube-system"]


def test_the_control_plane_node_is_tainted_and_labelled_as_kubeadm_does(kubesim):
    node = json.loads(kubesim.ok("get node controlplane -o json"))
    assert node["spec"]["taints"] == [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]
    assert node["metadata"]["labels"]["node-role.kubernetes.io/control-plane"] == ""
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "controlplane"
    assert node["status"]["allocatable"]["cpu"] == "4"
    assert node["spec"]["podCIDR"] == "10.244.0.0/24"


def test_nodes_report_what_a_registered_kubelet_reports(kubesim):
    node = json.loads(kubesim.ok("get node node01 -o json"))
    st = node["status"]
    assert [c["type"] for c in st["conditions"]] == ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]
    assert st["conditions"][-1]["reason"] == "KubeletReady"
    assert st["capacity"]["memory"] == "8388608Ki"
    assert st["allocatable"]["memory"] == "8286208Ki"  # capacity - 100Mi hard eviction
    assert st["nodeInfo"]["kubeletVersion"] == "v1.35.0"
    assert {a["type"] for a in st["addresses"]} == {"InternalIP", "Hostname"}


def test_a_node_applied_without_status_registers_and_keeps_what_it_set(kubesim, tmp_path):
    f = tmp_path / "n.yaml"
    f.write_text("apiVersion: v1\nkind: Node\nmetadata:\n  name: big\n  labels: {disk: ssd}\n"
                 "status:\n  capacity: {cpu: '16', memory: 64Gi, pods: '250'}\n")
    assert kubesim.ok(f"apply -f {f}") == "node/big created\n"
    node = json.loads(kubesim.ok("get node big -o json"))
    assert node["status"]["capacity"]["cpu"] == "16"
    assert node["status"]["allocatable"]["pods"] == "250"
    assert node["metadata"]["labels"]["disk"] == "ssd"
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == "big"
    assert node["spec"]["podCIDR"] == "10.244.3.0/24"


# -- apply / create / delete ------------------------------------------------------------------

def test_apply_creates_then_reports_unchanged_then_configured(kubesim, tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(pod("x", node="node01"))
    assert kubesim.ok(f"apply -f {f}") == "pod/x created\n"
    before = snapshot(kubesim.state_dir)
    assert kubesim.ok(f"apply -f {f}") == "pod/x unchanged\n"
    assert snapshot(kubesim.state_dir) == before
    f.write_text(pod("x", app="other", node="node01"))
    assert kubesim.ok(f"apply -f {f}") == "pod/x configured\n"
    got = json.loads(kubesim.ok("get pod x -o json"))
    assert got["metadata"]["labels"] == {"app": "other"}
    last = json.loads(got["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    assert last["metadata"] == {"annotations": {}, "labels": {"app": "other"}, "name": "x", "namespace": "default"}


def test_apply_removes_a_field_the_last_configuration_had_and_the_new_one_drops(kubesim, tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(pod("x", node="node01").replace("  labels:\n    app: web\n", "  labels:\n    app: web\n    tier: a\n"))
    kubesim.ok(f"apply -f {f}")
    f.write_text(pod("x", node="node01"))
    kubesim.ok(f"apply -f {f}")
    assert json.loads(kubesim.ok("get pod x -o json"))["metadata"]["labels"] == {"app": "web"}


def test_apply_refuses_a_change_to_an_immutable_pod_field(kubesim, tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text(pod("x", node="node01"))
    kubesim.ok(f"apply -f {f}")
    before = snapshot(kubesim.state_dir)
    f.write_text(pod("x", node="node01").replace("  - name: c\n", "  - name: c\n    workingDir: /tmp\n"))
    r = kubesim(f"apply -f {f}")
    assert r.code == 1 and r.err.startswith('The Pod "x" is invalid: spec: Forbidden: pod updates may not change fields')
    assert snapshot(kubesim.state_dir) == before


def test_apply_reads_standard_input_and_json(kubesim):
    doc = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    assert kubesim.ok("apply -f -", stdin=doc) == "namespace/team-a created\n"


def test_create_makes_a_namespace_by_name(kubesim):
    assert kubesim.ok("create namespace dev") == "namespace/dev created\n"
    r = kubesim("create namespace dev")
    assert (r.code, r.err) == (1, 'Error from server (AlreadyExists): namespaces "dev" already exists\n')


def test_delete_by_name_by_file_and_by_selector(cluster, tmp_path):
    assert cluster.ok("delete pod a") == 'pod "a" deleted from default namespace\n'
    assert cluster.ok("delete pods -l app=db") == \
        'pod "c" deleted from default namespace\npod "pending" deleted from default namespace\n'
    f = tmp_path / "b.yaml"
    f.write_text(pod("b", "web", "node02"))
    assert cluster.ok(f"delete -f {f}") == 'pod "b" deleted from default namespace\n'
    r = cluster("get pods")
    assert (r.out, r.err) == ("", "No resources found in default namespace.\n")


@pytest.mark.parametrize("flag", ["--wait", "--wait=false", "--wait=true"])
def test_delete_accepts_kubectls_wait_flag(cluster, flag):
    assert cluster.ok(f"delete pod a {flag}") == 'pod "a" deleted from default namespace\n'


def test_delete_refuses_a_bad_wait_value_and_changes_nothing(cluster):
    before = snapshot(cluster.state_dir)
    r = cluster("delete pod a --wait=maybe")
    assert (r.code, r.err) == (1, 'error: invalid argument "maybe" for "--wait" flag: strconv.ParseBool: '
                                  'parsing "maybe": invalid syntax\nSee \'kubesim delete --help\' for usage.\n')
    assert snapshot(cluster.state_dir) == before


def test_delete_of_a_missing_object_is_not_found(kubesim):
    r = kubesim("delete pod ghost")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): pods "ghost" not found\n')
    assert kubesim("delete pod ghost --ignore-not-found").code == 0


def test_deleting_a_namespace_deletes_what_is_in_it(kubesim, tmp_path):
    kubesim.ok("create namespace tmp")
    f = tmp_path / "p.yaml"
    f.write_text(pod("x", node="node01"))
    kubesim.ok(f"apply -f {f} -n tmp")
    assert kubesim.ok("delete namespace tmp") == 'namespace "tmp" deleted\n'
    assert kubesim("get pods -n tmp").err == "No resources found in tmp namespace.\n"


# -- manual scheduling (seed 000) ----------------------------------------------------------------

def test_a_pod_with_node_name_runs_there_without_the_scheduler(cluster):
    lines = cluster.ok("get pods -o wide").splitlines()
    assert lines[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE",
                                "READINESS", "GATES"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert rows["a"][1:3] == ["1/1", "Running"] and rows["a"][6] == "node01"
    assert rows["a"][5].startswith("10.244.1.")
    assert rows["b"][5].startswith("10.244.2.")


def test_manual_scheduling_ignores_cordons_and_taints(kubesim, tmp_path):
    kubesim.ok("cordon node01")
    f = tmp_path / "p.yaml"
    f.write_text(pod("cp", node="controlplane") + "---\n" + pod("cordoned", node="node01"))
    kubesim.ok(f"apply -f {f}")
    kubesim.ok("advance 5s")  # the image pulls
    out = kubesim.ok("get pods --no-headers -o custom-columns=N:.metadata.name,S:.status.phase,NODE:.spec.nodeName")
    assert out.split("\n")[:2] == ["cordoned   Running   node01", "cp         Running   controlplane"]


def test_pod_ips_are_unique_per_node(kubesim, tmp_path):
    f = tmp_path / "p.yaml"
    f.write_text("---\n".join(pod(f"p{i}", node="node01") for i in range(5)))
    kubesim.ok(f"apply -f {f}")
    ips = kubesim.ok("get pods -o jsonpath={.items[*].status.podIP}").split()
    assert len(set(ips)) == 5 and all(ip.startswith("10.244.1.") for ip in ips)


# -- get ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    pytest.param("get pods -o name", "pod/a\npod/b\npod/c\npod/pending\n", id="-o name lists kind/name"),
    pytest.param("get pods -l app=web -o name", "pod/a\npod/b\n", id="an equality selector filters"),
    pytest.param("get pods -l 'app in (db),app!=web' -o name", "pod/c\npod/pending\n", id="a set-based selector filters"),
    pytest.param("get pods -l '!app' -o name", "", id="a does-not-exist selector can match nothing"),
    pytest.param("get pods --field-selector spec.nodeName=node01 -o name", "pod/a\npod/c\n", id="a field selector on the node"),
    pytest.param("get pods --field-selector status.phase=Pending -o name", "pod/pending\n", id="a field selector on the phase"),
    pytest.param("get pods --field-selector metadata.name!=a,metadata.namespace=default -o name", "pod/b\npod/c\npod/pending\n",
                 id="field selectors combine"),
    pytest.param("get pods -o jsonpath={.items[0].metadata.name}", "a", id="jsonpath over the list"),
    pytest.param("get pod a -o jsonpath={.spec.nodeName}", "node01", id="jsonpath over one object"),
    pytest.param("get pods --sort-by=.spec.nodeName -o name", "pod/pending\npod/a\npod/c\npod/b\n",
                 id="sort by a field puts objects without it first"),
    pytest.param("get pods --sort-by={.metadata.labels.app} -o name", "pod/c\npod/pending\npod/a\npod/b\n",
                 id="sort by a braced JSONPath is stable"),
])
def test_get_selects_and_formats(cluster, args, expected):
    assert cluster.ok(args) == expected


@pytest.mark.parametrize("args", ["get pods --sort-by=.metadata.bogus", "get pods --sort-by=.metadata.bogus -o name",
                                  "get pods --sort-by={.metadata.bogus} -o yaml"])
def test_sorting_by_a_field_no_object_has_is_kubectls_error(cluster, args):
    # get/sorter.go NewTableSorter and SortObjects: the field must be found in some object
    r = cluster(args)
    assert (r.code, r.out, r.err) == (1, "", 'error: couldn\'t find any field with path "{.metadata.bogus}" in the '
                                             "list of objects\n")
    assert cluster.ok("get pods -n kube-public --sort-by=.metadata.bogus") == ""  # nothing to sort: no error


def test_get_yaml_of_one_object_is_the_object_and_of_several_a_list(cluster):
    import yaml

    one = yaml.safe_load(cluster.ok("get pod a -o yaml"))
    assert one["kind"] == "Pod" and one["metadata"]["name"] == "a"
    many = yaml.safe_load(cluster.ok("get pods -o yaml"))
    assert many["kind"] == "List" and len(many["items"]) == 4
    assert many["metadata"] == {"resourceVersion": ""}


def test_get_show_labels_and_label_columns(cluster):
    lines = cluster.ok("get pods --show-labels -L app").splitlines()
    assert lines[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "APP", "LABELS"]
    assert lines[1].split()[-2:] == ["web", "app=web"]


def test_get_no_headers_and_all_namespaces(cluster):
    lines = cluster.ok("get pods -A --no-headers").splitlines()
    # + kubeadm's static pods, its 2 CoreDNS pods and a kube-proxy pod per node
    assert [ln.split()[0] for ln in lines] == ["default"] * 4 + ["kube-system"] * 9
    assert cluster.ok("get pods -A").splitlines()[0].split()[:2] == ["NAMESPACE", "NAME"]


def test_get_several_kinds_prefixes_names_with_the_kind(cluster):
    out = cluster.ok("get pods,nodes --no-headers")
    names = [line.split()[0] for line in out.splitlines() if line]
    assert "pod/a" in names and "node/node01" in names


def test_get_all_shows_pods_with_kind_prefix(cluster):
    out = cluster.ok("get all")
    assert out.splitlines()[0].split()[0] == "NAME"
    assert out.splitlines()[1].startswith("pod/a ")


def test_get_all_lists_kinds_in_discovery_order(kubesim):
    # a real cluster: the core group first, then apps, each group's resources by name (the
    # kubernetes Service is always there)
    kubesim.ok("create deployment web --image=nginx --replicas=1")
    kubesim.ok("apply -f -", stdin=json.dumps(daemonset_obj()))
    kinds = [line.split("/")[0] for line in kubesim.ok("get all -o name").splitlines()]
    assert list(dict.fromkeys(kinds)) == ["pod", "service", "daemonset.apps", "deployment.apps", "replicaset.apps"]


def test_get_a_missing_name_reports_not_found_and_prints_the_rest(cluster):
    r = cluster("get pods a ghost -o name")
    assert (r.code, r.out, r.err) == (1, "pod/a\n", 'Error from server (NotFound): pods "ghost" not found\n')


def test_get_an_unknown_resource_type(kubesim):
    r = kubesim("get widgets")
    assert (r.code, r.err) == (1, 'error: the server doesn\'t have a resource type "widgets"\n')


def test_get_by_short_name_and_singular(cluster):
    assert cluster.ok("get po a -o name") == "pod/a\n"
    assert cluster.ok("get no node01 -o name") == "node/node01\n"
    assert cluster.ok("get namespace default -o name") == "namespace/default\n"


def test_get_custom_columns(cluster):
    out = cluster.ok("get pods -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName")
    assert out.splitlines()[:2] == ["NAME      NODE", "a         node01"]
    assert out.splitlines()[-1] == "pending   <none>"


_PODS = '"/v1, Resource=pods"'


# the texts a real v1.35 cluster and kubectl 1.36 print (checked with the conformance oracle): the
# server refuses a selector it cannot parse; kubectl's builder names the resource and selectors
@pytest.mark.parametrize("command,err", [
    ("get pods --field-selector spec.colour=blue",
     f'Error from server (BadRequest): Unable to find {_PODS} that match label selector "", field selector '
     '"spec.colour=blue": field label not supported: spec.colour'),
    ("get pods --field-selector 'a b'",
     f'Error from server (BadRequest): Unable to find {_PODS} that match label selector "", field selector '
     '"a b": invalid selector: \'a b\'; can\'t understand \'a b\''),
    ("get deploy -l 'app in (a'",
     'Error from server (BadRequest): Unable to find "apps/v1, Resource=deployments" that match label selector '
     '"app in (a", field selector "": unable to parse requirement: found \'\', expected: \',\' or \')\''),
    ("delete pods -l 'a b'",
     f'Error from server (BadRequest): Unable to find {_PODS} that match label selector "a b", field selector "": '
     "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("label pods -l 'a b' k=v",
     f'Error from server (BadRequest): Unable to find {_PODS} that match label selector "a b", field selector "": '
     "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
    ("get pods a -l app=web", "error: name cannot be provided when a selector is specified"),
    ("delete pods a --all", "error: name cannot be provided when a selector is specified"),
    ("describe pods a -l app=web", "error: name cannot be provided when a selector is specified"),
    ("get pods/a -l app=web", "error: selectors and the all flag cannot be used when passing resource/name arguments"),
    # label, annotate and taint: every resource before the first change; each missing name reported
    ("label pods a c=d e", "error: all resources must be specified before label changes: e"),
    ("annotate pods a x=y b", "error: all resources must be specified before annotation changes: b"),
    ("taint nodes node01 k=v:NoSchedule b", "error: all resources must be specified before taint changes: b"),
    ("label pods ghost1 ghost2 k=v",
     'Error from server (NotFound): pods "ghost1" not found\nError from server (NotFound): pods "ghost2" not found'),
    ("taint nodes node01 k=v:Bogus",
     "error: invalid taint effect: Bogus, unsupported taint effect\nSee 'kubesim taint -h' for help and examples"),
    # taint/utils.go parseTaints: Go's %v of the corev1.Taint
    ("taint nodes node01 a=b:NoSchedule a=c:NoSchedule",
     "error: duplicated taints with the same key and effect: {a c NoSchedule <nil>}\n"
     "See 'kubesim taint -h' for help and examples"),
    ("taint nodes node01 a=b=c:NoSchedule",
     "error: invalid taint spec: a=b=c:NoSchedule\nSee 'kubesim taint -h' for help and examples"),
    ("get pods -o Wide", 'error: unable to match a printer suitable for the output format "Wide", allowed formats '
     "are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,"
     "jsonpath-file,kyaml,name,template,templatefile,wide,yaml"),
    ("get pods -o custom-columns", "error: custom-columns format specified but no custom columns given"),
    # a duration flag is Go's time.ParseDuration, refused as pflag refuses a bad value
    ("scale deploy web --replicas=1 --timeout=5",
     'error: invalid argument "5" for "--timeout" flag: time: missing unit in duration "5"\n'
     "See 'kubesim scale --help' for usage."),
    ("rollout status deploy/web --timeout=5x",
     'error: invalid argument "5x" for "--timeout" flag: time: unknown unit "x" in duration "5x"\n'
     "See 'kubesim rollout status --help' for usage."),
])
def test_refused_selectors_and_arguments(cluster, command, err):
    before = snapshot(cluster.state_dir)
    r = cluster(command)
    assert (r.code, r.out, r.err) == (1, "", err + "\n")
    assert snapshot(cluster.state_dir) == before


def test_an_output_format_is_checked_before_anything_is_read(kubesim):
    r = kubesim("get pods -o bogus")  # no pods: kubectl still refuses the format first
    assert (r.code, r.out) == (1, "") and r.err.startswith('error: unable to match a printer suitable for the output')


def test_jsonpath_as_json_prints_each_result_list_as_json(kubesim):
    assert kubesim.ok("get nodes -o jsonpath-as-json={.items[*].metadata.name}") == \
        '[\n    "controlplane",\n    "node01",\n    "node02"\n]\n'


def test_get_raw_configz_shows_the_static_pod_path(kubesim):
    cfg = json.loads(kubesim.ok("get --raw /api/v1/nodes/node01/proxy/configz"))
    path = cfg["kubeletconfig"]["staticPodPath"]
    assert path.endswith("nodes/node01/manifests")
    node = json.loads(kubesim.ok("get node node01 -o json"))
    assert node["metadata"]["annotations"]["kubesim.io/static-pod-path"] == path


# -- describe ----------------------------------------------------------------------------------------

# describe.go: events by default for one object named exactly, not for several or a prefix match
@pytest.mark.parametrize("command, sections", [
    ("describe pod a", ["Events:"]),
    ("describe pod a --show-events=false", []),
    ("describe pods", []),
    ("describe pods -l app=web", []),
    ("describe pods --show-events=true -l app=web", ["Events:", "Events:"]),
    ("describe pod pend", []),  # a prefix match
])
def test_describe_shows_events_as_kubectl_decides(cluster, command, sections):
    out = cluster.ok(command)
    assert [line for line in out.splitlines() if line.startswith("Events:")] == sections


def test_describe_pod_shows_its_node_status_and_events(cluster):
    out = cluster.ok("describe pod a")
    assert out.startswith("Name:             a\nNamespace:        default\n")
    assert "Node:             node01/" in out
    assert "Status:           Running" in out
    assert "QoS Class:                   BestEffort" in out
    assert "spec.containers{c}: Container started" in out


def test_describe_node_lists_its_pods_and_allocated_resources(cluster):
    out = cluster.ok("describe node node01")
    assert out.startswith("Name:               node01\n")
    assert "Non-terminated Pods:          (4 in total)" in out  # + a CoreDNS pod and kube-proxy
    assert "Allocated resources:" in out
    assert "kubesim.io/static-pod-path" in out


def test_describe_matches_a_name_prefix(cluster):
    out = cluster.ok("describe pods pend")
    assert out.startswith("Name:             pending\n")


def test_describe_namespace(kubesim):
    out = kubesim.ok("describe namespace default")
    assert out.startswith("Name:         default\n")
    assert "Status:       Active" in out


# -- label / annotate / taint / cordon ----------------------------------------------------------------

def test_label_add_overwrite_and_remove(cluster):
    assert cluster.ok("label pod a tier=front") == "pod/a labeled\n"
    r = cluster("label pod a tier=back")
    assert (r.code, r.err) == (1, "error: 'tier' already has a value (front), and --overwrite is false\n")
    assert cluster.ok("label pod a tier=back --overwrite") == "pod/a labeled\n"
    assert cluster.ok("label pod a tier-") == "pod/a unlabeled\n"
    assert cluster.ok("get pod a -o jsonpath={.metadata.labels}") == '{"app":"web"}'


def test_label_nodes_by_selector(cluster):
    assert cluster.ok("label nodes -l kubernetes.io/hostname=node01 disk=ssd") == "node/node01 labeled\n"


def test_annotate(cluster):
    assert cluster.ok("annotate pod a note=hello") == "pod/a annotated\n"
    assert cluster.ok("get pod a -o jsonpath={.metadata.annotations.note}") == "hello"


@pytest.mark.parametrize("args, line, taints", [
    pytest.param("node01 dedicated=gpu:NoSchedule", "node/node01 tainted",
                 [{"effect": "NoSchedule", "key": "dedicated", "value": "gpu"}], id="a taint with a value is added"),
    pytest.param("node01 dedicated:PreferNoSchedule", "node/node01 tainted",
                 [{"effect": "PreferNoSchedule", "key": "dedicated"}], id="a taint without a value is added"),
])
def test_taint_adds(kubesim, args, line, taints):
    assert kubesim.ok(f"taint nodes {args}") == line + "\n"
    assert json.loads(kubesim.ok("get node node01 -o json"))["spec"]["taints"] == taints


def test_taint_remove_overwrite_and_errors(kubesim):
    kubesim.ok("taint nodes node01 dedicated=gpu:NoSchedule")
    r = kubesim("taint nodes node01 dedicated=cpu:NoSchedule")
    assert (r.code, r.err) == (1, "error: node node01 already has dedicated taint(s) with same effect(s) and --overwrite is false\n")
    assert kubesim.ok("taint nodes node01 dedicated=cpu:NoSchedule --overwrite") == "node/node01 modified\n"
    assert kubesim.ok("taint nodes node01 dedicated:NoSchedule-") == "node/node01 untainted\n"
    r = kubesim("taint nodes node01 dedicated-")
    assert (r.code, r.err) == (1, 'error: taint "dedicated" not found\n')
    r = kubesim("taint nodes node01 dedicated=x:Sometimes")
    assert (r.code, r.err) == (1, "error: invalid taint effect: Sometimes, unsupported taint effect\n"
                                  "See 'kubesim taint -h' for help and examples\n")


def test_a_no_execute_taint_is_stored_as_kubectl_sends_it_without_time_added(kubesim):
    """Neither kubectl (taint/utils.go parseTaints) nor the API server sets timeAdded; only the
    node lifecycle controller stamps the taints it adds itself (SwapNodeControllerTaint)."""
    kubesim.ok("taint nodes node02 k=v:NoExecute")
    assert json.loads(kubesim.ok("get node node02 -o json"))["spec"]["taints"] == [
        {"effect": "NoExecute", "key": "k", "value": "v"}]


def test_cordon_and_uncordon(kubesim):
    assert kubesim.ok("cordon node01") == "node/node01 cordoned\n"
    assert kubesim.ok("cordon node01") == "node/node01 already cordoned\n"
    row = [line for line in kubesim.ok("get nodes").splitlines() if line.startswith("node01")][0]
    assert row.split()[1] == "Ready,SchedulingDisabled"
    node = json.loads(kubesim.ok("get node node01 -o json"))
    assert {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable",
            "timeAdded": "2026-11-22T10:00:00Z"} in node["spec"]["taints"]
    assert kubesim.ok("uncordon node01") == "node/node01 uncordoned\n"
    assert "taints" not in json.loads(kubesim.ok("get node node01 -o json"))["spec"]


# -- kubesim's own verbs ------------------------------------------------------------------------------

def test_cluster_init_makes_another_shape(kubesim):
    kubesim.ok("cluster init --nodes 5 --cpu 8 --memory 16Gi --zones 2")
    nodes = json.loads(kubesim.ok("get nodes -o json"))["items"]
    assert [n["metadata"]["name"] for n in nodes] == ["controlplane"] + [f"node0{i}" for i in range(1, 6)]
    assert nodes[1]["status"]["capacity"]["cpu"] == "8"
    assert {n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes} == {"zone-a", "zone-b"}


def test_cluster_init_empty_has_no_nodes(kubesim):
    kubesim.ok("cluster init --empty")
    assert kubesim("get nodes").err == "No resources found\n"


def test_cluster_reset_returns_to_the_default_cluster(cluster):
    cluster.ok("cluster reset")
    assert cluster("get pods").err == "No resources found in default namespace.\n"
    assert len(cluster.ok("get nodes --no-headers").splitlines()) == 3


def test_advance_moves_the_clock(cluster):
    cluster.ok("advance 90s")
    row = [line for line in cluster.ok("get pods").splitlines() if line.startswith("a ")][0]
    assert row.split()[-1] == "95s"  # created 5 s before (the fixture waits for the pulls)


def test_api_resources(kubesim):
    out = kubesim.ok("api-resources")
    assert out.splitlines()[0].split() == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    rows = [line.split() for line in out.splitlines()[1:]]
    assert ["pods", "po", "v1", "true", "Pod"] in rows
    assert ["deployments", "deploy", "apps/v1", "true", "Deployment"] in rows
    assert not any(r[0] == "kubeschedulerconfigurations" for r in rows)  # not served by an API server


@pytest.mark.parametrize("flags,names", [
    # upstream apiresources.go: filters combine; --verbs and --categories need every value listed
    ("--api-group=apps", ["controllerrevisions.apps", "daemonsets.apps", "deployments.apps", "replicasets.apps",
                          "statefulsets.apps"]),
    ("--categories=all", ["pods", "services", "daemonsets.apps", "deployments.apps", "replicasets.apps",
                          "statefulsets.apps", "horizontalpodautoscalers.autoscaling", "cronjobs.batch", "jobs.batch"]),
    ("--namespaced=false --verbs=create,delete --sort-by=kind",
     ["csinodes.storage.k8s.io", "clusterroles.rbac.authorization.k8s.io",
      "clusterrolebindings.rbac.authorization.k8s.io", "customresourcedefinitions.apiextensions.k8s.io",
      "ingressclasses.networking.k8s.io", "namespaces", "nodes",
      "persistentvolumes", "priorityclasses.scheduling.k8s.io", "runtimeclasses.node.k8s.io",
      "storageclasses.storage.k8s.io"]),
])
def test_api_resources_filters(kubesim, flags, names):
    assert kubesim.ok(f"api-resources {flags} -o name").split() == names


def test_api_resources_sort_by_unknown_field(kubesim):
    r = kubesim("api-resources --sort-by=age")
    assert (r.code, r.out, r.err) == (1, "", "error: --sort-by accepts only name or kind\n")


def test_read_only_commands_rewrite_nothing(cluster):
    before = snapshot(cluster.state_dir)
    for cmd in ("get pods", "get nodes -o wide", "describe node node01", "get pods -A -o yaml"):
        cluster.ok(cmd)
    assert snapshot(cluster.state_dir) == before


def test_seeded_runs_repeat_exactly(tmp_path):
    from kubesim.testing.cli import Harness

    outs = []
    for i in range(2):
        h = Harness(tmp_path / f"s{i}")
        h.ok("get nodes")
        outs.append(h.ok("get nodes -o json"))
    assert outs[0].replace(str(tmp_path / "s0"), "S") == outs[1].replace(str(tmp_path / "s1"), "S")


def _verbs():
    from kubesim.cli.main import _available_verbs

    return sorted(_available_verbs())


@pytest.mark.parametrize("verb", _verbs())
def test_every_verb_prints_its_help(kubesim, verb, capsys):
    # kubectl's layout (tests/cli/test_help.py), on the environment's stdout, never argparse's
    r = kubesim(f"{verb} --help")
    assert r.code == 0 and f"\nUsage:\n  kubesim {verb}" in r.out
    assert capsys.readouterr().out == ""
