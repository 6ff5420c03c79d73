"""The image catalogue: what a container runs when its manifest gives no command, and which
programs serve forever on which ports.

kubesim pulls no images, so the ENTRYPOINT and CMD of the images people meet in tutorials and
exams are written down here (from each image's published Dockerfile), with the ports their
servers listen on and, for a few, what they print at start. Images whose default command is a
shell or REPL (busybox, alpine, ubuntu, python, ...) are listed by that command.

:func:`image_repository` is the key into :data:`IMAGES`: a reference's familiar name without tag
or digest, as github.com/distribution/reference's ``FamiliarName`` (normalize.go) shortens
``docker.io/library/nginx:1.27`` to ``nginx``.
"""

from __future__ import annotations

from kubesim.api.record import FrozenRecord


class ImageInfo(FrozenRecord):
    """What an image runs without a command: ENTRYPOINT and CMD, what it serves."""
    __slots__ = ("cmd", "entrypoint", "output", "ports", "sigterm")

    def __init__(self, entrypoint: tuple[str, ...] = (), cmd: tuple[str, ...] = (),
                 ports: tuple[int, ...] | None = None, sigterm: str = "exit", output: tuple[str, ...] = ()):
        self.entrypoint = entrypoint
        self.cmd = cmd
        self.ports = ports
        self.sigterm = sigterm
        self.output = output


_SHELL_IMAGES = {
    "busybox": ("sh",), "alpine": ("/bin/sh",), "ubuntu": ("/bin/bash",), "debian": ("bash",),
    "centos": ("/bin/bash",), "fedora": ("/bin/bash",), "rockylinux": ("/bin/bash",),
    "almalinux": ("/bin/bash",), "amazonlinux": ("/bin/bash",), "oraclelinux": ("/bin/bash",),
    "archlinux": ("/usr/bin/bash",), "opensuse/leap": ("/bin/bash",), "bash": ("bash",),
    "python": ("python3",), "node": ("node",), "ruby": ("irb",), "golang": ("bash",),
    "openjdk": ("jshell",), "eclipse-temurin": ("jshell",), "perl": ("perl", "-de0"), "php": ("php", "-a"),
    "rust": ("bash",), "gcc": ("bash",), "buildpack-deps": ("bash",), "docker.io/library/busybox": ("sh",),
    "registry.k8s.io/busybox": ("sh",), "gcr.io/google-containers/busybox": ("sh",),
    "k8s.gcr.io/busybox": ("sh",), "radial/busyboxplus": ("/bin/sh",), "nicolaka/netshoot": ("zsh",),
}

NGINX_LOG = (
    "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
    "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
    "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
    "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
    "/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
    "/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh",
    "/docker-entrypoint.sh: Configuration complete; ready for start up",
    "{ts:%Y/%m/%d %H:%M:%S} [notice] 1#1: using the \"epoll\" event method",
    "{ts:%Y/%m/%d %H:%M:%S} [notice] 1#1: start worker processes",
)

HELLO_WORLD = (
    "", "Hello from Docker!", "This message shows that your installation appears to be working correctly.", "",
    "To generate this message, Docker took the following steps:",
    " 1. The Docker client contacted the Docker daemon.",
    " 2. The Docker daemon pulled the \"hello-world\" image from the Docker Hub.", "    (amd64)",
    " 3. The Docker daemon created a new container from that image which runs the",
    "    executable that produces the output you are currently reading.",
    " 4. The Docker daemon streamed that output to the Docker client, which sent it", "    to your terminal.", "",
    "To try something more ambitious, you can run an Ubuntu container with:",
    " $ docker run -it ubuntu bash", "", "Share images, automate workflows, and more with a free Docker ID:",
    " https://hub.docker.com/", "", "For more examples and ideas, visit:",
    " https://docs.docker.com/get-started/", "",
)

# kubeadm's control-plane components: their first klog lines (PID 1 in the container), at the
# verbosity kubeadm's manifests leave them (0); the call sites are v1.35's
# (cmd/kube-apiserver/app/server.go Run, cmd/kube-controller-manager/app/controllermanager.go Run,
# cmd/kube-scheduler/app/server.go Run, k8s.io/apiserver's serving.go, secure_serving.go and
# dynamiccertificates/tlsconfig.go, client-go's leaderelection.go); etcd logs JSON (zap), as
# go.etcd.io/etcd/server/v3 embed/etcd.go and etcdserver/server.go start it.
_KLOG = "I{ts:%m%d %H:%M:%S}.000000       1 "
KUBE_APISERVER_LOG = (
    _KLOG + "server.go:150] Version: v1.35.0",
    _KLOG + 'server.go:152] "Golang settings" GOGC="" GOMAXPROCS="" GOTRACEBACK=""',
    _KLOG + "secure_serving.go:211] Serving securely on [::]:6443",
    _KLOG + 'tlsconfig.go:243] "Starting DynamicServingCertificateController"',
)
KUBE_CONTROLLER_MANAGER_LOG = (
    _KLOG + "serving.go:386] Generated self-signed cert in-memory",
    _KLOG + 'controllermanager.go:189] "Starting" version="v1.35.0"',
    _KLOG + 'controllermanager.go:191] "Golang settings" GOGC="" GOMAXPROCS="" GOTRACEBACK=""',
    _KLOG + "secure_serving.go:211] Serving securely on 127.0.0.1:10257",
    _KLOG + 'tlsconfig.go:243] "Starting DynamicServingCertificateController"',
    _KLOG + 'leaderelection.go:258] "Attempting to acquire leader lease..." lock="kube-system/kube-controller-manager"',
    _KLOG + 'leaderelection.go:272] "Successfully acquired lease" lock="kube-system/kube-controller-manager"',
)
KUBE_SCHEDULER_LOG = (
    _KLOG + "serving.go:386] Generated self-signed cert in-memory",
    _KLOG + 'server.go:175] "Starting Kubernetes Scheduler" version="v1.35.0"',
    _KLOG + 'server.go:177] "Golang settings" GOGC="" GOMAXPROCS="" GOTRACEBACK=""',
    _KLOG + "secure_serving.go:211] Serving securely on 127.0.0.1:10259",
    _KLOG + 'tlsconfig.go:243] "Starting DynamicServingCertificateController"',
    _KLOG + 'leaderelection.go:258] "Attempting to acquire leader lease..." lock="kube-system/kube-scheduler"',
    _KLOG + 'leaderelection.go:272] "Successfully acquired lease" lock="kube-system/kube-scheduler"',
)
_ZAP = '{{"level":"info","ts":"{{ts:%Y-%m-%dT%H:%M:%S}}.000000Z","caller":"{caller}","msg":"{msg}"}}'
ETCD_LOG = (
    _ZAP.format(caller="embed/etcd.go:324", msg="starting an etcd server"),
    _ZAP.format(caller="etcdserver/server.go:590", msg="starting etcd server"),
    _ZAP.format(caller="embed/serve.go:284", msg="serving client traffic securely"),
    _ZAP.format(caller="embed/serve.go:284", msg="serving client traffic securely"),
)

# image (repository without registry defaults and tag) -> what it runs
IMAGES: dict[str, ImageInfo] = {
    "nginx": ImageInfo(("/docker-entrypoint.sh",), ("nginx", "-g", "daemon off;"), (80,), output=NGINX_LOG),
    "nginxinc/nginx-unprivileged": ImageInfo(("/docker-entrypoint.sh",), ("nginx", "-g", "daemon off;"), (8080,)),
    "nginxdemos/hello": ImageInfo(("/docker-entrypoint.sh",), ("nginx", "-g", "daemon off;"), (80,)),
    "httpd": ImageInfo((), ("httpd-foreground",), (80,)),
    "redis": ImageInfo(("docker-entrypoint.sh",), ("redis-server",), (6379,)),
    "memcached": ImageInfo(("docker-entrypoint.sh",), ("memcached",), (11211,)),
    "mongo": ImageInfo(("docker-entrypoint.sh",), ("mongod",), (27017,)),
    "postgres": ImageInfo(("docker-entrypoint.sh",), ("postgres",), (5432,)),
    "mysql": ImageInfo(("docker-entrypoint.sh",), ("mysqld",), (3306, 33060)),
    "mariadb": ImageInfo(("docker-entrypoint.sh",), ("mariadbd",), (3306,)),
    "rabbitmq": ImageInfo(("docker-entrypoint.sh",), ("rabbitmq-server",), (5672, 15672)),
    "traefik": ImageInfo(("/entrypoint.sh",), ("traefik",), (80, 8080)),
    "traefik/whoami": ImageInfo(("/whoami",), (), (80,)),
    "containous/whoami": ImageInfo(("/whoami",), (), (80,)),
    "caddy": ImageInfo((), ("caddy", "run", "--config", "/etc/caddy/Caddyfile"), (80,)),
    "haproxy": ImageInfo(("docker-entrypoint.sh",), ("haproxy", "-f", "/usr/local/etc/haproxy/haproxy.cfg"), (80,)),
    "tomcat": ImageInfo((), ("catalina.sh", "run"), (8080,)),
    "jenkins/jenkins": ImageInfo(("/usr/bin/tini", "--", "/usr/local/bin/jenkins.sh"), (), (8080, 50000)),
    "grafana/grafana": ImageInfo(("/run.sh",), (), (3000,)),
    "prom/prometheus": ImageInfo(("/bin/prometheus",), (), (9090,)),
    "registry": ImageInfo(("/entrypoint.sh",), ("/etc/docker/registry/config.yml",), (5000,)),
    "elasticsearch": ImageInfo(("/bin/tini", "--", "/usr/local/bin/docker-entrypoint.sh"), (), (9200, 9300)),
    "wordpress": ImageInfo(("docker-entrypoint.sh",), ("apache2-foreground",), (80,)),
    "kennethreitz/httpbin": ImageInfo((), ("gunicorn",), (80,)),
    "hashicorp/http-echo": ImageInfo(("/http-echo",), (), (5678,)),
    "k8s.gcr.io/echoserver": ImageInfo((), ("nginx",), (8080,)),
    "registry.k8s.io/echoserver": ImageInfo((), ("nginx",), (8080,)),
    "gcr.io/google-samples/hello-app": ImageInfo(("/hello-app",), (), (8080,)),
    "us-docker.pkg.dev/google-samples/containers/gke/hello-app": ImageInfo(("/hello-app",), (), (8080,)),
    "paulbouwer/hello-kubernetes": ImageInfo((), ("node", "server.js"), (8080,)),
    "registry.k8s.io/goproxy": ImageInfo(("/goproxy",), (), (8080,)),
    "k8s.gcr.io/goproxy": ImageInfo(("/goproxy",), (), (8080,)),
    "registry.k8s.io/pause": ImageInfo(("/pause",), (), ()),
    "k8s.gcr.io/pause": ImageInfo(("/pause",), (), ()),
    "registry.k8s.io/coredns/coredns": ImageInfo(("/coredns",), (), (53, 8080, 8181, 9153)),
    "registry.k8s.io/kube-proxy": ImageInfo((), ("kube-proxy",), (10249, 10256)),
    "registry.k8s.io/etcd": ImageInfo((), ("etcd",), (2379, 2380, 2381), output=ETCD_LOG),
    "registry.k8s.io/kube-apiserver": ImageInfo((), ("kube-apiserver",), (6443,), output=KUBE_APISERVER_LOG),
    "registry.k8s.io/kube-scheduler": ImageInfo((), ("kube-scheduler",), (10259,), output=KUBE_SCHEDULER_LOG),
    "registry.k8s.io/kube-controller-manager": ImageInfo((), ("kube-controller-manager",), (10257,),
                                                         output=KUBE_CONTROLLER_MANAGER_LOG),
    "registry.k8s.io/e2e-test-images/agnhost": ImageInfo(("/agnhost",), ("pause",), ()),
    "polinux/stress": ImageInfo((), ("stress",), ()),
    "hello-world": ImageInfo((), ("/hello",), ()),
    "curlimages/curl": ImageInfo(("/entrypoint.sh",), ("curl",), ()),
    "bitnami/kubectl": ImageInfo(("kubectl",), (), ()),
    "registry.k8s.io/kubectl": ImageInfo(("kubectl",), (), ()),
    "envoyproxy/envoy": ImageInfo(("/docker-entrypoint.sh",), ("envoy", "-c", "/etc/envoy/envoy.yaml"), (10000,)),
    "consul": ImageInfo(("docker-entrypoint.sh",), ("agent", "-dev"), (8500,)),
    "hashicorp/consul": ImageInfo(("docker-entrypoint.sh",), ("agent", "-dev"), (8500,)),
    "vault": ImageInfo(("docker-entrypoint.sh",), ("server", "-dev"), (8200,)),
    "fluent/fluent-bit": ImageInfo(("/fluent-bit/bin/fluent-bit",), (), (2020,)),
    "fluentd": ImageInfo(("tini", "--", "/bin/entrypoint.sh"), ("fluentd",), (24224,)),
    "nats": ImageInfo(("/nats-server",), (), (4222, 8222)),
    "ghost": ImageInfo(("docker-entrypoint.sh",), ("node", "current/index.js"), (2368,)),
}
for _name, _cmd in _SHELL_IMAGES.items():
    IMAGES.setdefault(_name, ImageInfo((), _cmd, ()))

# commands that serve forever, with the ports they listen on
SERVERS = {
    "nginx": (80,), "httpd-foreground": (80,), "httpd": (80,), "apache2-foreground": (80,),
    "redis-server": (6379,), "memcached": (11211,), "mongod": (27017,), "postgres": (5432,),
    "mysqld": (3306,), "mariadbd": (3306,), "rabbitmq-server": (5672,), "traefik": (80,), "caddy": (80,),
    "haproxy": (80,), "catalina.sh": (8080,), "gunicorn": (80,), "/pause": (), "pause": (),
    "/coredns": (53, 8080, 8181), "coredns": (53, 8080, 8181), "kube-proxy": (10249, 10256),
    "etcd": (2379, 2380, 2381), "kube-apiserver": (6443,), "kube-scheduler": (10259,),
    "kube-controller-manager": (10257,), "/goproxy": (8080,), "/hello-app": (8080,), "/http-echo": (5678,),
    "/whoami": (80,), "envoy": (10000,), "/fluent-bit/bin/fluent-bit": (2020,), "/nats-server": (4222, 8222),
    "/bin/prometheus": (9090,), "/run.sh": (3000,), "kubelet": (10250,),
}


def image_repository(image: str) -> str:
    """``docker.io/library/nginx:1.27`` -> ``nginx``; ``registry.k8s.io/pause:3.10`` ->
    ``registry.k8s.io/pause``: the key into :data:`IMAGES`."""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name = name[: len(name) - len(last)] + last.split(":", 1)[0]
    for prefix in ("docker.io/library/", "index.docker.io/library/", "library/", "docker.io/", "index.docker.io/"):
        if name.startswith(prefix):
            name = name[len(prefix):]
            break
    return name


def image_info(image: str, image_defaults: dict | None = None) -> ImageInfo | None:
    repo = image_repository(image)
    table = image_defaults if image_defaults is not None else IMAGES
    if repo in table:
        return table[repo]
    base = repo.rsplit("/", 1)[-1]
    if "/" in repo and base in table and base in _SHELL_IMAGES:
        return table[base]
    return None
