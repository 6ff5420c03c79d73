"""For tests: a ``kubesim serve`` subprocess on a free loopback port."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading


@contextlib.contextmanager
def serving(state: str, env_vars: dict):
    """Run ``kubesim --state STATE serve --port 0`` until the block ends; yields the URL it
    prints (``https://127.0.0.1:PORT``)."""
    proc = subprocess.Popen([sys.executable, "-m", "kubesim", "--state", state, "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env_vars})
    line = [""]
    reader = threading.Thread(target=lambda: line.__setitem__(0, proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(30)
    try:
        assert " is served at https://127.0.0.1:" in line[0], \
            proc.stderr.read() if proc.poll() is not None else line
        yield line[0].rsplit(" ", 1)[1].strip()
    finally:
        proc.terminate()
        proc.wait(10)
