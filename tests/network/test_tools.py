"""What the network tools print (kubesim.network.tools), in the words of busybox
(networking/nslookup.c, networking/wget.c) and curl (lib/), for each outcome of a path."""

import pytest

from kubesim.network.cluster import Snapshot
from kubesim.network.tools import Net, run

from .builders import endpoint, endpoint_slice, namespace, node, pod, policy, service

CLIENT = pod("default", "client", "10.244.1.3", {"run": "client"}, image="busybox")
WEB = pod("default", "web-1", "10.244.2.2", {"app": "web"})
COREDNS = pod("kube-system", "coredns-1", "10.244.0.2", {"k8s-app": "kube-dns"}, node="controlplane", image="coredns")
KUBE_DNS = service("kube-system", "kube-dns", "10.96.0.10",
                   [{"name": "dns", "port": 53, "protocol": "UDP"}, {"name": "dns-tcp", "port": 53, "protocol": "TCP"}])
DNS_SLICE = endpoint_slice("kube-system", "kube-dns", [{"name": "dns", "port": 53, "protocol": "UDP"},
                                                       {"name": "dns-tcp", "port": 53, "protocol": "TCP"}], [endpoint(COREDNS)])
BASE = {
    "pods": [CLIENT, WEB, COREDNS],
    "namespaces": [namespace("default"), namespace("kube-system")],
    "services": [service("default", "kubernetes", "10.96.0.1", [{"name": "https", "port": 443}]),
              service("default", "web", "10.96.12.34", [{"port": 80, "targetPort": 80}]),
              service("default", "empty", "10.96.12.35", [{"port": 80}]), KUBE_DNS],
    "slices": [endpoint_slice("default", "web", [{"port": 80}], [endpoint(WEB)]), DNS_SLICE],
    "nodes": [node("node01", "172.30.2.2")]}
DENY_EGRESS = policy("default", "deny-egress", {"podSelector": {}, "policyTypes": ["Egress"]})
DENY_INGRESS = policy("default", "deny-ingress", {"podSelector": {"matchLabels": {"app": "web"}}, "policyTypes": ["Ingress"]})
ALLOW_DNS = policy("default", "deny-egress-but-dns", {"podSelector": {}, "policyTypes": ["Egress"], "egress": [
    {"to": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
     "ports": [{"port": 53, "protocol": "UDP"}]}]})


def listener(p, port, protocol):
    if p["metadata"]["name"] == "web-1" and port == 80 and protocol == "TCP":
        return {"status": 200, "reason": "OK", "body": "hello\n", "server": "nginx/1.29.3", "date": "D"}
    if p["metadata"]["name"] == "coredns-1" and port == 53:
        return {"status": 200, "body": ""}
    return None


def tool(argv, policies=(), no_dns_endpoints=False):
    fields = dict(BASE)
    if no_dns_endpoints:
        fields["slices"] = [s for s in BASE["slices"] if s is not DNS_SLICE]
    snap = Snapshot(policies=list(policies), **fields)
    return run(Net(snap, CLIENT, listener), argv)


NS_HEAD = "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n"


@pytest.mark.parametrize("argv,policies,out,err,code", [
    pytest.param(["nslookup", "web"], (),
                 NS_HEAD + "Name:\tweb.default.svc.cluster.local\nAddress: 10.96.12.34\n\n"
                 "** server can't find web.svc.cluster.local: NXDOMAIN\n\n** server can't find web.cluster.local: NXDOMAIN\n\n"
                 "\n** server can't find web.svc.cluster.local: NXDOMAIN\n\n** server can't find web.cluster.local: NXDOMAIN\n\n",
                 "", 1, id="busybox nslookup of a short name: A then AAAA over the search path, NXDOMAINs make it exit 1"),
    pytest.param(["nslookup", "web.default.svc.cluster.local"], (),
                 NS_HEAD + "Name:\tweb.default.svc.cluster.local\nAddress: 10.96.12.34\n\n\n", "", 0,
                 id="a fully qualified name is one A and one AAAA query"),
    pytest.param(["nslookup", "10.96.12.34"], (),
                 NS_HEAD + "34.12.96.10.in-addr.arpa\tname = web.default.svc.cluster.local\n\n", "", 0,
                 id="an address is a PTR query"),
    pytest.param(["nslookup", "web"], (DENY_EGRESS,),
                 ";; connection timed out; no servers could be reached\n\n", "", 1,
                 id="egress denied to kube-dns: the query times out"),
    pytest.param(["nslookup", "web.default.svc.cluster.local"], (ALLOW_DNS,),
                 NS_HEAD + "Name:\tweb.default.svc.cluster.local\nAddress: 10.96.12.34\n\n\n", "", 0,
                 id="egress open to kube-dns on 53/UDP: names resolve"),
    pytest.param(["wget", "-qO-", "-T", "2", "web"], (), "hello\n", "", 0, id="wget -qO- prints the body"),
    pytest.param(["wget", "-O-", "web"], (), "hello\n",
                 "Connecting to web (10.96.12.34:80)\nwriting to stdout\n"
                 "-                    100% |********************************|     6  0:00:00 ETA\nwritten to stdout\n", 0,
                 id="wget -O- reports its progress on stderr"),
    pytest.param(["wget", "--spider", "web"], (), "", "Connecting to web (10.96.12.34:80)\nremote file exists\n", 0,
                 id="wget --spider"),
    pytest.param(["wget", "-qO-", "-T", "2", "web"], (DENY_INGRESS,), "", "wget: download timed out\n", 1,
                 id="a policy drops the packets: the download times out"),
    pytest.param(["wget", "-qO-", "empty"], (), "",
                 "wget: can't connect to remote host (10.96.12.35): Connection refused\n", 1,
                 id="a Service without endpoints refuses"),
    pytest.param(["wget", "-qO-", "nope"], (), "", "wget: bad address 'nope'\n", 1, id="an unknown name"),
    pytest.param(["wget", "-qO-", "-T", "2", "web"], (DENY_EGRESS,), "", "wget: bad address 'web'\n", 1,
                 id="DNS blocked: the name does not resolve"),
    pytest.param(["wget", "-qO-", "-T", "2", "10.96.12.34"], (DENY_EGRESS,), "", "wget: download timed out\n", 1,
                 id="an address needs no DNS, but egress is still denied"),
    pytest.param(["wget", "-qO-", "web:8080"], (), "", "wget: download timed out\n", 1,
                 id="a port the Service does not declare goes nowhere"),
    pytest.param(["wget", "-qO-", "10.244.2.2:81"], (), "",
                 "wget: can't connect to remote host (10.244.2.2): Connection refused\n", 1,
                 id="nothing listens on the pod's port"),
    pytest.param(["wget", "-qO-", "web/missing"], (), "", "wget: server returned error: HTTP/1.1 404 Not Found\n", 1,
                 id="a path the server does not have"),
    pytest.param(["curl", "-s", "web"], (), "hello\n", "", 0, id="curl -s prints the body"),
    pytest.param(["curl", "-s", "-m", "2", "web"], (DENY_INGRESS,), "", "", 28, id="curl -s stays silent on errors"),
    pytest.param(["curl", "-sS", "-m", "2", "web"], (DENY_INGRESS,), "",
                 "curl: (28) Connection timed out after 2001 milliseconds\n", 28, id="curl -m: the connect times out"),
    pytest.param(["curl", "empty"], (), "",
                 "curl: (7) Failed to connect to empty port 80 after 0 ms: Couldn't connect to server\n", 7,
                 id="curl: connection refused"),
    pytest.param(["curl", "nope"], (), "", "curl: (6) Could not resolve host: nope\n", 6, id="curl: an unknown name"),
    pytest.param(["curl", "-sI", "web"], (),
                 "HTTP/1.1 200 OK\r\nServer: nginx/1.29.3\r\nDate: D\r\nContent-Type: text/html\r\nContent-Length: 6\r\n"
                 "Connection: keep-alive\r\n\r\n", "", 0, id="curl -I prints the headers"),
])
def test_tool_output(argv, policies, out, err, code):
    assert tool(argv, policies) == (out, err, code)


def test_nslookup_when_kube_dns_has_no_endpoints():
    out, err, code = tool(["nslookup", "web"], no_dns_endpoints=True)
    assert (out, err, code) == (";; connection timed out; no servers could be reached\n\n",
                                "nslookup: read: Connection refused\nnslookup: read: Connection refused\n", 1)


API = {"tls": True, "forbidden": 'forbidden "{path}"',
       "routes": {"/healthz": {"body": "ok", "content_type": "text/plain; charset=utf-8"}}}
NGINX = {"status": 200, "reason": "OK", "body": "<html/>"}


@pytest.mark.parametrize("reply,scheme,path,want", [
    pytest.param(API, "http", "/", (400, "Bad Request", "Client sent an HTTP request to an HTTPS server.\n",
                                    "text/plain; charset=utf-8"), id="plain HTTP to the API server's TLS port"),
    pytest.param(API, "https", "/healthz", (200, "OK", "ok", "text/plain; charset=utf-8"),
                 id="a public health endpoint"),
    pytest.param(API, "https", "/api", (403, "Forbidden", 'forbidden "/api"', "application/json"),
                 id="anything else is Forbidden to an anonymous client"),
    pytest.param(NGINX, "http", "/", (200, "OK", "<html/>", "text/html"), id="a web server's index"),
    pytest.param(NGINX, "http", "/x", (404, "Not Found", "", "text/html"), id="a path it does not have"),
])
def test_respond(reply, scheme, path, want):
    from kubesim.network.tools import respond

    assert respond(reply, scheme, path) == want


@pytest.mark.parametrize("name,out,code", [
    pytest.param("web", NS_HEAD.replace(":53", "#53") + "Name:\tweb.default.svc.cluster.local\nAddress: 10.96.12.34\n\n", 0,
                 id="bind-utils nslookup follows the search list and prints the name that answered"),
    pytest.param("nope", NS_HEAD.replace(":53", "#53") + "** server can't find nope: NXDOMAIN\n\n", 1,
                 id="bind-utils nslookup of an unknown name"),
])
def test_bind_utils_nslookup(name, out, code):
    snap = Snapshot(**BASE)
    assert run(Net(snap, CLIENT, listener, nslookup="bind"), ["nslookup", name]) == (out, "", code)


def test_wget_names_the_host_without_its_port_and_the_address_with_it():
    assert tool(["wget", "-O-", "web:8080"]) == ("", "Connecting to web (10.96.12.34:8080)\nwget: download timed out\n", 1)


@pytest.mark.parametrize("argv,policies,err,code", [
    pytest.param(["nc", "-zv", "web", "80"], (), "web (10.96.12.34:80) open\n", 0, id="nc -zv: the port is open"),
    pytest.param(["nc", "-z", "web", "80"], (), "", 0, id="nc -z is silent"),
    pytest.param(["nc", "-zv", "-w", "2", "web", "80"], (DENY_INGRESS,),
                 "nc: web (10.96.12.34:80): Connection timed out\n", 1, id="nc -zv -w 2: dropped, the connect times out"),
    pytest.param(["nc", "-zv", "empty", "80"], (), "", 1, id="one -v does not print a refusal"),
    pytest.param(["nc", "-zvv", "empty", "80"], (), "nc: empty (10.96.12.35:80): Connection refused\n", 1,
                 id="-vv prints the refusal too"),
    pytest.param(["nc", "-zv", "nope", "80"], (), "nc: bad address 'nope'\n", 1, id="an unknown name"),
    pytest.param(["nc", "-zv", "web", "http"], (), "web (10.96.12.34:80) open\n", 0, id="a port by service name"),
])
def test_busybox_nc(argv, policies, err, code):
    assert tool(argv, policies) == ("", err, code)
