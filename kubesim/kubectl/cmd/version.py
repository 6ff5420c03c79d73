"""kubectl version: the client's version and the (simulated) server's."""

from __future__ import annotations


def add_flags(p):
    p.add_argument("-o", "--output", default=None)


def run(f, args, env) -> int:
    from kubesim import SERVER_VERSION, __version__

    env.stdout.write(f"Client Version: kubesim {__version__}\nServer Version: {SERVER_VERSION} (simulated)\n")
    return 0
