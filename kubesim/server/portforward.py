"""``pods/portforward`` for ``kubesim serve``, as kubectl 1.36 asks for it: SPDY/3.1 tunnelled
in a WebSocket (subprotocol ``SPDY/3.1+portforward.k8s.io``, each binary message a piece of
the SPDY byte stream), the port-forward protocol ``portforward.k8s.io`` on top: for each local
connection kubectl opens an error stream and a data stream (headers ``streamType``, ``port``,
``requestID``); what the data stream carries reaches the pod's port, the answer comes back on
it, and a refusal is written on the error stream.

A refusal waits for what kubectl copies from its local connection (or a short grace): the real
runtime's dial inside the pod's network namespace takes the round trip through the kubelet, by
when kubectl has forwarded the request. Refusing sooner races kubectl's own copy against the
connection it closes on the refusal ("error copying from local connection to remote stream:
... websocket: close sent").

The answer is the simulated network's (kubesim.controlplane.network.forwarded_reply): an HTTP
request gets what the container serves there (nginx's welcome page, ...).

Upstream: client-go tools/portforward (tunneling_dialer.go, tunneling_connection.go,
portforward.go handleConnection), apiserver pkg/util/proxy/streamtunnel.go (the tunnelling
handler), kubelet pkg/kubelet/cri/streaming/portforward/httpstream.go (the streams' pairing and
the error stream), github.com/moby/spdystream/spdy (the SPDY/3 frames: types.go, read.go,
write.go, dictionary.go — the header blocks' zlib dictionary).
"""

from __future__ import annotations

import struct
import threading
import zlib

from kubesim.server import websocket

PROTOCOL = "SPDY/3.1+portforward.k8s.io"
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9
FLAG_FIN = 0x01
VERSION = 3
REFUSAL_GRACE = 0.25  # seconds a refusal waits for kubectl's first bytes on the data stream

# spdystream/spdy/dictionary.go: the SPDY/3 header compression dictionary (draft-mbelshe-httpbis-spdy-00 §2.6.10.1)
DICTIONARY = (
    b'\x00\x00\x00\x07options\x00\x00\x00\x04head\x00\x00\x00\x04post\x00\x00\x00\x03put\x00\x00\x00\x06de'
    b'lete\x00\x00\x00\x05trace\x00\x00\x00\x06accept\x00\x00\x00\x0eaccept-charse'
    b't\x00\x00\x00\x0faccept-encoding\x00\x00\x00\x0faccept-language\x00'
    b'\x00\x00\raccept-ranges\x00\x00\x00\x03age\x00\x00\x00\x05allow\x00\x00\x00\rauth'
    b'orization\x00\x00\x00\rcache-control\x00\x00\x00\nconnection'
    b'\x00\x00\x00\x0ccontent-base\x00\x00\x00\x10content-encoding\x00\x00\x00\x10'
    b'content-language\x00\x00\x00\x0econtent-length\x00\x00\x00\x10co'
    b'ntent-location\x00\x00\x00\x0bcontent-md5\x00\x00\x00\rcontent'
    b'-range\x00\x00\x00\x0ccontent-type\x00\x00\x00\x04date\x00\x00\x00\x04etag\x00\x00'
    b'\x00\x06expect\x00\x00\x00\x07expires\x00\x00\x00\x04from\x00\x00\x00\x04host\x00\x00\x00\x08i'
    b'f-match\x00\x00\x00\x11if-modified-since\x00\x00\x00\rif-none-'
    b'match\x00\x00\x00\x08if-range\x00\x00\x00\x13if-unmodified-since'
    b'\x00\x00\x00\rlast-modified\x00\x00\x00\x08location\x00\x00\x00\x0cmax-for'
    b'wards\x00\x00\x00\x06pragma\x00\x00\x00\x12proxy-authenticate\x00\x00\x00'
    b'\x13proxy-authorization\x00\x00\x00\x05range\x00\x00\x00\x07referer'
    b'\x00\x00\x00\x0bretry-after\x00\x00\x00\x06server\x00\x00\x00\x02te\x00\x00\x00\x07trail'
    b'er\x00\x00\x00\x11transfer-encoding\x00\x00\x00\x07upgrade\x00\x00\x00\nus'
    b'er-agent\x00\x00\x00\x04vary\x00\x00\x00\x03via\x00\x00\x00\x07warning\x00\x00\x00\x10ww'
    b'w-authenticate\x00\x00\x00\x06method\x00\x00\x00\x03get\x00\x00\x00\x06statu'
    b's\x00\x00\x00\x06200 OK\x00\x00\x00\x07version\x00\x00\x00\x08HTTP/1.1\x00\x00\x00\x03ur'
    b'l\x00\x00\x00\x06public\x00\x00\x00\nset-cookie\x00\x00\x00\nkeep-alive\x00'
    b'\x00\x00\x06origin1001012012022052063003023033043'
    b'0530630740240540640740840941041141241341'
    b'4415416417502504505203 Non-Authoritative'
    b' Information204 No Content301 Moved Perm'
    b'anently400 Bad Request401 Unauthorized40'
    b'3 Forbidden404 Not Found500 Internal Ser'
    b'ver Error501 Not Implemented503 Service '
    b'UnavailableJan Feb Mar Apr May Jun Jul A'
    b'ug Sept Oct Nov Dec 00:00:00 Mon, Tue, W'
    b'ed, Thu, Fri, Sat, Sun, GMTchunked,text/'
    b'html,image/png,image/jpg,image/gif,appli'
    b'cation/xml,application/xhtml+xml,text/pl'
    b'ain,text/javascript,publicprivatemax-age'
    b'=gzip,deflate,sdchcharset=utf-8charset=i'
    b'so-8859-1,utf-,*,enq=0.'
)


def refused(port: int, uid: str) -> str:
    """What the kubelet's runtime writes on the error stream when nothing listens (containerd's
    words, its network namespace left out)."""
    return (f"error forwarding port {port} to pod {uid}, uid : failed to execute portforward in network "
            f"namespace: failed to connect to localhost:{port} inside namespace, IPv4: dial tcp4 "
            f"127.0.0.1:{port}: connect: connection refused IPv6 dial tcp6 [::1]:{port}: connect: connection refused ")


class Tunnel:
    """One kubectl port-forward session: the SPDY connection inside the WebSocket."""

    def __init__(self, handler, t):
        self.handler, self.t = handler, t
        self.ws = websocket.Conn(handler.rfile, handler.wfile)
        self.inflate = zlib.decompressobj(zdict=DICTIONARY)
        self.deflate = zlib.compressobj(9, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, DICTIONARY)
        self.streams: dict[int, dict] = {}  # stream id: its headers and, for data, what came in
        self.errors: dict[str, int] = {}  # requestID: its error stream's id
        self.lock = threading.Lock()  # frames go out from the reader and from a refusal's grace timer
        self.timers: dict[int, threading.Timer] = {}  # data stream id: its refusal's grace timer

    # -- frames out ---------------------------------------------------------------------------
    def _control(self, kind: int, flags: int, payload: bytes) -> None:
        with self.lock:
            self.ws.send(struct.pack("!HHI", 0x8000 | VERSION, kind, (flags << 24) | len(payload)) + payload)

    def _data(self, sid: int, data: bytes, fin: bool = False) -> None:
        for at in range(0, max(len(data), 1), 1 << 16):
            chunk = data[at:at + (1 << 16)]
            last = at + (1 << 16) >= len(data)
            with self.lock:
                self.ws.send(struct.pack("!II", sid, ((FLAG_FIN if fin and last else 0) << 24) | len(chunk))
                             + chunk)

    def _reply(self, sid: int) -> None:
        block = self.deflate.compress(struct.pack("!I", 0)) + self.deflate.flush(zlib.Z_SYNC_FLUSH)
        self._control(SYN_REPLY, 0, struct.pack("!I", sid) + block)

    def _finish(self, sid: int) -> None:
        with self.lock:
            s = self.streams.get(sid)
            if s is None or s.get("closed"):
                return
            s["closed"] = True
        self._data(sid, b"", fin=True)

    def _refuse(self, sid: int) -> None:
        """The refusal a data stream waits with: on the error stream, then both streams end."""
        with self.lock:
            s = self.streams.get(sid)
            message = s and s.pop("refusal", None)
            timer = self.timers.pop(sid, None)
        if timer is not None:
            timer.cancel()  # (refused at kubectl's first bytes: the grace is over)
        if message is None:
            return
        err = self.errors.get(s["request"])
        try:
            if err is not None:
                self._data(err, message)
                self._finish(err)
            self._finish(sid)
        except (OSError, ValueError):  # the connection went while the grace ran
            pass

    # -- frames in ----------------------------------------------------------------------------
    def run(self) -> None:
        try:
            self._read()
        finally:
            for timer in list(self.timers.values()):
                timer.cancel()

    def _read(self) -> None:
        buf = b""
        while True:
            try:
                _, data = self.ws.receive()
            except websocket.Closed:
                return
            buf += data
            while len(buf) >= 8:
                length = int.from_bytes(buf[5:8], "big")
                if len(buf) < 8 + length:
                    break
                frame, buf = buf[:8 + length], buf[8 + length:]
                if self._frame(frame) is False:
                    self.ws.close()
                    return

    def _frame(self, frame: bytes) -> bool:
        flags, payload = frame[4], frame[8:]
        if not frame[0] & 0x80:
            sid = struct.unpack("!I", frame[:4])[0] & 0x7FFFFFFF
            self._on_data(sid, payload, bool(flags & FLAG_FIN))
            return True
        kind = struct.unpack("!H", frame[2:4])[0]
        if kind == SYN_STREAM:
            sid = struct.unpack("!I", payload[:4])[0] & 0x7FFFFFFF
            headers = self._headers(payload[10:])
            self._on_stream(sid, headers, bool(flags & FLAG_FIN))
        elif kind == PING:
            self._control(PING, 0, payload[:4])
        elif kind == RST_STREAM:
            sid = struct.unpack("!I", payload[:4])[0] & 0x7FFFFFFF
            with self.lock:
                self.streams.pop(sid, None)
                timer = self.timers.pop(sid, None)
            if timer is not None:
                timer.cancel()
        elif kind == GOAWAY:
            return False
        return True  # SETTINGS, WINDOW_UPDATE, HEADERS: nothing to do

    def _headers(self, block: bytes) -> dict[str, str]:
        raw = self.inflate.decompress(block)
        n, at, out = struct.unpack("!I", raw[:4])[0], 4, {}
        for _ in range(n):
            k = struct.unpack("!I", raw[at:at + 4])[0]
            name = raw[at + 4:at + 4 + k].decode("latin-1")
            at += 4 + k
            v = struct.unpack("!I", raw[at:at + 4])[0]
            out[name.lower()] = raw[at + 4:at + 4 + v].decode("latin-1")
            at += 4 + v
        return out

    def _on_stream(self, sid: int, headers: dict, fin: bool) -> None:
        self._reply(sid)
        kind, request_id = headers.get("streamtype", ""), headers.get("requestid", "")
        try:
            port = int(headers.get("port", ""))
        except ValueError:
            port = 0
        self.streams[sid] = {"type": kind, "port": port, "request": request_id, "in": b""}
        if kind == "error":
            self.errors[request_id] = sid
            return
        if kind != "data":
            return
        answer = self._ask(port, b"")
        if answer is None:  # nothing listens: the refusal, once kubectl has copied or after a grace
            with self.handler.client(write=False) as c:
                uid = (c.get(self.t.info, self.t.namespace or "", self.t.name).get("metadata") or {}).get("uid", "")
            self.streams[sid]["refusal"] = refused(port, uid).encode()
            timer = self.timers[sid] = threading.Timer(REFUSAL_GRACE, self._refuse, (sid,))
            timer.daemon = True
            timer.start()

    def _ask(self, port: int, request: bytes) -> bytes | None:
        t = self.t
        with self.handler.client(write=False) as c:
            return c.port_forward(t.namespace or "", t.name, port, request)

    def _on_data(self, sid: int, data: bytes, fin: bool) -> None:
        s = self.streams.get(sid)
        if s is None or s["type"] != "data" or s.get("closed"):
            return
        if "refusal" in s:
            self._refuse(sid)
            return
        s["in"] += data
        while b"\r\n\r\n" in s["in"]:  # each whole HTTP request (bodies are not read)
            request, s["in"] = s["in"].split(b"\r\n\r\n", 1)
            answer = self._ask(s["port"], request + b"\r\n\r\n")
            if answer:
                self._data(sid, answer)
        if fin:
            self._finish(sid)
            err = self.errors.pop(s["request"], None)
            if err is not None:
                self._finish(err)
