"""What ``kubeadm init`` v1.35 uploads and installs after the control plane is up: its
configuration ConfigMaps, the ``cluster-info`` ConfigMap, and the two essential add-ons, CoreDNS
and kube-proxy, with the ServiceAccounts and RBAC objects they run as.

Upstream (k8s.io/kubernetes v1.35.4, cmd/kubeadm/app):
- phases/addons/dns/manifests.go + dns.go: the ``coredns`` ServiceAccount, ClusterRole and
  ClusterRoleBinding ``system:coredns``, the ``coredns`` ConfigMap (its Corefile), the
  ``coredns`` Deployment (2 replicas, ``registry.k8s.io/coredns/coredns:`` constants.CoreDNSVersion)
  and the ``kube-dns`` Service on the tenth address of the service subnet (10.96.0.10);
- phases/addons/proxy/manifests.go + proxy.go: the ``kube-proxy`` ConfigMap (kubeconfig.conf and
  config.conf), DaemonSet, ServiceAccount, ClusterRoleBinding ``kubeadm:node-proxier`` and the
  Role/RoleBinding ``kube-proxy`` that let joining nodes read the ConfigMap;
- phases/uploadconfig (``kubeadm-config``: the ClusterConfiguration), phases/kubelet
  (``kubelet-config``: the KubeletConfiguration), phases/bootstraptoken/clusterinfo
  (``cluster-info`` in kube-public: a kubeconfig with the CA and the API server's address).
  The Roles and bindings that read these three are in kubesim's RBAC bootstrap data.

The component-config texts are what a v1.35 kubeadm cluster shows with its defaults (the
marshalled KubeProxyConfiguration and KubeletConfiguration of kubeadm's defaulting).

Their UIDs come from a random source of their own (as the ``kubernetes`` Service's), so seeded
uid sequences are what they were before the add-ons existed; the pods the controllers make from
the Deployment and DaemonSet at the first settle do draw their names from the cluster's source,
as a real cluster's controllers do.
"""

from __future__ import annotations

import random

from kubesim.kubelet.staticpods import KUBERNETES_VERSION

COREDNS_VERSION = "v1.13.1"  # constants.CoreDNSVersion
COREDNS_IMAGE = f"registry.k8s.io/coredns/coredns:{COREDNS_VERSION}"
KUBE_PROXY_IMAGE = f"registry.k8s.io/kube-proxy:{KUBERNETES_VERSION}"
DNS_SERVICE_IP = "10.96.0.10"  # kubeadm: the 10th IP of the service subnet
DNS_DOMAIN = "cluster.local"
POD_SUBNET = "10.244.0.0/16"
SERVICE_SUBNET = "10.96.0.0/12"
CONTROL_PLANE_TAINT_KEY = "node-role.kubernetes.io/control-plane"
NODE_BOOTSTRAP_TOKEN_AUTH_GROUP = "system:bootstrappers:kubeadm:default-node-token"
KUBE_SYSTEM = "kube-system"

COREFILE = f""".:53 {{
    errors
    health {{
       lameduck 5s
    }}
    ready
    kubernetes {DNS_DOMAIN} in-addr.arpa ip6.arpa {{
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }}
    prometheus :9153
    forward . /etc/resolv.conf {{
       max_concurrent 1000
    }}
    cache 30 {{
       disable success {DNS_DOMAIN}
       disable denial {DNS_DOMAIN}
    }}
    loop
    reload
    loadbalance
}}
"""

CLUSTER_CONFIGURATION = f"""apiServer: {{}}
apiVersion: kubeadm.k8s.io/v1beta4
caCertificateValidityPeriod: 87600h0m0s
certificateValidityPeriod: 8760h0m0s
certificatesDir: /etc/kubernetes/pki
clusterName: kubernetes
controllerManager: {{}}
dns: {{}}
encryptionAlgorithm: RSA-2048
etcd:
  local:
    dataDir: /var/lib/etcd
imageRepository: registry.k8s.io
kind: ClusterConfiguration
kubernetesVersion: {KUBERNETES_VERSION}
networking:
  dnsDomain: {DNS_DOMAIN}
  podSubnet: {POD_SUBNET}
  serviceSubnet: {SERVICE_SUBNET}
proxy: {{}}
scheduler: {{}}
"""

KUBELET_CONFIGURATION = f"""apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 0s
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
authorization:
  mode: Webhook
  webhook:
    cacheAuthorizedTTL: 0s
    cacheUnauthorizedTTL: 0s
cgroupDriver: systemd
clusterDNS:
- {DNS_SERVICE_IP}
clusterDomain: {DNS_DOMAIN}
containerRuntimeEndpoint: ""
cpuManagerReconcilePeriod: 0s
crashLoopBackOff: {{}}
evictionPressureTransitionPeriod: 0s
fileCheckFrequency: 0s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
httpCheckFrequency: 0s
imageMaximumGCAge: 0s
imageMinimumGCAge: 0s
kind: KubeletConfiguration
logging:
  flushFrequency: 0
  options:
    json:
      infoBufferSize: "0"
    text:
      infoBufferSize: "0"
  verbosity: 0
memorySwap: {{}}
nodeStatusReportFrequency: 0s
nodeStatusUpdateFrequency: 0s
rotateCertificates: true
runtimeRequestTimeout: 0s
shutdownGracePeriod: 0s
shutdownGracePeriodCriticalPods: 0s
staticPodPath: /etc/kubernetes/manifests
streamingConnectionIdleTimeout: 0s
syncFrequency: 0s
volumeStatsAggPeriod: 0s
"""

KUBE_PROXY_CONFIGURATION = f"""apiVersion: kubeproxy.config.k8s.io/v1alpha1
bindAddress: 0.0.0.0
bindAddressHardFail: false
clientConnection:
  acceptContentTypes: ""
  burst: 0
  contentType: ""
  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf
  qps: 0
clusterCIDR: {POD_SUBNET}
configSyncPeriod: 0s
conntrack:
  maxPerCore: null
  min: null
  tcpBeLiberal: false
  tcpCloseWaitTimeout: null
  tcpEstablishedTimeout: null
  udpStreamTimeout: 0s
  udpTimeout: 0s
detectLocal:
  bridgeInterface: ""
  interfaceNamePrefix: ""
detectLocalMode: ""
enableProfiling: false
healthzBindAddress: ""
hostnameOverride: ""
iptables:
  localhostNodePorts: null
  masqueradeAll: false
  masqueradeBit: null
  minSyncPeriod: 0s
  syncPeriod: 0s
ipvs:
  excludeCIDRs: null
  minSyncPeriod: 0s
  scheduler: ""
  strictARP: false
  syncPeriod: 0s
  tcpFinTimeout: 0s
  tcpTimeout: 0s
  udpTimeout: 0s
kind: KubeProxyConfiguration
logging:
  flushFrequency: 0
  options:
    json:
      infoBufferSize: "0"
    text:
      infoBufferSize: "0"
  verbosity: 0
metricsBindAddress: ""
mode: ""
nftables:
  masqueradeAll: false
  masqueradeBit: null
  minSyncPeriod: 0s
  syncPeriod: 0s
nodePortAddresses: null
oomScoreAdj: null
portRange: ""
showHiddenMetricsForAlphaFeatures: false
winkernel:
  enableDSR: false
  forwardHealthCheckVip: false
  networkName: ""
  rootHnsEndpointName: ""
  sourceVip: \"\""""


def _kube_proxy_kubeconfig(server: str) -> str:
    return f"""apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
    server: {server}
  name: default
contexts:
- context:
    cluster: default
    namespace: default
    user: default
  name: default
current-context: default
users:
- name: default
  user:
    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token"""


def _cluster_info_kubeconfig(server: str, ca_data: str) -> str:
    """clusterinfo.CreateBootstrapConfigMapIfNotExists: the admin kubeconfig's cluster, no users."""
    return f"""apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: {ca_data}
    server: {server}
  name: ""
contexts: null
current-context: ""
kind: Config
preferences: {{}}
users: null
"""


def _meta(name: str, namespace: str | None = None, **extra) -> dict:
    md: dict = {"name": name}
    if namespace:
        md["namespace"] = namespace
    md.update(extra)
    return md


def coredns_objects() -> list[dict]:
    """dns.go createCoreDNSAddon's objects, in its order (ConfigMap, Deployment, Service), after
    the ServiceAccount and RBAC of createDNSService's caller."""
    app = {"k8s-app": "kube-dns"}
    deployment = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": _meta("coredns", KUBE_SYSTEM, labels=dict(app)),
        "spec": {
            "replicas": 2,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "selector": {"matchLabels": dict(app)},
            "template": {"metadata": {"labels": dict(app)}, "spec": {
                "priorityClassName": "system-cluster-critical",
                "serviceAccountName": "coredns",
                "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 100, "podAffinityTerm": {
                        "labelSelector": {"matchExpressions": [
                            {"key": "k8s-app", "operator": "In", "values": ["kube-dns"]}]},
                        "topologyKey": "kubernetes.io/hostname"}}]}},
                "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"},
                                {"key": CONTROL_PLANE_TAINT_KEY, "effect": "NoSchedule"}],
                "nodeSelector": {"kubernetes.io/os": "linux"},
                "containers": [{
                    "name": "coredns", "image": COREDNS_IMAGE, "imagePullPolicy": "IfNotPresent",
                    "resources": {"limits": {"memory": "170Mi"}, "requests": {"cpu": "100m", "memory": "70Mi"}},
                    "args": ["-conf", "/etc/coredns/Corefile"],
                    "volumeMounts": [{"name": "config-volume", "mountPath": "/etc/coredns", "readOnly": True}],
                    "ports": [{"containerPort": 53, "name": "dns", "protocol": "UDP"},
                              {"containerPort": 53, "name": "dns-tcp", "protocol": "TCP"},
                              {"containerPort": 9153, "name": "metrics", "protocol": "TCP"},
                              {"containerPort": 8080, "name": "liveness-probe", "protocol": "TCP"},
                              {"containerPort": 8181, "name": "readiness-probe", "protocol": "TCP"}],
                    "livenessProbe": {"httpGet": {"path": "/health", "port": "liveness-probe", "scheme": "HTTP"},
                                      "initialDelaySeconds": 60, "timeoutSeconds": 5, "successThreshold": 1,
                                      "failureThreshold": 5},
                    "readinessProbe": {"httpGet": {"path": "/ready", "port": "readiness-probe", "scheme": "HTTP"}},
                    "securityContext": {"allowPrivilegeEscalation": False,
                                        "capabilities": {"add": ["NET_BIND_SERVICE"], "drop": ["ALL"]},
                                        "readOnlyRootFilesystem": True},
                }],
                "dnsPolicy": "Default",
                "volumes": [{"name": "config-volume", "configMap": {
                    "name": "coredns", "items": [{"key": "Corefile", "path": "Corefile"}]}}],
            }},
        },
    }
    service = {
        "apiVersion": "v1", "kind": "Service",
        "metadata": _meta("kube-dns", KUBE_SYSTEM,
                          labels={"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true",
                                  "kubernetes.io/name": "CoreDNS"},
                          annotations={"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}),
        "spec": {"clusterIP": DNS_SERVICE_IP,
                 "ports": [{"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                           {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
                           {"name": "metrics", "port": 9153, "protocol": "TCP", "targetPort": 9153}],
                 "selector": dict(app)},
    }
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta("coredns", KUBE_SYSTEM)},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": _meta("system:coredns"),
         "rules": [{"apiGroups": [""], "resources": ["endpoints", "services", "pods", "namespaces"],
                    "verbs": ["list", "watch"]},
                   {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"],
                    "verbs": ["list", "watch"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": _meta("system:coredns"),
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:coredns"},
         "subjects": [{"kind": "ServiceAccount", "name": "coredns", "namespace": KUBE_SYSTEM}]},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta("coredns", KUBE_SYSTEM),
         "data": {"Corefile": COREFILE}},
        deployment,
        service,
    ]


def kube_proxy_objects(server: str) -> list[dict]:
    """proxy.go EnsureProxyAddon's objects: the ConfigMap, the DaemonSet, then
    printOrCreateKubeProxyObjects' ServiceAccount, ClusterRoleBinding, Role and RoleBinding."""
    app = {"k8s-app": "kube-proxy"}
    daemonset = {
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": _meta("kube-proxy", KUBE_SYSTEM, labels=dict(app)),
        "spec": {
            "selector": {"matchLabels": dict(app)},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {"metadata": {"labels": dict(app)}, "spec": {
                "priorityClassName": "system-node-critical",
                "containers": [{
                    "name": "kube-proxy", "image": KUBE_PROXY_IMAGE, "imagePullPolicy": "IfNotPresent",
                    "command": ["/usr/local/bin/kube-proxy", "--config=/var/lib/kube-proxy/config.conf",
                                "--hostname-override=$(NODE_NAME)"],
                    "securityContext": {"privileged": True},
                    "volumeMounts": [{"mountPath": "/var/lib/kube-proxy", "name": "kube-proxy"},
                                     # the manifest's ``readOnly: false``: dropped by kubeadm's decode into
                                     # the typed DaemonSet (a plain bool, omitempty) before it POSTs it
                                     {"mountPath": "/run/xtables.lock", "name": "xtables-lock"},
                                     {"mountPath": "/lib/modules", "name": "lib-modules", "readOnly": True}],
                    "env": [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                }],
                "hostNetwork": True,
                "serviceAccountName": "kube-proxy",
                "volumes": [{"name": "kube-proxy", "configMap": {"name": "kube-proxy"}},
                            {"name": "xtables-lock", "hostPath": {"path": "/run/xtables.lock", "type": "FileOrCreate"}},
                            {"name": "lib-modules", "hostPath": {"path": "/lib/modules"}}],
                "tolerations": [{"operator": "Exists"}],
                "nodeSelector": {"kubernetes.io/os": "linux"},
            }},
        },
    }
    return [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta("kube-proxy", KUBE_SYSTEM, labels=dict(app)),
         "data": {"kubeconfig.conf": _kube_proxy_kubeconfig(server), "config.conf": KUBE_PROXY_CONFIGURATION}},
        daemonset,
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta("kube-proxy", KUBE_SYSTEM)},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": _meta("kubeadm:node-proxier"),
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:node-proxier"},
         "subjects": [{"kind": "ServiceAccount", "name": "kube-proxy", "namespace": KUBE_SYSTEM}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": _meta("kube-proxy", KUBE_SYSTEM),
         "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"],
                    "resourceNames": ["kube-proxy"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
         "metadata": _meta("kube-proxy", KUBE_SYSTEM),
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "kube-proxy"},
         "subjects": [{"kind": "Group", "name": NODE_BOOTSTRAP_TOKEN_AUTH_GROUP}]},
    ]


def config_objects(server: str, ca_data: str) -> list[dict]:
    """uploadconfig's ``kubeadm-config``, the kubelet phase's ``kubelet-config`` and
    clusterinfo's ``cluster-info`` (in kube-public)."""
    return [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta("kubeadm-config", KUBE_SYSTEM),
         "data": {"ClusterConfiguration": CLUSTER_CONFIGURATION}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta("kubelet-config", KUBE_SYSTEM),
         "data": {"kubelet": KUBELET_CONFIGURATION}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta("cluster-info", "kube-public"),
         "data": {"kubeconfig": _cluster_info_kubeconfig(server, ca_data)}},
    ]


def addon_objects(advertise_address: str) -> list[dict]:
    """Every object, in the order kubeadm init's phases create them (upload-config, kubelet
    config, bootstrap-token's cluster-info, then addon/coredns and addon/kube-proxy)."""
    import base64

    from kubesim.controllers.rootcacertpublisher import ROOT_CA

    server = f"https://{advertise_address}:6443"
    ca_data = base64.b64encode(ROOT_CA.encode()).decode()
    return config_objects(server, ca_data) + coredns_objects() + kube_proxy_objects(server)


_PLURALS = {"ConfigMap": "configmaps", "ServiceAccount": "serviceaccounts", "Service": "services",
            "Deployment": "deployments", "DaemonSet": "daemonsets", "ClusterRole": "clusterroles",
            "ClusterRoleBinding": "clusterrolebindings", "Role": "roles", "RoleBinding": "rolebindings"}


def api_path(obj: dict, collection: bool = False) -> str:
    """The REST path of an add-on object (its collection's with ``collection``): what the
    conformance oracle POSTs and DELETEs on the real cluster."""
    group_version = obj["apiVersion"]
    base = f"/api/{group_version}" if "/" not in group_version else f"/apis/{group_version}"
    ns = obj["metadata"].get("namespace")
    path = f"{base}/namespaces/{ns}/{_PLURALS[obj['kind']]}" if ns else f"{base}/{_PLURALS[obj['kind']]}"
    return path if collection else f"{path}/{obj['metadata']['name']}"


def advertise_address(control_plane_node: dict | None) -> str:
    """kubeadm's advertise address: the control-plane node's InternalIP; without one (``cluster
    init --empty``) the address the first registered machine gets."""
    from kubesim.api.nodes import internal_ip
    from kubesim.kubelet.node import Allocator

    ip = internal_ip(control_plane_node) if control_plane_node is not None else ""
    return ip or Allocator([]).internal_ip()


def install(cluster, advertise_address: str) -> None:
    """Create what is missing of :func:`addon_objects` through the API server's create."""
    from kubesim.api import kinds
    from kubesim.apiserver.objects import create_object

    store = cluster.store
    saved = store.rng
    if saved is not None:
        store.rng = random.Random(f"{cluster.env.get('KUBESIM_SEED')}:kubeadm-addons")
    try:
        for obj in addon_objects(advertise_address):
            md = obj["metadata"]
            if store.get(obj["kind"], md.get("namespace", ""), md["name"]) is None:
                create_object(cluster, obj, kinds.for_object(obj))
    finally:
        store.rng = saved
