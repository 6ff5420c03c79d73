"""What the network tools a container runs print, from the paths kubesim.network.path finds:
busybox ``nslookup``, ``wget`` and ``nc``, ``curl``, bind-utils ``dig`` and ``host``.

Upstream (the programs' own sources): busybox networking/nslookup.c (the LEDE/OpenWrt
resolver: ``Server:``/``Address:`` once a server answers, then per query, in order — A for each
search domain when the name has no dot, then AAAA — ``Name:\\t...``/``Address: ...``, ``** server
can't find X: NXDOMAIN`` (which makes the exit status 1), an empty line after each reply;
``;; connection timed out; no servers could be reached``); busybox networking/wget.c
(``Connecting to H (IP:P)``, ``wget: bad address 'H'``, ``wget: can't connect to remote host
(IP): Connection refused``, ``wget: download timed out``, ``wget: server returned error: ...``,
``remote file exists`` for ``--spider``, default timeout 900 s); curl's lib/ (``curl: (6) Could
not resolve host: H``, ``curl: (7) Failed to connect to H port P after N ms: Couldn't connect to
server``, ``curl: (28) Connection timed out after N milliseconds``).

Each tool returns ``(stdout, stderr, exit code)``.
"""

from __future__ import annotations

import re
import shlex

from kubesim.network import dns
from kubesim.network.cluster import md, pod_ip
from kubesim.network.path import dns_transport, reach, resolve

BUSYBOX_WGET_TIMEOUT = 900
CURL_CONNECT_FAIL_MS = 130000   # Linux gives up a connect to a dropping peer after ~130 s (tcp_syn_retries 6)
# (what curl without -m, and nc without -w, wait for)


class Net:
    """What a tool sees: the snapshot, the source pod, what pods answer, kube-proxy's choice."""

    def __init__(self, snap, pod: dict, listener, choose=None, nslookup: str = "busybox"):
        self.snap, self.pod, self.listener, self.choose = snap, pod, listener, choose
        self.nslookup = nslookup  # busybox | bind (bind-utils' nslookup, in dnsutils images)
        self.elapsed = 0.0  # seconds the tools spent waiting for a peer that never answered


# --------------------------------------------------------------------------------------------
# nslookup (busybox)


def nslookup(net: Net, args: list[str]) -> tuple[str, str, int]:
    names = [a for a in args if not a.startswith("-")]
    if not names:
        return "", _busybox_usage("nslookup"), 1
    name = names[0]
    server = names[1] if len(names) > 1 else None
    conf = dns.resolv_conf(net.pod)
    ns_ip = server or (conf.nameservers[0] if conf.nameservers else "127.0.0.1")
    status, _ = dns_transport(net.snap, net.pod, dns.ResolvConf((ns_ip,), conf.search, conf.ndots),
                              net.listener, net.choose)
    if status == "refused":
        return ";; connection timed out; no servers could be reached\n\n", \
            "nslookup: read: Connection refused\nnslookup: read: Connection refused\n", 1
    if status != "ok":
        return ";; connection timed out; no servers could be reached\n\n", "", 1
    cluster = ns_ip == dns.DNS_SERVICE_IP
    if net.nslookup == "bind":
        return _bind_nslookup(net, name, ns_ip, conf, cluster)
    if dns.is_ip(name):
        queries = [(dns.ptr_name(name), "PTR")]
    elif "." in name.rstrip(".") or not conf.search:
        queries = [(name.rstrip("."), "A"), (name.rstrip("."), "AAAA")]
    else:
        queries = [(f"{name}.{s}", t) for t in ("A", "AAAA") for s in conf.search]
    out = [f"Server:\t\t{ns_ip}", f"Address:\t{ns_ip}:53", ""]
    code = 0
    for qname, qtype in queries:
        ans = dns.query(net.snap, qname, qtype) if cluster else dns.Answer("NXDOMAIN")
        if ans.rcode != "NOERROR":
            out.append(f"** server can't find {qname}: {ans.rcode}")
            code = 1
        else:
            for owner, rtype, value in ans.records:
                if rtype == "A":
                    out += [f"Name:\t{owner}", f"Address: {value}"]
                elif rtype == "CNAME":
                    out.append(f"{owner}\tcanonical name = {value}")
                elif rtype == "PTR":
                    out.append(f"{owner}\tname = {value}")
        out.append("")
    return "\n".join(out) + "\n", "", code


def _bind_nslookup(net: Net, name: str, ns_ip: str, conf, cluster: bool) -> tuple[str, str, int]:
    """bind-utils' nslookup (bin/dig/nslookup.c): the search list as the resolver applies it,
    the first name that answers; ``Address:\tIP#53``; ``** server can't find NAME: NXDOMAIN``."""
    head = [f"Server:\t\t{ns_ip}", f"Address:\t{ns_ip}#53", ""]
    if dns.is_ip(name):
        ans = dns.query(net.snap, dns.ptr_name(name), "PTR") if cluster else dns.Answer("NXDOMAIN")
        if ans.rcode != "NOERROR":
            return "\n".join(head + [f"** server can't find {dns.ptr_name(name)}: NXDOMAIN", ""]) + "\n", "", 1
        return "\n".join(head + [f"{o}\tname = {v}." for o, _, v in ans.records] + [""]) + "\n", "", 0
    for cand in dns.candidates(name, conf):
        ans = dns.query(net.snap, cand, "A") if cluster else dns.Answer("NXDOMAIN")
        if ans.rcode == "NOERROR" and ans.records:
            lines = []
            for owner, rtype, value in ans.records:
                lines += ([f"{owner}\tcanonical name = {value}."] if rtype == "CNAME"
                          else [f"Name:\t{owner}", f"Address: {value}"])
            return "\n".join(head + lines + [""]) + "\n", "", 0
    return "\n".join(head + [f"** server can't find {name}: NXDOMAIN", ""]) + "\n", "", 1


# --------------------------------------------------------------------------------------------
# dig / host (bind-utils)


def host(net: Net, args: list[str]) -> tuple[str, str, int]:
    names = [a for a in args if not a.startswith("-")]
    if not names:
        return "", "Usage: host [-aCdilrTvVw] [-c class] [-N ndots] [-t type] [-W time]\n", 1
    name = names[0]
    conf = dns.resolv_conf(net.pod)
    status, _ = dns_transport(net.snap, net.pod, conf, net.listener, net.choose)
    if status != "ok":
        return ";; connection timed out; no servers could be reached\n", "", 1
    if dns.is_ip(name):
        ans = dns.query(net.snap, dns.ptr_name(name), "PTR")
        if ans.rcode != "NOERROR":
            return f"Host {dns.ptr_name(name)} not found: 3(NXDOMAIN)\n", "", 1
        return "".join(f"{o} domain name pointer {v}.\n" for o, _, v in ans.records), "", 0
    for cand in dns.candidates(name, conf):
        ans = dns.query(net.snap, cand, "A")
        if ans.rcode == "NOERROR" and ans.records:
            lines = []
            for owner, rtype, value in ans.records:
                lines.append(f"{owner} is an alias for {value}." if rtype == "CNAME" else f"{owner} has address {value}")
            return "\n".join(lines) + "\n", "", 0
    return f"Host {name} not found: 3(NXDOMAIN)\n", "", 1


def dig(net: Net, args: list[str]) -> tuple[str, str, int]:
    short = "+short" in args
    words = [a for a in args if not a.startswith(("+", "-", "@"))]
    qtype = "A"
    for w in list(words):
        if w.upper() in ("A", "AAAA", "PTR", "CNAME", "SRV", "ANY"):
            qtype = w.upper()
            words.remove(w)
    if "-x" in args and words:
        words = [dns.ptr_name(words[0])]
        qtype = "PTR"
    name = (words[0] if words else ".").rstrip(".")
    conf = dns.resolv_conf(net.pod)
    status, _ = dns_transport(net.snap, net.pod, conf, net.listener, net.choose)
    if status != "ok":
        return (";; communications error to 10.96.0.10#53: timed out\n" * 3
                + ";; no servers could be reached\n"), "", 9
    # dig does not use the search list unless +search is given
    qname = name
    if "+search" in args and "." not in name:
        qname = next((c for c in dns.candidates(name, conf) if dns.query(net.snap, c).records), name)
    ans = dns.query(net.snap, qname, qtype)
    if short:
        return "".join(f"{v}{'.' if t in ('CNAME', 'PTR') else ''}\n" for _, t, v in ans.records), "", 0
    lines = [f"; <<>> DiG 9.18 <<>> {' '.join(args)}", ";; global options: +cmd", ";; Got answer:",
             f";; ->>HEADER<<- opcode: QUERY, status: {ans.rcode}, id: 1",
             f";; flags: qr aa rd; QUERY: 1, ANSWER: {len(ans.records)}, AUTHORITY: 0, ADDITIONAL: 1", "",
             ";; QUESTION SECTION:", f";{qname}.\t\t\tIN\t{qtype}", ""]
    if ans.records:
        lines.append(";; ANSWER SECTION:")
        for owner, rtype, value in ans.records:
            v = value + "." if rtype in ("CNAME", "PTR") else value
            lines.append(f"{owner}.\t30\tIN\t{rtype}\t{v}")
        lines.append("")
    lines += [f";; SERVER: {conf.nameservers[0]}#53({conf.nameservers[0]}) (UDP)", ""]
    return "\n".join(lines) + "\n", "", 0


# --------------------------------------------------------------------------------------------
# wget (busybox) and curl


def _url(target: str) -> tuple[str, str, int | None, str]:
    """(scheme, host, port or None, path) of a URL as the tools read it."""
    m = re.match(r"^(?:([a-zA-Z]+)://)?([^/:?#]*)(?::(\d+))?([^#]*)", target)
    scheme = (m.group(1) or "http").lower()
    return scheme, m.group(2), int(m.group(3)) if m.group(3) else None, m.group(4) or "/"


def _go(net: Net, host_: str, port: int):
    return reach(net.snap, net.pod, host_, port, "TCP", net.listener, net.choose)


def wget(net: Net, args: list[str]) -> tuple[str, str, int]:
    quiet = spider = False
    output: str | None = None
    timeout = BUSYBOX_WGET_TIMEOUT
    url = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-q", "--quiet"):
            quiet = True
        elif a == "--spider":
            spider = True
        elif a in ("-O", "--output-document"):
            i += 1
            output = args[i] if i < len(args) else ""
        elif a.startswith("-O"):
            output = a[2:]
        elif a.startswith("--output-document="):
            output = a.split("=", 1)[1]
        elif a in ("-T", "--timeout"):
            i += 1
            timeout = int(args[i]) if i < len(args) and args[i].isdigit() else timeout
        elif a.startswith("-T") and a[2:].isdigit():
            timeout = int(a[2:])
        elif a.startswith("--timeout="):
            timeout = int(a.split("=", 1)[1] or 0)
        elif re.fullmatch(r"-[qO]+", a) and "O" in a:
            quiet = quiet or "q" in a
            i += 1
            output = args[i] if i < len(args) else ""
        elif a.startswith("-q") and a[2:3] == "O":
            quiet = True
            output = a[3:] or None
            if output is None:
                i += 1
                output = args[i] if i < len(args) else ""
        elif not a.startswith("-"):
            url = a
        i += 1
    if url is None:
        return "", _busybox_usage("wget"), 1
    scheme, host_, port, path = _url(url)
    port = port or (443 if scheme == "https" else 80)
    trace = _go(net, host_, port)
    err: list[str] = []
    if trace.outcome in ("unresolved", "dns-timeout", "dns-refused"):
        return "", f"wget: bad address '{host_}'\n", 1
    if not quiet:
        err.append(f"Connecting to {host_} ({trace.address}:{port})")  # the host without its port
    if trace.outcome == "refused":
        err.append(f"wget: can't connect to remote host ({trace.address}): Connection refused")
        return "", "\n".join(err) + "\n", 1
    if trace.outcome == "timeout":
        net.elapsed += timeout
        err.append("wget: download timed out")
        return "", "\n".join(err) + "\n", 1
    status, reason, body, _ = respond(trace.reply or {}, scheme, path)
    if status >= 400:
        err.append(f"wget: server returned error: HTTP/1.1 {status} {reason}")
        return "", "\n".join(err) + "\n", 1
    if spider:
        if not quiet:
            err.append("remote file exists")
        return "", "\n".join(err) + ("\n" if err else ""), 0
    name = "index.html" if output is None else output
    if name == "-":
        if not quiet:
            err.append("writing to stdout")
            err.append(f"{'-':<20} 100% |{'*' * 32}| {_size(len(body.encode())):>5}  0:00:00 ETA")
            err.append("written to stdout")
        return body, "\n".join(err) + ("\n" if err else ""), 0
    if not quiet:
        err.append(f"saving to '{name}'")
        err.append(f"{name[:20]:<20} 100% |{'*' * 32}| {_size(len(body.encode())):>5}  0:00:00 ETA")
        err.append(f"'{name}' saved")
    return "", "\n".join(err) + ("\n" if err else ""), 0


def _size(n: int) -> str:
    return str(n) if n < 100000 else f"{n // 1024}k"


def curl(net: Net, args: list[str]) -> tuple[str, str, int]:
    silent = show_error = head = include = fail = insecure = False
    max_time: float | None = None
    connect_timeout: float | None = None
    url = None
    output = None
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and not a.startswith("--") and len(a) > 2 and a[1:].isalpha() and "m" not in a[1:-1]:
            for ch in a[1:-1]:
                silent, show_error, head, include, fail = _curl_short(ch, silent, show_error, head, include, fail)
            a = "-" + a[-1]
        if a in ("-s", "--silent"):
            silent = True
        elif a in ("-S", "--show-error"):
            show_error = True
        elif a in ("-I", "--head"):
            head = True
        elif a in ("-i", "--include"):
            include = True
        elif a in ("-f", "--fail"):
            fail = True
        elif a in ("-k", "--insecure"):
            insecure = True
        elif a == "--cacert":
            i += 1
            insecure = True  # the cluster's CA: the serving certificate verifies
        elif a in ("-H", "--header", "-X", "--request"):
            i += 1
        elif a in ("-v", "--verbose", "-L", "--location"):
            pass
        elif a in ("-m", "--max-time", "--connect-timeout"):
            i += 1
            try:
                value = float(args[i]) if i < len(args) else None
            except ValueError:
                value = None
            if a == "--connect-timeout":
                connect_timeout = value
            else:
                max_time = value
        elif a.startswith("--max-time="):
            max_time = float(a.split("=", 1)[1])
        elif a in ("-o", "--output"):
            i += 1
            output = args[i] if i < len(args) else None
        elif not a.startswith("-"):
            url = a
        i += 1
    if url is None:
        return "", "curl: try 'curl --help' or 'curl --manual' for more information\n", 2
    scheme, host_, port, path = _url(url)
    port = port or (443 if scheme == "https" else 80)
    trace = _go(net, host_, port)
    quiet_errors = silent and not show_error

    def error(text: str, code: int) -> tuple[str, str, int]:
        return "", ("" if quiet_errors else f"curl: ({code}) {text}\n"), code

    if trace.outcome in ("unresolved", "dns-refused"):
        return error(f"Could not resolve host: {host_}", 6)
    if trace.outcome == "dns-timeout":
        return error(f"Could not resolve host: {host_}", 6)
    if trace.outcome == "refused":
        return error(f"Failed to connect to {host_} port {port} after 0 ms: Couldn't connect to server", 7)
    if trace.outcome == "timeout":
        limit = min(t for t in (max_time, connect_timeout) if t is not None) if (max_time or connect_timeout) else None
        net.elapsed += CURL_CONNECT_FAIL_MS / 1000 if limit is None else limit
        if limit is None:
            return error(f"Failed to connect to {host_} port {port} after {CURL_CONNECT_FAIL_MS} ms: "
                         "Couldn't connect to server", 28)
        return error(f"Connection timed out after {int(limit * 1000) + 1} milliseconds", 28)
    reply = trace.reply or {}
    if reply.get("tls") and scheme == "https" and not insecure:
        if quiet_errors:
            return "", "", 60
        return "", CURL_SSL_ERROR, 60
    status, reason, body, content_type = respond(reply, scheme, path)
    if fail and status >= 400:
        return error(f"The requested URL returned error: {status}", 22)
    headers = _headers({**reply, "content_type": content_type}, status, reason, body)
    out = ""
    if head:
        out = headers
    else:
        out = (headers if include else "") + body
    if output and output != "-":
        out = ""
    progress = "" if silent or head else _progress(len(body.encode()))
    return out, progress, 0


def _curl_short(ch, silent, show_error, head, include, fail):
    return (silent or ch == "s", show_error or ch == "S", head or ch == "I", include or ch == "i", fail or ch == "f")


CURL_SSL_ERROR = """curl: (60) SSL certificate problem: unable to get local issuer certificate
More details here: https://curl.se/docs/sslcerts.html

curl failed to verify the legitimacy of the server and therefore could not
establish a secure connection to it. To learn more about this situation and
how to fix it, please visit the webpage mentioned above.
"""


def respond(reply: dict, scheme: str, path: str) -> tuple[int, str, str, str]:
    """(status, reason, body, content type) a server's reply (kubesim.kubelet.serving) gives to
    a GET of ``path``."""
    ctype = reply.get("content_type", "text/html")
    if reply.get("tls") and scheme == "http":
        return 400, "Bad Request", "Client sent an HTTP request to an HTTPS server.\n", "text/plain; charset=utf-8"
    route = (reply.get("routes") or {}).get(path or "/")
    if route is not None:
        return (int(route.get("status", 200)), route.get("reason", "OK"), route.get("body", ""),
                route.get("content_type", ctype))
    forbidden = reply.get("forbidden")
    if forbidden:
        return 403, "Forbidden", forbidden.replace("{path}", path or "/"), "application/json"
    if path in ("/", "") or reply.get("any_path"):
        return int(reply.get("status", 200)), reply.get("reason", "OK"), reply.get("body", ""), ctype
    return 404, "Not Found", reply.get("not_found", ""), ctype


def _headers(reply: dict, status: int, reason: str, body: str) -> str:
    lines = [f"HTTP/1.1 {status} {reason}"]
    if reply.get("server"):
        lines.append(f"Server: {reply['server']}")
    if reply.get("date"):
        lines.append(f"Date: {reply['date']}")
    lines.append(f"Content-Type: {reply.get('content_type', 'text/html')}")
    lines.append(f"Content-Length: {len(body.encode())}")
    lines.append("Connection: keep-alive")
    return "\r\n".join(lines) + "\r\n\r\n"


def _progress(n: int) -> str:
    """curl's progress meter, on standard error when the output is not a terminal."""
    return ("  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n"
            "                                 Dload  Upload   Total   Spent    Left  Speed\n"
            f"100 {n:>5}  100 {n:>5}    0     0  {_rate(n):>5}      0 --:--:-- --:--:-- --:--:-- {_rate(n):>5}\n")


def _rate(n: int) -> str:
    return f"{n * 1000 // 1024}k" if n else "0"


SERVICES = {"http": 80, "https": 443, "domain": 53, "ssh": 22, "mysql": 3306, "postgresql": 5432, "redis": 6379}


def nc(net: Net, args: list[str]) -> tuple[str, str, int]:
    """busybox nc (networking/nc_bloaty.c, NC_110_COMPAT): an outbound connect; ``-v`` prints
    ``HOST (IP:PORT) open``, and a failure other than a refusal (``-vv``: any) as ``nc: HOST
    (IP:PORT): Connection timed out``; ``-z`` sends nothing; ``-w SEC`` bounds the connect;
    exit status 1 when the connect fails."""
    verbose, zero, udp = 0, False, False
    wait: float | None = None
    words: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and len(a) > 1:
            flags = a[1:]
            for j, ch in enumerate(flags):
                if ch == "v":
                    verbose += 1
                elif ch == "z":
                    zero = True
                elif ch == "u":
                    udp = True
                elif ch in "wpsio":
                    value = flags[j + 1:]
                    if not value:
                        i += 1
                        value = args[i] if i < len(args) else ""
                    if ch == "w" and value.isdigit():
                        wait = float(value)
                    break
        else:
            words.append(a)
        i += 1
    if len(words) < 2:
        return "", _busybox_usage("nc"), 1
    host_, port_word = words[0], words[1]
    port = int(port_word) if port_word.isdigit() else SERVICES.get(port_word)
    if port is None:
        return "", f"nc: bad port '{port_word}'\n", 1
    trace = reach(net.snap, net.pod, host_, port, "UDP" if udp else "TCP", net.listener, net.choose)
    if trace.outcome in ("unresolved", "dns-timeout", "dns-refused"):
        return "", f"nc: bad address '{host_}'\n", 1
    dotted = f"{trace.address}:{port}"
    if trace.outcome == "connected" or (udp and trace.outcome == "refused" and not zero):
        return "", (f"{host_} ({dotted}) open\n" if verbose else ""), 0
    refused = trace.outcome == "refused"
    if not refused:
        net.elapsed += CURL_CONNECT_FAIL_MS / 1000 if wait is None else wait
    if verbose > 1 or (verbose and not refused):
        why = "Connection refused" if refused else "Connection timed out"
        return "", f"nc: {host_} ({dotted}): {why}\n", 1
    return "", "", 1


def _busybox_usage(applet: str) -> str:
    return f"BusyBox v1.37.0 (2024-09-26 21:31:42 UTC) multi-call binary.\n\nUsage: {applet} [OPTIONS]\n"


TOOLS = {"nslookup": nslookup, "wget": wget, "curl": curl, "dig": dig, "host": host, "nc": nc}


def run(net: Net, argv: list[str]) -> tuple[str, str, int]:
    return TOOLS[argv[0].rsplit("/", 1)[-1]](net, argv[1:])


def quote(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


def source_summary(pod: dict) -> str:
    return f"{md(pod).get('namespace')}/{md(pod).get('name')} ({pod_ip(pod)})"


__all__ = ["TOOLS", "Net", "resolve", "run"]
