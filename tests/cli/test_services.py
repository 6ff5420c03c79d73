"""Services end to end: defaults, the allocators, validation, updates, and get/describe.

Every refusal text below is what a real v1.35 API server answered for the same manifest
(kubectl 1.36 printing it); the table mirrors the cases of upstream's
pkg/apis/core/validation/validation_test.go TestValidateServiceCreate that a user meets.
"""

import json

import pytest

from kubesim.testing.cli import Harness, snapshot

HEAD = "apiVersion: v1\nkind: Service\nmetadata: {name: bad}\n"


@pytest.fixture
def h(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init --empty")
    h.apply("apiVersion: v1\nkind: Service\nmetadata: {name: taken}\nspec: {type: NodePort, clusterIP: 10.96.5.5, "
            "ports: [{port: 80, nodePort: 30360}]}\n")
    return h


BAD = [
    ("a cluster IP outside the service range", "spec: {clusterIP: 10.0.0.5, ports: [{port: 80}]}",
     'The Service "bad" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.5"]: failed to allocate IP 10.0.0.5: '
     "the provided network does not match the current range"),
    ("the kubernetes service's cluster IP", "spec: {clusterIP: 10.96.0.1, ports: [{port: 80}]}",
     'The Service "bad" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.1"]: failed to allocate IP 10.96.0.1: '
     "provided IP is already allocated"),
    ("another service's cluster IP", "spec: {clusterIP: 10.96.5.5, ports: [{port: 80}]}",
     'The Service "bad" is invalid: spec.clusterIPs: Invalid value: ["10.96.5.5"]: failed to allocate IP 10.96.5.5: '
     "provided IP is already allocated"),
    ("a cluster IP that is no IP", "spec: {clusterIP: abc, ports: [{port: 80}]}",
     'The Service "bad" is invalid: spec.clusterIPs[0]: Invalid value: "abc": must be a valid IP address, '
     "(e.g. 10.9.8.7 or 2001:db8::ffff)"),
    ("a node port below the range", "spec: {type: NodePort, ports: [{port: 80, nodePort: 29999}]}",
     'The Service "bad" is invalid: spec.ports[0].nodePort: Invalid value: 29999: provided port is not in the valid '
     "range. The range of valid ports is 30000-32767"),
    ("another service's node port", "spec: {type: NodePort, ports: [{port: 80, nodePort: 30360}]}",
     'The Service "bad" is invalid: spec.ports[0].nodePort: Invalid value: 30360: provided port is already allocated'),
    ("one node port for two ports", "spec: {type: NodePort, ports: [{port: 80, nodePort: 30500, name: a}, "
     "{port: 81, nodePort: 30500, name: b}]}",
     'The Service "bad" is invalid: spec.ports[1].nodePort: Invalid value: 30500: provided port is already allocated'),
    ("two ports with one name", "spec: {ports: [{port: 80, name: a}, {port: 81, name: a}]}",
     'The Service "bad" is invalid: spec.ports[1].name: Duplicate value: "a"'),
    ("two ports without names", "spec: {ports: [{port: 80}, {port: 81}]}",
     'The Service "bad" is invalid: \n* spec.ports[0].name: Required value\n* spec.ports[1].name: Required value'),
    ("port 0", "spec: {ports: [{port: 0}]}",
     'The Service "bad" is invalid: \n* spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive\n'
     "* spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive"),
    ("port 70000", "spec: {ports: [{port: 70000, targetPort: 70000}]}",
     'The Service "bad" is invalid: \n* spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, '
     "inclusive\n* spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive"),
    ("no ports", "spec: {selector: {a: b}}", 'The Service "bad" is invalid: spec.ports: Required value'),
    ("an ExternalName without its name", "spec: {type: ExternalName}",
     'The Service "bad" is invalid: spec.externalName: Required value'),
    ("an ExternalName that is no DNS name", "spec: {type: ExternalName, externalName: Foo_Bar}",
     'The Service "bad" is invalid: spec.externalName: Invalid value: "Foo_Bar": a lowercase RFC 1123 subdomain '
     "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
     "character (e.g. 'example.com', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    ("an ExternalName with a cluster IP", "spec: {type: ExternalName, externalName: foo.com, clusterIP: 10.96.5.6}",
     'The Service "bad" is invalid: spec.clusterIPs: Forbidden: may not be set for ExternalName services'),
    ("an unknown protocol", "spec: {ports: [{port: 80, protocol: FOO}]}",
     'The Service "bad" is invalid: spec.ports[0].protocol: Unsupported value: "FOO": supported values: "SCTP", '
     '"TCP", "UDP"'),
    ("a target port name with an underscore", "spec: {ports: [{port: 80, targetPort: Http_x}]}",
     'The Service "bad" is invalid: spec.ports[0].targetPort: Invalid value: "Http_x": must contain only '
     "alpha-numeric characters (a-z, 0-9), and hyphens (-)"),
    ("a node port on a ClusterIP service", "spec: {ports: [{port: 80, nodePort: 30001}]}",
     'The Service "bad" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is \'ClusterIP\''),
    ("one port twice", "spec: {ports: [{port: 80, name: a}, {port: 80, name: b}]}",
     'The Service "bad" is invalid: spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,'
     '"Port":80,"TargetPort":0,"NodePort":0}'),
    ("an unknown type", "spec: {type: Foo, ports: [{port: 80}]}",
     'The Service "bad" is invalid: spec.type: Unsupported value: "Foo": supported values: "ClusterIP", '
     '"ExternalName", "LoadBalancer", "NodePort"'),
    ("an unknown session affinity", "spec: {sessionAffinity: Foo, ports: [{port: 80}]}",
     'The Service "bad" is invalid: spec.sessionAffinity: Unsupported value: "Foo": supported values: "ClientIP", '
     '"None"'),
    ("a headless NodePort service", "spec: {type: NodePort, clusterIP: None, ports: [{port: 80}]}",
     'The Service "bad" is invalid: spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for '
     "NodePort services"),
]


@pytest.mark.parametrize("spec,want", [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_bad_service_is_refused_with_the_api_servers_text_and_nothing_is_written(h, tmp_path, spec, want):
    before = snapshot(tmp_path / "state")
    r = h("apply -f -", stdin=HEAD + spec + "\n")
    assert (r.code, r.err) == (1, want + "\n")
    assert snapshot(tmp_path / "state") == before


def test_a_service_name_must_be_a_dns_1035_label(h):
    r = h("apply -f -", stdin=HEAD.replace("name: bad", "name: 1bad") + "spec: {ports: [{port: 80}]}\n")
    assert r.err == ('The Service "1bad" is invalid: metadata.name: Invalid value: "1bad": a DNS-1035 label must '
                     "consist of lower case alphanumeric characters or '-', start with an alphabetic character, and "
                     "end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation "
                     "is '[a-z]([-a-z0-9]*[a-z0-9])?')\n")


def _spec(h, name):
    spec = json.loads(h.ok(f"get svc {name} -o json"))["spec"]
    return spec


MANIFESTS = """apiVersion: v1
kind: Service
metadata: {name: np}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{port: 80, targetPort: http, name: web}, {port: 443, protocol: UDP, name: x}]
---
apiVersion: v1
kind: Service
metadata: {name: lb}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: en}
spec: {type: ExternalName, externalName: example.com}
---
apiVersion: v1
kind: Service
metadata: {name: hl}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80}]
"""


def test_services_are_defaulted_as_a_v1_35_api_server_defaults_them(h):
    h.apply(MANIFESTS)
    np, lb, en, hl = (_spec(h, n) for n in ("np", "lb", "en", "hl"))
    # the real server's answers, with the drawn IPs and node ports left out
    assert np.pop("clusterIP") == np["clusterIPs"].pop()
    assert [p.pop("nodePort") for p in np["ports"]] and np == {
        "clusterIPs": [], "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster",
        "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
        "ports": [{"name": "web", "port": 80, "protocol": "TCP", "targetPort": "http"},
                  {"name": "x", "port": 443, "protocol": "UDP", "targetPort": 443}],
        "selector": {"app": "web"}, "sessionAffinity": "None", "type": "NodePort"}
    assert lb["allocateLoadBalancerNodePorts"] is True and lb["externalTrafficPolicy"] == "Cluster"
    assert en == {"externalName": "example.com", "sessionAffinity": "None", "type": "ExternalName"}
    assert hl == {"clusterIP": "None", "clusterIPs": ["None"], "internalTrafficPolicy": "Cluster",
                  "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                  "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}], "selector": {"app": "web"},
                  "sessionAffinity": "None", "type": "ClusterIP"}
    assert json.loads(h.ok("get svc lb -o json"))["status"] == {"loadBalancer": {}}


def test_drawn_ips_and_ports_fall_in_the_dynamic_bands_and_repeat_under_a_seed(tmp_path):
    import ipaddress

    outs = []
    for run in ("a", "b"):
        h = Harness(tmp_path / run)
        h.ok("cluster init --empty")
        h.apply(MANIFESTS)
        outs.append(h.ok("get svc -o wide"))
        spec = _spec(h, "np")
        ip = ipaddress.ip_address(spec["clusterIP"])
        assert ipaddress.ip_address("10.96.1.1") <= ip <= ipaddress.ip_address("10.111.255.254")
        assert all(30086 <= p["nodePort"] <= 32767 for p in spec["ports"])
    assert outs[0] == outs[1]


def test_a_released_ip_and_node_port_can_be_taken_again(h):
    h.ok("delete svc taken")
    h.apply(HEAD + "spec: {type: NodePort, clusterIP: 10.96.5.5, ports: [{port: 80, nodePort: 30360}]}\n")
    # a type change to ClusterIP releases the node port (dropTypeDependentFields)
    h.ok("""patch svc bad -p '{"spec":{"type":"ClusterIP"}}'""")
    assert _spec(h, "bad")["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}]
    h.apply("apiVersion: v1\nkind: Service\nmetadata: {name: other}\nspec: {type: NodePort, "
            "ports: [{port: 80, nodePort: 30360}]}\n")


def test_the_cluster_ip_may_not_change_and_type_changes_keep_or_drop_it(h):
    h.apply(HEAD + "spec: {clusterIP: 10.96.100.100, ports: [{port: 80}]}\n")
    r = h("""patch svc bad -p '{"spec":{"clusterIP":"10.96.100.101"}}'""")
    assert (r.code, r.err) == (1, 'The Service "bad" is invalid: spec.clusterIPs[0]: Invalid value: '
                                  '["10.96.100.101"]: may not change once set\n')
    h.ok("""patch svc bad -p '{"spec":{"type":"NodePort"}}'""")
    spec = _spec(h, "bad")
    assert spec["clusterIP"] == "10.96.100.100" and spec["externalTrafficPolicy"] == "Cluster"
    assert 30000 <= spec["ports"][0]["nodePort"] <= 32767
    h.ok("""patch svc bad -p '{"spec":{"type":"ClusterIP"}}'""")
    h.ok("""patch svc bad -p '{"spec":{"type":"ExternalName","externalName":"x.com"}}'""")
    assert _spec(h, "bad") == {"externalName": "x.com", "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
                               "sessionAffinity": "None", "type": "ExternalName"}
    h.ok("""patch svc bad -p '{"spec":{"type":"ClusterIP","externalName":null}}'""")
    spec = _spec(h, "bad")
    assert spec["clusterIP"] not in ("", "10.96.100.100") and spec["ipFamilyPolicy"] == "SingleStack"


def test_the_kubernetes_service_is_there_from_cluster_init(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    assert h.ok("get svc -o wide") == (
        "NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE   SELECTOR\n"
        "kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   0s    <none>\n")
    ip = h.ok("get node controlplane -o jsonpath={.status.addresses[0].address}")
    r = h("get ep")
    assert r.out == f"NAME         ENDPOINTS         AGE\nkubernetes   {ip}:6443   0s\n"
    assert r.err == "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"
    assert f"Endpoints:                {ip}:6443\n" in h.ok("describe svc kubernetes")
    e = Harness(tmp_path / "empty")
    e.ok("cluster init --empty")
    assert e.ok("get svc kubernetes -o jsonpath={.spec.clusterIP}") == "10.96.0.1"


DESCRIBE_NP = """Name:                     np
Namespace:                default
Labels:                   <none>
Annotations:              <none>
Selector:                 app=web
Type:                     NodePort
IP Family Policy:         SingleStack
IP Families:              IPv4
IP:                       {ip}
IPs:                      {ip}
Port:                     web  80/TCP
TargetPort:               http/TCP
NodePort:                 web  {p0}/TCP
Endpoints:                
Port:                     x  443/UDP
TargetPort:               443/UDP
NodePort:                 x  {p1}/UDP
Endpoints:                
Session Affinity:         None
External Traffic Policy:  Cluster
Internal Traffic Policy:  Cluster
Events:                   <none>
"""

DESCRIBE_EN = """Name:              en
Namespace:         default
Labels:            <none>
Annotations:       <none>
Selector:          <none>
Type:              ExternalName
IP Families:       <none>
IP:                
IPs:               <none>
External Name:     example.com
Session Affinity:  None
Events:            <none>
"""


def test_get_and_describe_print_what_kubectl_printed_for_the_same_services(h):
    h.apply(MANIFESTS)
    np = _spec(h, "np")
    lb = _spec(h, "lb")
    assert h.ok("get svc np lb en hl -o wide") == (
        "NAME   TYPE           CLUSTER-IP       EXTERNAL-IP   PORT(S)                      AGE   SELECTOR\n"
        f"np     NodePort       {np['clusterIP']:<16} <none>        80:{np['ports'][0]['nodePort']}/TCP,"
        f"443:{np['ports'][1]['nodePort']}/UDP   0s    app=web\n"
        f"lb     LoadBalancer   {lb['clusterIP']:<16} <pending>     80:{lb['ports'][0]['nodePort']}/TCP"
        "                 0s    app=web\n"
        "en     ExternalName   <none>           example.com   <none>                       0s    <none>\n"
        "hl     ClusterIP      None             <none>        80/TCP                       0s    app=web\n")
    assert h.ok("describe svc np") == DESCRIBE_NP.format(ip=np["clusterIP"], p0=np["ports"][0]["nodePort"],
                                                         p1=np["ports"][1]["nodePort"])
    assert h.ok("describe svc en") == DESCRIBE_EN
    assert h.ok("get endpointslices -l kubernetes.io/service-name=hl").endswith(
        "IPv4          <unset>   <unset>     0s\n")


FLAKY = """apiVersion: v1
kind: Pod
metadata: {name: flaky, labels: {app: flaky}}
spec:
  containers:
  - name: c
    image: busybox
    command: [sh, -c, "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 30; touch /tmp/healthy; sleep 3600"]
    ports: [{name: http, containerPort: 8080}]
    readinessProbe:
      exec: {command: [cat, /tmp/healthy]}
      periodSeconds: 5
---
apiVersion: v1
kind: Service
metadata: {name: flaky}
spec:
  selector: {app: flaky}
  ports: [{port: 80, targetPort: http}]
"""


def test_endpoints_follow_a_pod_becoming_unready_and_back(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    h.apply(FLAKY)
    h.ok("advance 5s")  # busybox pulled, the first readiness probe passed
    ip = h.ok("get pod flaky -o jsonpath={.status.podIP}")
    ready = f"{ip}:8080"

    def ep():
        return h.ok("get ep flaky -o jsonpath={.subsets[0].addresses[*].ip}/{.subsets[0].notReadyAddresses[*].ip}")

    def slice_ready():
        return h.ok("get endpointslices -l kubernetes.io/service-name=flaky "
                    "-o jsonpath={.items[0].endpoints[0].conditions.ready}")

    assert (ep(), slice_ready()) == (f"{ip}/", "true")
    assert f"Endpoints:                {ready}\n" in h.ok("describe svc flaky")
    h.ok("advance 40s")
    assert (ep(), slice_ready()) == (f"/{ip}", "false")
    assert "Endpoints:                \n" in h.ok("describe svc flaky")
    h.ok("advance 40s")
    assert (ep(), slice_ready()) == (f"{ip}/", "true")
    h.ok("delete svc flaky")
    assert h("get ep flaky").code == 1
    assert "No resources found" in h("get endpointslices -l kubernetes.io/service-name=flaky").err


def test_pod_topology_spread_system_defaults_see_the_service_selecting_the_pod(tmp_path):
    """helper.DefaultSelector: without a Service (or controller) selecting the pod the system
    default constraints have no selector and PreScore skips; a Service selecting it gives them one."""
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: web}}\nspec: {containers: [{name: c, image: nginx}]}\n"

    def spread_scores():
        out = json.loads(h.ok("explain-schedule -f - -o json", stdin=pod))
        return {n: v["score"]["PodTopologySpread"] for n, v in out["nodes"].items() if v.get("feasible")}

    assert all(s.get("skipped") for s in spread_scores().values())
    h.ok("create service clusterip web --tcp=80")  # selects app=web
    assert not any(s.get("skipped") for s in spread_scores().values())


def test_the_api_server_brings_the_kubernetes_service_and_its_endpoints_back(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    uid = h.ok("get svc kubernetes -o jsonpath={.metadata.uid}")
    h.ok("delete svc kubernetes")
    h.ok("delete ep kubernetes")
    assert h.ok("get svc kubernetes -o jsonpath={.spec.clusterIP}") == "10.96.0.1"
    assert h.ok("get svc kubernetes -o jsonpath={.metadata.uid}") != uid
    assert h.ok("get ep kubernetes -o jsonpath={.subsets[0].ports[0].port}") == "6443"


EXTERNAL = """apiVersion: v1
kind: Service
metadata: {name: ext, labels: {team: x}}
spec:
  ports: [{name: db, port: 5432}, {name: web, port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: ext, labels: {team: q}}
subsets:
- addresses: [{ip: 192.168.10.5}, {ip: 192.168.10.6}]
  notReadyAddresses: [{ip: 192.168.10.7}]
  ports: [{name: db, port: 5432}, {name: web, port: 8080}]
"""


def test_endpoints_written_for_a_service_without_selector_are_mirrored_into_a_slice(tmp_path):
    """What a real v1.35 cluster did with the same two objects: the mirroring controller's
    slice, describe svc reading it, and both gone with the Service."""
    h = Harness(tmp_path / "state")
    h.ok("cluster init")
    h.apply(EXTERNAL)
    assert h.ok("get ep ext -o jsonpath={.subsets[0].ports[*].protocol}") == "TCP TCP"  # SetDefaults_Endpoints
    s = json.loads(h.ok("get endpointslices -l kubernetes.io/service-name=ext -o json"))["items"][0]
    assert s["metadata"]["labels"] == {"endpointslice.kubernetes.io/managed-by":
                                       "endpointslicemirroring-controller.k8s.io",
                                       "kubernetes.io/service-name": "ext", "team": "q"}
    assert "annotations" not in s["metadata"]
    assert [(e["addresses"], e["conditions"]) for e in s["endpoints"]] == [
        (["192.168.10.5"], {"ready": True}), (["192.168.10.6"], {"ready": True}),
        (["192.168.10.7"], {"ready": False})]
    assert s["metadata"]["ownerReferences"][0]["kind"] == "Endpoints"
    text = h.ok("describe svc ext")
    assert "Endpoints:                192.168.10.5:5432,192.168.10.6:5432\n" in text
    assert "Endpoints:                192.168.10.5:8080,192.168.10.6:8080\n" in text
    h.ok("delete svc ext")
    assert h("get ep ext").code == 1
    assert "No resources found" in h("get endpointslices -l kubernetes.io/service-name=ext").err
