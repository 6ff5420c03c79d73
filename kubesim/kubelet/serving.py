"""What a pod answers on a port: the network's view of its containers (kubesim.network asks
through the control plane).

A container answers when it is running and listens on the port (kubesim.kubelet.behaviour:
the image catalogue's servers, a command's server, the ``ports`` override; an application
kubesim does not know answers on every port). What it replies to an HTTP GET:

- nginx: its welcome page (the image's /usr/share/nginx/html/index.html, 615 bytes), Server
  ``nginx/<tag>``; httpd: ``<html><body><h1>It works!</h1></body></html>``;
- agnhost ``serve-hostname``/``netexec``: the pod's hostname; hashicorp/http-echo: its
  ``-text``;
- the ``http`` entry of the ``kubesim.io/behaviour`` override, for any other server::

      {"app": {"ports": [8080], "http": {"8080": "hello from app\\n"}}}
      {"app": {"ports": [8080], "http": "hello\\n"}}           # every port it listens on
      {"app": {"http": {"8080": {"status": 503, "body": "down\\n"}}}}

- any other listening server: 200 with an empty body.
"""

from __future__ import annotations

import re

from kubesim.kubelet.images import image_repository

NGINX_INDEX = """<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
"""
HTTPD_INDEX = "<html><body><h1>It works!</h1></body></html>\n"
NGINX_DEFAULT_VERSION = "1.29.3"
HTTPD_SERVER = "Apache/2.4.65 (Unix)"
REASONS = {200: "OK", 201: "Created", 204: "No Content", 301: "Moved Permanently", 302: "Found",
           400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}

# kube-apiserver on its secure port, to an anonymous client: the health endpoints and /version
# are public (the system:public-info-viewer ClusterRole), the rest is Forbidden
_FORBIDDEN = """{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "forbidden: User \\"system:anonymous\\" cannot get path \\"{path}\\"",
  "reason": "Forbidden",
  "details": {},
  "code": 403
}"""
API_SERVER_REPLY = {
    "tls": True, "server": "", "content_type": "application/json", "forbidden": _FORBIDDEN,
    "routes": {p: {"body": "ok", "content_type": "text/plain; charset=utf-8"} for p in ("/healthz", "/livez", "/readyz")},
}

# files the images ship that people cat (path -> text)
IMAGE_FILES = {
    "nginx": {"/usr/share/nginx/html/index.html": NGINX_INDEX},
    "httpd": {"/usr/local/apache2/htdocs/index.html": HTTPD_INDEX},
}


def _running(pod: dict, name: str) -> bool:
    for cs in (pod.get("status") or {}).get("containerStatuses") or ():
        if cs.get("name") == name:
            return "running" in (cs.get("state") or {})
    return False


def _tag(image: str) -> str:
    last = image.split("@", 1)[0].rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else ""


def _override_reply(http, port: int):
    if http is None:
        return None
    if isinstance(http, dict):
        http = http.get(str(port), http.get("*"))
    if http is None:
        return None
    if isinstance(http, str):
        return {"status": 200, "reason": "OK", "body": http, "any_path": True}
    if isinstance(http, dict):
        status = int(http.get("status", 200))
        return {"status": status, "reason": REASONS.get(status, ""), "body": str(http.get("body", "")),
                "any_path": True}
    return None


def reply(pod: dict, port: int, protocol: str, date: str = "") -> dict | None:
    """What ``pod`` answers on ``port`` (an HTTP reply as a dict), None when nothing listens."""
    from kubesim.kubelet.behaviour import behaviour, effective_argv
    from kubesim.kubelet.overrides import override_for

    if (pod.get("status") or {}).get("phase") != "Running":
        return None
    name = (pod.get("metadata") or {}).get("name", "")
    for c in (pod.get("spec") or {}).get("containers") or ():
        if not _running(pod, c.get("name", "")):
            continue
        ov = override_for(pod, c.get("name", ""))
        b = behaviour(c, pod_name=name, override=ov or None)
        if b.ports is not None and port not in b.ports:
            continue
        if protocol != "TCP" and (b.ports is None or port not in b.ports):
            continue
        custom = _override_reply(ov.get("http") if ov else None, port)
        if custom is not None:
            return {**custom, "date": date}
        repo = image_repository(c.get("image") or "")
        argv, _ = effective_argv(c)
        head = " ".join(argv)
        if argv and argv[0].rsplit("/", 1)[-1] == "kube-apiserver":
            return {**API_SERVER_REPLY, "date": date}
        if repo == "nginx" or (b.ports is not None and re.search(r"(^|/)nginx( |$)", head) and repo != "registry.k8s.io/echoserver"):
            tag = _tag(c.get("image") or "")
            version = tag if re.fullmatch(r"\d+\.\d+\.\d+", tag) else NGINX_DEFAULT_VERSION
            return {"status": 200, "reason": "OK", "body": NGINX_INDEX, "server": f"nginx/{version}", "date": date}
        if repo == "httpd" or "httpd-foreground" in head:
            return {"status": 200, "reason": "OK", "body": HTTPD_INDEX, "server": HTTPD_SERVER, "date": date}
        if "agnhost" in head and ("serve-hostname" in head or "netexec" in head):
            return {"status": 200, "reason": "OK", "body": name, "any_path": True, "date": date}
        if repo == "hashicorp/http-echo":
            text = next((a.split("=", 1)[1] for a in argv if a.startswith(("-text=", "--text="))), "hello-world")
            return {"status": 200, "reason": "OK", "body": text + "\n", "any_path": True, "date": date}
        return {"status": 200, "reason": "OK", "body": "", "any_path": True, "date": date}
    return None
