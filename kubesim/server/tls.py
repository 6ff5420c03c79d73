"""The serving certificate of ``kubesim serve``: a self-signed CA and a serving certificate it
signs, generated once into the state (``<state>/serve/``) with the ``openssl`` command (no Python
dependency), as kubeadm's ``certs`` phase makes ``ca.crt`` and ``apiserver.crt``. Clients verify
the server with the CA (the written kubeconfig carries it); client certificates are not asked for.

Upstream: cmd/kubeadm/app/phases/certs (the CA, then the apiserver's serving certificate with the
addresses it is reached at as subjectAltNames; Go's TLS checks those, not the CN).
"""

from __future__ import annotations

import os
import shutil
import subprocess

from kubesim.errors import RawError


def openssl() -> str | None:
    return shutil.which("openssl") or ("/usr/bin/openssl" if os.path.exists("/usr/bin/openssl") else None)


def _run(args: list[str]) -> None:
    done = subprocess.run(args, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise RawError(f"error: openssl failed: {' '.join(args[:3])}: {done.stderr.strip()}")


def _sans(address: str) -> list[str]:
    names = ["DNS:localhost", "DNS:kubernetes", "DNS:kubernetes.default", "IP:127.0.0.1", "IP:0:0:0:0:0:0:0:1"]
    if address and address not in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "::"):
        names.append(("IP:" if address.replace(".", "").replace(":", "").isalnum() and
                      any(ch.isdigit() for ch in address) else "DNS:") + address)
    return names


def ensure_certificates(directory: str, address: str) -> tuple[str, str, str]:
    """(ca.crt, apiserver.crt, apiserver.key) in ``directory``, made when missing or when the
    serving certificate does not name ``address``."""
    tool = openssl()
    if tool is None:
        raise RawError("error: kubesim serve needs the openssl command for TLS (or use --insecure-http)")
    os.makedirs(directory, exist_ok=True)
    ca_crt, ca_key = os.path.join(directory, "ca.crt"), os.path.join(directory, "ca.key")
    crt, key = os.path.join(directory, "apiserver.crt"), os.path.join(directory, "apiserver.key")
    sans_file = os.path.join(directory, "apiserver.sans")
    sans = ",".join(_sans(address))
    if not (os.path.exists(ca_crt) and os.path.exists(ca_key)):
        _run([tool, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
              "-keyout", ca_key, "-out", ca_crt, "-days", "3650", "-subj", "/CN=kubernetes",
              "-addext", "basicConstraints=critical,CA:TRUE",
              "-addext", "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign"])
        for f in (crt, key, sans_file):
            if os.path.exists(f):
                os.remove(f)
    current = None
    if os.path.exists(sans_file):
        with open(sans_file) as fh:
            current = fh.read()
    if current != sans or not (os.path.exists(crt) and os.path.exists(key)):
        csr = os.path.join(directory, "apiserver.csr")
        ext = os.path.join(directory, "apiserver.ext")
        with open(ext, "w") as f:
            f.write(f"subjectAltName={sans}\nbasicConstraints=CA:FALSE\n"
                    "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
        _run([tool, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
              "-keyout", key, "-out", csr, "-subj", "/CN=kube-apiserver"])
        _run([tool, "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial",
              "-out", crt, "-days", "365", "-extfile", ext])
        for f in (csr, ext):
            os.remove(f)
        with open(sans_file, "w") as f:
            f.write(sans)
    for f in (ca_key, key):
        os.chmod(f, 0o600)
    return ca_crt, crt, key


def server_context(crt: str, key: str):
    import ssl

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(crt, key)
    return ctx
