"""RFC 6455 WebSocket, the server's half, on a ``BaseHTTPRequestHandler``'s socket: the
opening handshake (``Sec-WebSocket-Accept``, the subprotocol chosen from the client's list) and
the frames (client frames masked, server frames not; fragments joined; ping answered by pong;
close answered by close).

Upstream: the apiserver speaks it through golang.org/x/net/websocket
(staging/src/k8s.io/apimachinery/pkg/util/httpstream/wsstream/conn.go: ``Open``, ``handshake``
``requested protocol(s) are not supported: %v; supports %v``); kubectl through
github.com/gorilla/websocket (staging/src/k8s.io/client-go/transport/websocket/roundtripper.go).
"""

from __future__ import annotations

import base64
import hashlib
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
CLOSE_NORMAL = 1000
MAX_MESSAGE = 1 << 20  # a client's message larger than this is a protocol error


class ProtocolError(Exception):
    """The peer broke the framing: the connection is dropped."""


class Closed(Exception):
    """The peer closed the connection (a close frame, or EOF)."""


def is_upgrade(headers) -> bool:
    """wsstream.IsWebSocketRequest: ``Connection: Upgrade`` and ``Upgrade: websocket``."""
    connection = (headers.get("Connection") or "").lower()
    return "upgrade" in connection and (headers.get("Upgrade") or "").lower() == "websocket"


def requested_protocols(headers) -> list[str]:
    return [p.strip() for v in headers.get_all("Sec-WebSocket-Protocol") or () for p in v.split(",") if p.strip()]


def accept_key(key: str) -> str:
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


def handshake_error(headers, supported: list[str]) -> str | None:
    """Why the opening handshake cannot succeed (the text of x/net/websocket's 400), or None."""
    key = headers.get("Sec-WebSocket-Key") or ""
    try:
        if len(base64.b64decode(key, validate=True)) != 16:
            return "missing or malformed Sec-WebSocket-Key"
    except ValueError:
        return "missing or malformed Sec-WebSocket-Key"
    if (headers.get("Sec-WebSocket-Version") or "") != "13":
        return "unsupported Sec-WebSocket-Version (want 13)"
    requested = requested_protocols(headers)
    if not any(p in supported for p in requested or [""]):
        return f"requested protocol(s) are not supported: [{' '.join(requested)}]; supports [{' '.join(supported)}]"
    return None


def choose_protocol(headers, supported: list[str]) -> str:
    """The first protocol the client asked for that the server speaks (wsstream handshake)."""
    for p in requested_protocols(headers):
        if p in supported:
            return p
    return ""


class Conn:
    """One upgraded connection: ``send`` binary messages, ``receive`` the next data message."""

    def __init__(self, rfile, wfile):
        self.rfile, self.wfile = rfile, wfile
        self.closed = False  # a close frame was sent

    def _frame(self, opcode: int, payload: bytes) -> bytes:
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, n)
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 127, n)
        return head + payload

    def send(self, payload: bytes, opcode: int = OP_BINARY) -> None:
        self.wfile.write(self._frame(opcode, payload))
        self.wfile.flush()

    def close(self, code: int = CLOSE_NORMAL) -> None:
        if not self.closed:
            self.closed = True
            self.send(struct.pack("!H", code), OP_CLOSE)

    def _read(self, n: int) -> bytes:
        data = self.rfile.read(n) if n else b""
        if len(data) < n:
            raise Closed()
        return data

    def _next_frame(self) -> tuple[bool, int, bytes]:
        b0, b1 = self._read(2)
        if b0 & 0x70:
            raise ProtocolError("reserved bits set")
        if not b1 & 0x80:
            raise ProtocolError("client frames must be masked")
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read(8))[0]
        if n > MAX_MESSAGE:
            raise ProtocolError("message too large")
        mask = self._read(4)
        data = bytearray(self._read(n))
        for i in range(n):
            data[i] ^= mask[i & 3]
        return bool(b0 & 0x80), b0 & 0x0F, bytes(data)

    def receive(self) -> tuple[int, bytes]:
        """The next data message (opcode, payload); pings are answered on the way. Raises
        Closed when the peer closes (after answering its close frame)."""
        opcode, parts = None, []
        while True:
            fin, op, data = self._next_frame()
            if op == OP_PING:
                self.send(data, OP_PONG)
                continue
            if op == OP_PONG:
                continue
            if op == OP_CLOSE:
                if not self.closed:
                    self.close()
                raise Closed()
            if op == OP_CONT:
                if opcode is None:
                    raise ProtocolError("continuation without a first frame")
            elif op in (OP_TEXT, OP_BINARY):
                if opcode is not None:
                    raise ProtocolError("a new message inside a fragmented one")
                opcode = op
            else:
                raise ProtocolError(f"unknown opcode {op}")
            parts.append(data)
            if sum(len(p) for p in parts) > MAX_MESSAGE:
                raise ProtocolError("message too large")
            if fin:
                return opcode, b"".join(parts)
