"""Cluster DNS (kubesim.network.dns): CoreDNS's kubernetes plugin records as the DNS
specification (github.com/kubernetes/dns docs/specification.md) defines them, and the
resolv.conf pkg/kubelet/network/dns writes per dnsPolicy."""

import pytest

from kubesim.network import dns
from kubesim.network.cluster import Snapshot

from .builders import endpoint, endpoint_slice, namespace, pod, service

WEB = pod("prod", "web-1", "10.244.1.5", {"app": "web"})
DB0 = pod("prod", "db-0", "10.244.2.7", {"app": "db"}, hostname="db-0", subdomain="db")
DB1 = pod("prod", "db-1", "10.244.1.8", {"app": "db"}, hostname="db-1", subdomain="db")
SNAP = Snapshot(
    pods=[WEB, DB0, DB1],
    namespaces=[namespace("default"), namespace("prod")],
    services=[service("prod", "web", "10.96.40.1", [{"port": 80}]),
              service("prod", "db", "None", [{"port": 5432}]),
              service("prod", "ext", None, [], type_="ExternalName", externalName="example.com")],
    slices=[endpoint_slice("prod", "db", [{"port": 5432}],
                           [endpoint(DB0, hostname="db-0"), endpoint(DB1, hostname="db-1")])])


@pytest.mark.parametrize("qname,qtype,rcode,records", [
    pytest.param("web.prod.svc.cluster.local", "A", "NOERROR", [("A", "10.96.40.1")],
                 id="a ClusterIP Service has one A record, its cluster IP"),
    pytest.param("web.prod.svc.cluster.local", "AAAA", "NOERROR", [],
                 id="an IPv4 Service answers AAAA with no data"),
    pytest.param("db.prod.svc.cluster.local", "A", "NOERROR", [("A", "10.244.1.8"), ("A", "10.244.2.7")],
                 id="a headless Service has an A record per ready endpoint"),
    pytest.param("db-0.db.prod.svc.cluster.local", "A", "NOERROR", [("A", "10.244.2.7")],
                 id="a headless Service's endpoint hostname is a name of its own"),
    pytest.param("ext.prod.svc.cluster.local", "A", "NOERROR", [("CNAME", "example.com")],
                 id="an ExternalName Service is a CNAME"),
    pytest.param("10-244-1-5.prod.pod.cluster.local", "A", "NOERROR", [("A", "10.244.1.5")],
                 id="pods insecure: a dashed-IP pod name resolves to the address it spells"),
    pytest.param("web.default.svc.cluster.local", "A", "NXDOMAIN", [], id="a Service of another namespace is not there"),
    pytest.param("web.svc.cluster.local", "A", "NXDOMAIN", [], id="web.svc is a namespace that does not exist"),
    pytest.param("prod.svc.cluster.local", "A", "NOERROR", [], id="a namespace's domain exists, with no address"),
    pytest.param("example.com", "A", "NXDOMAIN", [], id="kubesim has no Internet: outside names do not resolve"),
    pytest.param("1.40.96.10.in-addr.arpa", "PTR", "NOERROR", [("PTR", "web.prod.svc.cluster.local")],
                 id="a cluster IP's PTR record names its Service"),
    pytest.param("7.2.244.10.in-addr.arpa", "PTR", "NOERROR", [("PTR", "db-0.db.prod.svc.cluster.local")],
                 id="a headless endpoint's PTR record names it under its Service"),
])
def test_coredns_records(qname, qtype, rcode, records):
    ans = dns.query(SNAP, qname, qtype)
    assert (ans.rcode, [(t, v) for _, t, v in ans.records]) == (rcode, records)


@pytest.mark.parametrize("spec,text", [
    pytest.param({}, "search prod.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\n"
                     "options ndots:5\n", id="ClusterFirst: the cluster's nameserver and the namespace's search path"),
    pytest.param({"hostNetwork": True}, "nameserver 127.0.0.53\noptions ndots:1\n",
                 id="a host-network pod with ClusterFirst gets its node's resolver"),
    pytest.param({"hostNetwork": True, "dnsPolicy": "ClusterFirstWithHostNet"},
                 "search prod.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n",
                 id="ClusterFirstWithHostNet keeps cluster DNS on the host network"),
    pytest.param({"dnsPolicy": "None", "dnsConfig": {"nameservers": ["1.1.1.1"], "searches": ["corp"],
                                                     "options": [{"name": "ndots", "value": "2"}]}},
                 "search corp\nnameserver 1.1.1.1\noptions ndots:2\n", id="dnsPolicy None: only dnsConfig"),
])
def test_resolv_conf_by_dns_policy(spec, text):
    p = pod("prod", "x", "10.244.1.9", **spec)
    assert dns.resolv_conf(p).text() == text


@pytest.mark.parametrize("name,ips", [
    pytest.param("web", ["10.96.40.1"], id="a short name through the namespace's search domain"),
    pytest.param("web.prod", ["10.96.40.1"], id="name.namespace through svc.cluster.local"),
    pytest.param("web.prod.svc.cluster.local.", ["10.96.40.1"], id="an absolute name"),
    pytest.param("db-1.db", ["10.244.1.8"], id="a StatefulSet pod's stable name"),
    pytest.param("web.default", [], id="no such Service in that namespace"),
])
def test_getaddrinfo_with_the_search_path(name, ips):
    conf = dns.resolv_conf(pod("prod", "x", "10.244.1.9"))
    assert dns.lookup(SNAP, name, conf, cluster_dns=True) == ips
