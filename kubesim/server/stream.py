"""``pods/exec``, ``pods/attach`` and ``pods/portforward`` for ``kubesim serve``: the streaming
subresources, over WebSocket as kubectl 1.36 asks for them, answered by the simulated exec
(kubesim.controlplane.network through the client's ``exec``).

What kube-apiserver v1.35 does, and so this module:
- the location first (pkg/registry/core/pod/strategy.go streamLocation): the pod (404), the
  container (validateContainer's BadRequest), ``pod P does not have a host assigned``. These
  are plain Status responses: kubectl's WebSocket dial fails with an UpgradeFailureError, it
  falls back to SPDY (client-go tools/remotecommand/fallback.go), the POST gets the same Status,
  and kubectl prints ``Error from server (BadRequest): ...``.
- then the upgrade (staging/src/k8s.io/apiserver/pkg/util/proxy/streamtranslator.go and
  websocket.go createWebSocketStreams): subprotocol ``v5.channel.k8s.io`` (``v4.channel.k8s.io``
  and ``channel.k8s.io`` as the kubelet's legacy WebSocket server speaks them), each binary
  message prefixed by its channel (stdin 0, stdout 1, stderr 2, error 3, resize 4), an empty
  message on the lowest writable channel once open, v5's CLOSE signal (``255, channel``) for
  the end of stdin; at the end one metav1.Status on the error channel — Success, or
  ``NonZeroExitCode`` with an ``ExitCode`` cause (client-go v4.go errorDecoderV4: kubectl's
  ``command terminated with exit code N``), or the kubelet's refusal as an InternalError
  (``Internal error occurred: unable to upgrade connection: container not found ("c")``).
- a request that is no upgrade: ``Upgrade request required`` (apimachinery/pkg/util/proxy
  upgradeaware.go).

kubesim's own: a shell with stdin (``exec -i[t] POD -- sh``) runs each line it reads as one
simulated command (with a TTY: echo, ``/ # `` prompt, ^C, ^D, ``exit [N]``); SPDY/3.1 upgrades
are refused with a Status saying so (kubectl 1.36 only falls back to SPDY when the WebSocket
upgrade failed, which here happens only for the errors above); attach streams what the
container writes to its log from then on. Port-forward: kubesim.server.portforward.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from kubesim.errors import BadRequest, KubesimError
from kubesim.server import websocket

STDIN, STDOUT, STDERR, ERROR, RESIZE = 0, 1, 2, 3, 4
CLOSE_SIGNAL = 255
V5, V4, V1 = "v5.channel.k8s.io", "v4.channel.k8s.io", "channel.k8s.io"
PROTOCOLS = [V5, V4, V1]
SHELLS = ("sh", "bash", "ash", "dash", "zsh")
PROMPT = "/ # "
ATTACH_POLL = 0.25


def _bool(q: dict, name: str) -> bool:
    return (q.get(name) or ["false"])[-1].lower() in ("1", "true", "t")


def serve(handler, t, method: str) -> None:
    """The handler's request for pods/NAME/{exec,attach,portforward}."""
    q = parse_qs(urlsplit(handler.path).query, keep_blank_values=True)
    container = (q.get("container") or [""])[-1]
    with handler.client(write=False) as c:
        pod = c.get(t.info, t.namespace or "", t.name)
        if t.sub != "portforward":
            from kubesim.api.core import podlogs

            container = podlogs.container_for(pod, container)
        if not (pod.get("spec") or {}).get("nodeName"):
            raise BadRequest(f"pod {t.name} does not have a host assigned")
    if t.sub == "portforward":
        return _port_forward(handler, t)
    if not websocket.is_upgrade(handler.headers):
        if (handler.headers.get("Upgrade") or "").lower().startswith("spdy/"):
            raise BadRequest("kubesim serve streams pods/" + t.sub + " over WebSocket (v5.channel.k8s.io) only, "
                             "not SPDY/3.1")
        raise BadRequest("Upgrade request required")
    why = websocket.handshake_error(handler.headers, PROTOCOLS)
    if why:
        raise BadRequest(why)
    opts = {"stdin": _bool(q, "stdin"), "stdout": _bool(q, "stdout"), "stderr": _bool(q, "stderr"),
            "tty": _bool(q, "tty"), "command": q.get("command") or []}
    if t.sub == "exec" and not opts["command"]:
        raise BadRequest("you must specify at least one command for the container")
    if not (opts["stdin"] or opts["stdout"] or opts["stderr"]):
        raise BadRequest("you must specify at least 1 of stdin, stdout, stderr")
    protocol = websocket.choose_protocol(handler.headers, PROTOCOLS)
    _switch(handler, protocol)
    session = Session(handler, t, container, opts, protocol)
    try:
        session.run()
    except (websocket.Closed, websocket.ProtocolError, OSError):
        pass


def _port_forward(handler, t) -> None:
    """The tunnelling handler (apiserver pkg/util/proxy/streamtunnel.go): a WebSocket whose
    subprotocol is ``SPDY/3.1+portforward.k8s.io``, kubesim.server.portforward inside."""
    import zlib

    from kubesim.server import portforward

    if not websocket.is_upgrade(handler.headers):
        if (handler.headers.get("Upgrade") or "").lower().startswith("spdy/"):
            raise BadRequest("kubesim serve streams pods/portforward over WebSocket (SPDY/3.1+portforward.k8s.io) "
                             "only, not SPDY/3.1")
        raise BadRequest("Upgrade request required")
    why = websocket.handshake_error(handler.headers, [portforward.PROTOCOL])
    if why:
        raise BadRequest(why)
    _switch(handler, portforward.PROTOCOL)
    try:
        portforward.Tunnel(handler, t).run()
    except (websocket.Closed, websocket.ProtocolError, OSError, zlib.error):
        pass


def _switch(handler, protocol: str) -> None:
    """The 101 answer to the opening handshake."""
    handler.send_response(101)
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept", websocket.accept_key(handler.headers["Sec-WebSocket-Key"]))
    handler.send_header("Sec-WebSocket-Protocol", protocol)
    handler.end_headers()
    handler.wfile.flush()
    handler.close_connection = True


def exit_status(code: int) -> dict:
    """streamtranslator.go codeExitToStatusError."""
    return {"metadata": {}, "status": "Failure",
            "message": f"command terminated with non-zero exit code: command terminated with exit code {code}",
            "reason": "NonZeroExitCode", "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}


def internal_error(detail: str) -> dict:
    """apierrors.NewInternalError."""
    return {"metadata": {}, "status": "Failure", "message": f"Internal error occurred: {detail}",
            "reason": "InternalError", "details": {"causes": [{"message": detail}]}, "code": 500}


SUCCESS = {"metadata": {}, "status": "Success"}


class Refused(Exception):
    """The kubelet refused the stream (the container is not running)."""


class Session:
    """One upgraded exec or attach: its channels and what runs behind them."""

    def __init__(self, handler, t, container: str, opts: dict, protocol: str):
        self.handler, self.t, self.container, self.opts = handler, t, container, opts
        self.ws = websocket.Conn(handler.rfile, handler.wfile)
        self.close_signal = protocol == V5
        self.stdin_open = opts["stdin"]
        self.pending = b""  # stdin read but not yet consumed

    def write(self, channel: int, data: bytes) -> None:
        if channel == STDERR and self.opts["tty"]:
            channel = STDOUT  # a TTY has no stderr: the kubelet merges it
        if (channel == STDOUT and not self.opts["stdout"]) or (channel == STDERR and not self.opts["stderr"]):
            return
        self.ws.send(bytes([channel]) + data)

    def run(self) -> None:
        # the lowest writable channel learns the connection is open (createWebSocketStreams)
        first = STDOUT if self.opts["stdout"] else STDERR if self.opts["stderr"] else ERROR
        self.ws.send(bytes([first]))
        try:
            if self.t.sub == "attach":
                result = self.attach()
            else:
                result = self.exec()
        except Refused as e:
            result = internal_error(str(e))
        except KubesimError as e:
            result = internal_error(getattr(e, "message", str(e)))
        self.ws.send(bytes([ERROR]) + json.dumps(result, separators=(",", ":")).encode())
        self.ws.close()
        self._drain()

    def _drain(self) -> None:
        """Until the client answers the close (or leaves): closing the socket on unread data
        would reset the connection under the last messages."""
        try:
            self.handler.connection.settimeout(2)
            while True:
                self.ws.receive()
        except (websocket.Closed, websocket.ProtocolError, OSError):
            pass

    # -- exec -------------------------------------------------------------------------------
    def run_command(self, argv: list[str]) -> tuple[str, str, int]:
        t = self.t
        with self.handler.client(write=False) as c:
            try:
                # (the served cluster's clock follows the wall clock: a sleep takes no time here)
                return c.exec(t.namespace or "", t.name, self.container, argv)[:3]
            except KubesimError as e:
                text = str(e)
                if text.startswith("error: unable to upgrade connection: "):
                    raise Refused(text[len("error: "):]) from None
                raise

    def exec(self) -> dict:
        argv = list(self.opts["command"])
        if self.opts["stdin"] and len(argv) == 1 and argv[0].rsplit("/", 1)[-1] in SHELLS:
            code = self.shell(argv[0])
        else:
            out, err, code = self.run_command(argv)
            self.write(STDOUT, out.encode())
            self.write(STDERR, err.encode())
        return exit_status(code) if code else SUCCESS

    def read_stdin(self) -> bytes | None:
        """The next bytes the client sends on stdin; None at its end."""
        while self.stdin_open:
            try:
                _, data = self.ws.receive()
            except websocket.Closed:
                self.stdin_open = False
                return None
            if not data:
                continue
            channel, payload = data[0], data[1:]
            if channel == CLOSE_SIGNAL and self.close_signal:
                if payload[:1] == bytes([STDIN]):
                    self.stdin_open = False
                    return None
                continue
            if channel == STDIN and payload:
                return payload
        return None

    def shell(self, shell: str) -> int:
        """A shell reading its commands from stdin: each line one simulated ``shell -c LINE``."""
        tty = self.opts["tty"]
        code = 0
        line = ""
        if tty:
            self.write(STDOUT, PROMPT.encode())
        while True:
            data = self.read_stdin()
            if data is None:
                lines = [line] if line.strip() else []
                for rest in lines:
                    done, code = self._run_line(shell, rest, code, tty)
                    if done:
                        return code
                return code
            for ch in data.decode(errors="replace"):
                if tty:
                    if ch in "\r\n":
                        self.write(STDOUT, b"\r\n")
                        done, code = self._run_line(shell, line, code, tty)
                        if done:
                            return code
                        line = ""
                        self.write(STDOUT, PROMPT.encode())
                    elif ch in "\x7f\b":
                        if line:
                            line = line[:-1]
                            self.write(STDOUT, b"\b \b")
                    elif ch == "\x03":  # ^C: the line is dropped
                        line = ""
                        self.write(STDOUT, ("^C\r\n" + PROMPT).encode())
                    elif ch == "\x04":  # ^D on an empty line: the shell's end of input
                        if not line:
                            self.write(STDOUT, b"\r\n")
                            return code
                    elif ch >= " " or ch == "\t":
                        line += ch
                        self.write(STDOUT, ch.encode())
                elif ch == "\n":
                    done, code = self._run_line(shell, line, code, tty)
                    if done:
                        return code
                    line = ""
                else:
                    line += ch

    def _run_line(self, shell: str, line: str, code: int, tty: bool) -> tuple[bool, int]:
        words = line.split()
        if not words:
            return False, code
        if words[0] == "exit":
            if len(words) > 1:
                try:
                    return True, int(words[1]) & 0xFF
                except ValueError:
                    return True, 2
            return True, code
        out, err, code = self.run_command([shell, "-c", line])
        if tty:
            out, err = out.replace("\n", "\r\n"), err.replace("\n", "\r\n")
        self.write(STDOUT, out.encode())
        self.write(STDERR, err.encode())
        return False, code

    # -- attach -----------------------------------------------------------------------------
    def attach(self) -> dict:
        """What the container writes from now on (its log's new lines), until it stops, the
        pod goes, or the client leaves."""
        import threading

        t, backend = self.t, self.handler.backend
        left = threading.Event()

        def reader():
            try:
                while True:
                    self.ws.receive()
            except (websocket.Closed, websocket.ProtocolError, OSError):
                left.set()

        with self.handler.client(write=False) as c:
            pod = c.get(t.info, t.namespace or "", t.name)
            if not _running(pod, self.container):
                raise Refused(f'unable to upgrade connection: container not found ("{self.container}")')
            seen = len(c.log_entries(t.namespace or "", t.name, self.container))
        shell = _shell_of(pod, self.container)
        if self.opts["stdin"] and shell:  # an interactive shell (kubectl run -it ... -- sh): its lines run
            self.shell(shell)  # (attach reports no exit code: kubectl reads it from the pod's status)
            return SUCCESS
        threading.Thread(target=reader, daemon=True).start()
        while not left.is_set():
            backend.wait_for_change(ATTACH_POLL)
            with self.handler.client(write=False) as c:
                pod = c.find(t.info, t.namespace or "", t.name)
                if pod is None:
                    break
                entries = c.log_entries(t.namespace or "", t.name, self.container)
            new, seen = entries[seen:], len(entries)
            if new:
                self.write(STDOUT, "".join(line + "\n" for _, line in new).encode())
            if not _running(pod, self.container):
                break
        return SUCCESS


def _running(pod: dict, name: str) -> bool:
    for group in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for cs in (pod.get("status") or {}).get(group) or ():
            if cs.get("name") == name:
                return "running" in (cs.get("state") or {})
    return False


SHELL_IMAGES = ("busybox", "alpine", "ubuntu", "debian", "centos", "fedora", "rockylinux", "almalinux")


def _shell_of(pod: dict, name: str) -> str:
    """The shell a container runs with nothing else to do (``sh``, ``/bin/bash``; an image whose
    default command is one when the pod gives none), else ""."""
    for c in (pod.get("spec") or {}).get("containers") or ():
        if c.get("name") != name:
            continue
        argv = list(c.get("command") or []) + list(c.get("args") or [])
        if not argv:
            repo = (c.get("image") or "").split("@")[0].rsplit(":", 1)[0] if ":" in (c.get("image") or "").rsplit("/", 1)[-1] \
                else (c.get("image") or "").split("@")[0]
            if repo.rsplit("/", 1)[-1] in SHELL_IMAGES:
                return "sh"
            return ""
        if len(argv) == 1 and argv[0].rsplit("/", 1)[-1] in SHELLS:
            return argv[0]
        if len(argv) == 2 and argv[0].rsplit("/", 1)[-1] in SHELLS and argv[1] in ("-i", "-l"):
            return argv[0]
    return ""
