"""The kubelet's exec (kubesim.kubelet.exec): the Service variables of pkg/kubelet/envvars
(its envvars_test.go TestFromServices table), the environment getServiceEnvVarMap builds, the
files a container sees, and the commands kubesim does not simulate."""

import pytest

from kubesim.kubelet.exec import ExecContext, environment, hosts_file, run, service_env


def svc(name, ip, ports, ns="default", created="2026-11-22T09:00:00Z"):
    return {"metadata": {"name": name, "namespace": ns, "creationTimestamp": created},
            "spec": {"clusterIP": ip, "ports": ports}}


def test_from_services_mirrors_upstreams_table():
    services = [
        svc("foo-bar", "1.2.3.4", [{"port": 8080, "protocol": "TCP"}]),
        svc("abc-123", "5.6.7.8", [{"name": "u-d-p", "port": 8081, "protocol": "UDP"},
                                   {"name": "t-c-p", "port": 8081, "protocol": "TCP"}]),
        svc("q-u-u-x", "9.8.7.6", [{"port": 8082, "protocol": "TCP"}, {"name": "8083", "port": 8083, "protocol": "TCP"}]),
        svc("svrc-clusterip-none", "None", [{"port": 8082, "protocol": "TCP"}]),
        svc("svrc-clusterip-empty", "", [{"port": 8082, "protocol": "TCP"}]),
        svc("super-ipv6", "2001:DB8::", [{"name": "u-d-p", "port": 8084, "protocol": "UDP"},
                                         {"name": "t-c-p", "port": 8084, "protocol": "TCP"}]),
        svc("sctp-1", "1.2.3.4", [{"port": 777, "protocol": "SCTP"}]),
    ]
    assert service_env(services) == [
        ("FOO_BAR_SERVICE_HOST", "1.2.3.4"), ("FOO_BAR_SERVICE_PORT", "8080"), ("FOO_BAR_PORT", "tcp://1.2.3.4:8080"),
        ("FOO_BAR_PORT_8080_TCP", "tcp://1.2.3.4:8080"), ("FOO_BAR_PORT_8080_TCP_PROTO", "tcp"),
        ("FOO_BAR_PORT_8080_TCP_PORT", "8080"), ("FOO_BAR_PORT_8080_TCP_ADDR", "1.2.3.4"),
        ("ABC_123_SERVICE_HOST", "5.6.7.8"), ("ABC_123_SERVICE_PORT", "8081"), ("ABC_123_SERVICE_PORT_U_D_P", "8081"),
        ("ABC_123_SERVICE_PORT_T_C_P", "8081"), ("ABC_123_PORT", "udp://5.6.7.8:8081"),
        ("ABC_123_PORT_8081_UDP", "udp://5.6.7.8:8081"), ("ABC_123_PORT_8081_UDP_PROTO", "udp"),
        ("ABC_123_PORT_8081_UDP_PORT", "8081"), ("ABC_123_PORT_8081_UDP_ADDR", "5.6.7.8"),
        ("ABC_123_PORT_8081_TCP", "tcp://5.6.7.8:8081"), ("ABC_123_PORT_8081_TCP_PROTO", "tcp"),
        ("ABC_123_PORT_8081_TCP_PORT", "8081"), ("ABC_123_PORT_8081_TCP_ADDR", "5.6.7.8"),
        ("Q_U_U_X_SERVICE_HOST", "9.8.7.6"), ("Q_U_U_X_SERVICE_PORT", "8082"), ("Q_U_U_X_SERVICE_PORT_8083", "8083"),
        ("Q_U_U_X_PORT", "tcp://9.8.7.6:8082"), ("Q_U_U_X_PORT_8082_TCP", "tcp://9.8.7.6:8082"),
        ("Q_U_U_X_PORT_8082_TCP_PROTO", "tcp"), ("Q_U_U_X_PORT_8082_TCP_PORT", "8082"),
        ("Q_U_U_X_PORT_8082_TCP_ADDR", "9.8.7.6"), ("Q_U_U_X_PORT_8083_TCP", "tcp://9.8.7.6:8083"),
        ("Q_U_U_X_PORT_8083_TCP_PROTO", "tcp"), ("Q_U_U_X_PORT_8083_TCP_PORT", "8083"),
        ("Q_U_U_X_PORT_8083_TCP_ADDR", "9.8.7.6"),
        ("SUPER_IPV6_SERVICE_HOST", "2001:DB8::"), ("SUPER_IPV6_SERVICE_PORT", "8084"),
        ("SUPER_IPV6_SERVICE_PORT_U_D_P", "8084"), ("SUPER_IPV6_SERVICE_PORT_T_C_P", "8084"),
        ("SUPER_IPV6_PORT", "udp://[2001:DB8::]:8084"), ("SUPER_IPV6_PORT_8084_UDP", "udp://[2001:DB8::]:8084"),
        ("SUPER_IPV6_PORT_8084_UDP_PROTO", "udp"), ("SUPER_IPV6_PORT_8084_UDP_PORT", "8084"),
        ("SUPER_IPV6_PORT_8084_UDP_ADDR", "2001:DB8::"), ("SUPER_IPV6_PORT_8084_TCP", "tcp://[2001:DB8::]:8084"),
        ("SUPER_IPV6_PORT_8084_TCP_PROTO", "tcp"), ("SUPER_IPV6_PORT_8084_TCP_PORT", "8084"),
        ("SUPER_IPV6_PORT_8084_TCP_ADDR", "2001:DB8::"),
        ("SCTP_1_SERVICE_HOST", "1.2.3.4"), ("SCTP_1_SERVICE_PORT", "777"), ("SCTP_1_PORT", "sctp://1.2.3.4:777"),
        ("SCTP_1_PORT_777_SCTP", "sctp://1.2.3.4:777"), ("SCTP_1_PORT_777_SCTP_PROTO", "sctp"),
        ("SCTP_1_PORT_777_SCTP_PORT", "777"), ("SCTP_1_PORT_777_SCTP_ADDR", "1.2.3.4"),
    ]


def pod(ns="default", links=None, started="2026-11-22T10:00:00Z", **container):
    spec = {"containers": [{"name": "app", "image": "busybox", **container}], "nodeName": "node01"}
    if links is not None:
        spec["enableServiceLinks"] = links
    return {"metadata": {"name": "app", "namespace": ns, "uid": "u1"}, "spec": spec,
            "status": {"podIP": "10.244.1.3", "phase": "Running",
                       "containerStatuses": [{"name": "app", "state": {"running": {"startedAt": started}}}]}}


def ctx(p, services=(), get=lambda kind, ns, name: None):
    return ExecContext(pod=p, container=p["spec"]["containers"][0], get=get, services=list(services))


KUBERNETES = svc("kubernetes", "10.96.0.1", [{"name": "https", "port": 443, "protocol": "TCP"}])
WEB = svc("web", "10.96.5.5", [{"port": 80, "protocol": "TCP"}])
LATE = svc("late", "10.96.5.6", [{"port": 80, "protocol": "TCP"}], created="2026-11-22T10:05:00Z")
OTHER_NS = svc("db", "10.96.5.7", [{"port": 5432, "protocol": "TCP"}], ns="prod")


def names(env):
    return [k for k, _ in env if k.endswith("_SERVICE_HOST")]


@pytest.mark.parametrize("p,want", [
    pytest.param(pod(), ["KUBERNETES_SERVICE_HOST", "WEB_SERVICE_HOST"],
                 id="the namespace's Services that existed when the container started, and kubernetes"),
    pytest.param(pod(links=False), ["KUBERNETES_SERVICE_HOST"], id="enableServiceLinks false keeps only kubernetes"),
    pytest.param(pod(ns="prod"), ["DB_SERVICE_HOST", "KUBERNETES_SERVICE_HOST"],
                 id="another namespace's pod sees its own Services"),
])
def test_service_variables(p, want):
    assert names(environment(ctx(p, [KUBERNETES, WEB, LATE, OTHER_NS]))) == want


def test_env_order_and_dependent_variables():
    p = pod(env=[{"name": "A", "value": "x"}, {"name": "B", "value": "$(A)-y"}])
    env = environment(ctx(p))
    assert env == [("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"), ("HOSTNAME", "app"),
                   ("A", "x"), ("B", "x-y"), ("HOME", "/root")]


def test_hosts_file_as_the_kubelet_writes_it():
    assert hosts_file(pod()) == ("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n"
                                 "::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\n"
                                 "fe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n"
                                 "10.244.1.3\tapp\n")


CM = {"data": {"a.conf": "A=1\n", "b.conf": "B=2\n"}}


def cm_pod(**mount):
    p = pod(volumeMounts=[{"name": "cfg", **mount}])
    p["spec"]["volumes"] = [{"name": "cfg", "configMap": {"name": "cfg"}}]
    return p


def get(kind, ns, name):
    return CM if (kind, name) == ("ConfigMap", "cfg") else None


@pytest.mark.parametrize("p,argv,want", [
    pytest.param(cm_pod(mountPath="/etc/cfg"), ["ls", "/etc/cfg"], ("a.conf\nb.conf\n", "", 0),
                 id="ls of a ConfigMap volume lists its keys"),
    pytest.param(cm_pod(mountPath="/etc/cfg"), ["cat", "/etc/cfg/b.conf"], ("B=2\n", "", 0), id="cat of a key"),
    pytest.param(cm_pod(mountPath="/etc/cfg"), ["cat", "/etc/cfg/c.conf"],
                 ("", "cat: can't open '/etc/cfg/c.conf': No such file or directory\n", 1),
                 id="a missing key in a mounted volume: busybox's words"),
    pytest.param(cm_pod(mountPath="/etc/app.conf", subPath="a.conf"), ["cat", "/etc/app.conf"], ("A=1\n", "", 0),
                 id="a subPath mount is the one file"),
    pytest.param(pod(), ["cat", "/etc/shadow"], ("", 'kubesim does not simulate "cat /etc/shadow"\n', 126),
                 id="a file kubesim does not know is not invented"),
    pytest.param(pod(), ["ps", "aux"], ("", 'kubesim does not simulate "ps"\n', 126), id="an unknown command"),
    pytest.param(pod(), ["curl", "web"],
                 (('OCI runtime exec failed: exec failed: unable to start container process: exec: "curl": '
                  "executable file not found in $PATH: unknown\n"), "", 126), id="busybox ships no curl"),
    pytest.param(pod(), ["sh", "-c", "echo one && false || echo two; hostname"], ("one\ntwo\napp\n", "", 0),
                 id="sh -c with ;, && and ||"),
    pytest.param(pod(), ["sh", "-c", "echo $HOSTNAME"], ("app\n", "", 0), id="sh -c expands environment variables"),
    pytest.param(pod(), ["false"], ("", "", 1), id="false"),
    pytest.param(pod(), ["sleep", "1"], ("", "", 0), id="sleep"),
])
def test_commands(p, argv, want):
    assert run(ctx(p, get=get), argv) == want


def test_a_host_network_pod_has_its_nodes_hostname():
    p = pod()
    p["spec"]["hostNetwork"] = True
    assert run(ctx(p), ["hostname"]) == ("node01\n", "", 0)
