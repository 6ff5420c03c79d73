"""``kubesim serve``: serve the state's cluster as the Kubernetes REST API until interrupted.

Flags: ``--address`` (loopback by default; never another address unless asked), ``--port``
(6443, kube-apiserver's secure port; 0 picks a free one), ``--write-kubeconfig FILE`` (default
``<state>/serve/kubeconfig``: cluster, user and context ``kubesim``), ``--insecure-http`` (plain
HTTP, which kubectl accepts as ``server: http://...``), ``--speed X`` (the simulated clock runs X
times as fast as the wall clock, X >= 1; a clock pinned by KUBESIM_NOW stands still unless X is
given, and then runs X times as fast from the pinned moment). With TLS (the default) the CA and
serving certificate are made once into ``<state>/serve/`` (``kubesim.server.tls``).
"""

from __future__ import annotations

import os

from kubesim.errors import UsageError

LOOPBACK = ("127.0.0.1", "::1", "localhost")
_HINT = "\nSee 'kubesim serve --help' for usage."


def add_flags(p):
    p.add_argument("--address", default="127.0.0.1",
                   help="The IP address to serve on (default 127.0.0.1: loopback only). Other addresses "
                        "expose the simulated cluster, unauthenticated, to whoever reaches them.")
    p.add_argument("--port", default="6443", help="The port to serve on (default 6443; 0 picks a free port)")
    p.add_argument("--write-kubeconfig", default=None, metavar="FILE",
                   help="Where to write a kubeconfig for the server (context kubesim); default "
                        "DIR/serve/kubeconfig in the state directory")
    p.add_argument("--insecure-http", action="store_true",
                   help="Serve plain HTTP instead of HTTPS (no certificates are made)")
    p.add_argument("--speed", default=None, metavar="X",
                   help="Run the simulated clock X times as fast as the wall clock (default 1)")


def kubeconfig_text(server: str, ca_pem: bytes | None) -> str:
    """The kubeconfig: the server and its CA; a token the server accepts without checking
    (without any credential kubectl asks for a user name over HTTPS)."""
    import base64

    cluster = f"    server: {server}\n"
    if ca_pem is not None:
        cluster = f"    certificate-authority-data: {base64.b64encode(ca_pem).decode()}\n" + cluster
    return ("apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n" + cluster + "  name: kubesim\n"
            "contexts:\n- context:\n    cluster: kubesim\n    user: kubesim\n  name: kubesim\n"
            "current-context: kubesim\npreferences: {}\nusers:\n- name: kubesim\n  user:\n    token: kubesim\n")


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        raise UsageError(f'invalid argument "{value}" for "--port" flag: strconv.ParseInt: parsing "{value}": '
                         f"invalid syntax{_HINT}") from None
    if not 0 <= port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535, got {port}{_HINT}")
    return port


def _speed(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        speed = float(value)
    except ValueError:
        raise UsageError(f'invalid argument "{value}" for "--speed" flag: strconv.ParseFloat: parsing "{value}": '
                         f"invalid syntax{_HINT}") from None
    if not 1 <= speed <= 1e6:
        raise UsageError(f"--speed must be between 1 and 1000000, got {value}{_HINT}")
    return speed


def run(f, args, env) -> int:
    import threading

    from kubesim.server import http, tls

    port = _port(args.port)
    speed = _speed(args.speed)
    options = f.session_options()
    directory = options.directory
    serve_dir = os.path.join(directory, "serve")
    ssl_context, ca_pem = None, None
    if not args.insecure_http:
        ca, crt, key = tls.ensure_certificates(serve_dir, args.address)
        ssl_context = tls.server_context(crt, key)
        with open(ca, "rb") as fh:
            ca_pem = fh.read()
    try:
        server = http.make_server(options, args.address, port, ssl_context, speed=speed)
    except OSError as e:
        raise UsageError(f"failed to listen on {args.address}:{port}: {e.strerror or e}") from None
    server.backend.tick()  # a new state becomes its cluster now, not at the first request
    host, bound = server.server_address[:2]
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    if ":" in shown_host and not shown_host.startswith("["):
        shown_host = f"[{shown_host}]"
    url = f"{'http' if args.insecure_http else 'https'}://{shown_host}:{bound}"
    path = os.path.abspath(args.write_kubeconfig or os.path.join(serve_dir, "kubeconfig"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(kubeconfig_text(url, ca_pem))
    out = env.stdout
    out.write(f"kubesim serve: the cluster in {directory} is served at {url}\n")
    if speed:
        out.write(f"The simulated clock runs {args.speed}x as fast as the wall clock.\n")
    if host not in LOOPBACK:
        out.write(f"warning: serving on {host}, not loopback only: anyone who reaches it may change the cluster\n")
    out.write(f"Point kubectl at it:\n  export KUBECONFIG={path}\n  kubectl get nodes\n"
              "Press Ctrl-C to stop.\n")
    out.flush()
    import signal

    def _terminate(signum, frame):
        raise KeyboardInterrupt  # SIGTERM stops the server as Ctrl-C does

    signal.signal(signal.SIGTERM, _terminate)
    stop = threading.Event()
    ticker = threading.Thread(target=http.tick_forever, args=(server.backend, stop), daemon=True)
    ticker.start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.server_close()
    return 0
