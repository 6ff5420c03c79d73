"""Normalisation: what legitimately differs between the real cluster's and kubesim's output
(UIDs, times, ages, resource versions, IPs, generated name suffixes, column widths, what only a
kubelet writes) made equal on both sides. See conformance/README.md, "What is normalised"."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .scenario import Step, transcript

# Events that only a kubelet records (KWOK records none of them): dropped on both sides.
KUBELET_REASONS = {
    "Pulling", "Pulled", "Created", "Started", "Killing", "BackOff", "Unhealthy", "Failed",
    "ErrImagePull", "ImagePullBackOff", "SandboxChanged", "FailedMount", "FailedCreatePodSandBox",
    "Starting", "NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID",
    "NodeAllocatableEnforced", "NodeReady", "NodeNotReady", "Rebooted", "ExceededGracePeriod",
    "InvalidDiskCapacity", "ProbeWarning", "FailedPostStartHook", "FailedPreStopHook",
    "SuccessfulMountVolume", "NodeNotSchedulable", "NodeSchedulable", "OutOfcpu", "OutOfmemory",
}
# Pod conditions only a kubelet sets.
KUBELET_POD_CONDITIONS = {"PodReadyToStartContainers"}

SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand


UUID_RE = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
RFC3339_RE = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})")
# Go's time.Time.String(), as describe networkpolicy prints "Created on:"
GO_TIME_RE = re.compile(r"\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? [+-]\d{4} [A-Z]{3,4}\b")
HUMAN_TIME_RE = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}")
IP_RE = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
RV_RE = re.compile(r'("?resourceVersion"?\s*:\s*)"\d+"')
DESCRIBE_RV_RE = re.compile(r"^(\s*Resource Version:\s+)\d+$", re.M)
# A node Lease's holder: the kubelet writes the node's name, KWOK its own controller id.
HOLDER_RE = re.compile(r"^(\s*HolderIdentity:\s+)\S+$", re.M)
GO_POINTER_RE = re.compile(r"\(0x[0-9a-f]{6,}\)")  # Go pointers printed by %#v in some validation errors
DURATION_RE = re.compile(r"\b\d+(?:\.\d+)?(?:y|d|h|m|s)(?:\d+(?:h|m|s))?\b|<unknown>|<invalid>")
AGE_HEADERS = {"AGE", "LAST SEEN", "FIRST SEEN", "Age", "LastSeen", "DURATION", "LAST-SEEN"}
CAPS_HEADER_RE = re.compile(r"^\s*[A-Z][A-Z0-9_./()-]*(?: [A-Z][A-Z0-9_./()-]*)*(?: {2,}[A-Z][A-Z0-9_./()-]*(?: [A-Z][A-Z0-9_./()-]*)*)+\s*$")
DASHES_RE = re.compile(r"^\s*-+(?: +-+)+\s*$")
TYPE_STATUS_RE = re.compile(r"^\s*Type\s{2,}Status\s*$")
CONTAINER_ID_RE = re.compile(r"^(\s*(?:Container ID|Image ID):)(.*)$")
# kubesim's own node annotation (its static pod directory): no real kubelet writes it.
KUBESIM_ONLY_RE = re.compile(r"^\s*\"?kubesim\.io/static-pod-path.*\n", re.M)
KUBESIM_ONLY_FIRST_RE = re.compile(r"^(Annotations:\s+)kubesim\.io/static-pod-path: [^\n]*\n\s+", re.M)


@dataclass
class Names:
    """Stable placeholders for one side's generated names (5-character suffixes, UIDs)."""
    pods: dict = field(default_factory=dict)      # full pod name -> placeholder
    counters: dict = field(default_factory=dict)  # generateName -> next index
    prefixes: set = field(default_factory=lambda: {"kube-api-access-"})
    uids: dict = field(default_factory=dict)
    others: dict = field(default_factory=dict)

    def track(self, pods: list[dict]):
        """Give each new generated pod a placeholder: per generateName, in order of
        (namespace, generateName, node, name) among the pods first seen after the same step."""
        new = [p for p in pods if p["metadata"].get("generateName")
               and p["metadata"]["name"] not in self.pods]
        new.sort(key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["generateName"],
                                p["spec"].get("nodeName") or "~", p["metadata"]["name"]))
        for p in new:
            gn = p["metadata"]["generateName"]
            self.prefixes.add(gn)
            self.counters[gn] = self.counters.get(gn, 0) + 1
            self.pods[p["metadata"]["name"]] = f"{gn}<{self.counters[gn]}>"

    def suffix(self, m: re.Match) -> str:
        name = m.group(0)
        if name in self.pods:
            return self.pods[name]
        prefix = m.group(1)
        if prefix == "kube-api-access-":
            return "kube-api-access-<xxxxx>"
        if prefix not in self.prefixes:
            return name
        key = name
        if key not in self.others:
            self.others[key] = f"{prefix}<?{len(self.others) + 1}>"
        return self.others[key]

    def uid(self, m: re.Match) -> str:
        u = m.group(0)
        if u not in self.uids:
            self.uids[u] = f"<uid-{len(self.uids) + 1}>"
        return self.uids[u]


def split_row(line: str, starts: list[int]) -> list[str]:
    cells = []
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else None
        cells.append(line[s:e].strip() if s < len(line) else "")
    return cells


def is_header(lines: list[str], i: int) -> bool:
    line = lines[i]
    if CAPS_HEADER_RE.match(line) or TYPE_STATUS_RE.match(line):
        return True
    return i + 1 < len(lines) and bool(DASHES_RE.match(lines[i + 1])) and len(line.split()) >= 2


def normalise_tables(text: str) -> str:
    """Cut every table into cells at its header's column offsets (on the raw text, before any
    substitution changes a width), blank out age columns, drop rows only a kubelet writes, and
    join the cells with two spaces (column widths follow the values, which may differ)."""
    lines = text.split("\n")
    out: list[str] = []
    starts: list[int] | None = None
    headers: list[str] = []
    indent = ""
    for i, line in enumerate(lines):
        if line.startswith("--- ") or not line.strip():
            starts = None
            out.append(line.rstrip())
            continue
        m = CONTAINER_ID_RE.match(line)
        if m:  # kubelet-side: KWOK sets no container or image IDs
            out.append(m.group(1) + " <id>")
            continue
        if is_header(lines, i):
            indent = line[: len(line) - len(line.lstrip())]
            starts = [mm.start() for mm in re.finditer(r"(?:^|(?<=\s\s))(?=\S)", line) if mm.start() >= len(indent)]
            headers = split_row(line, starts)
            out.append(indent + "  ".join(headers))
            continue
        if starts is not None and (line[: len(indent)].strip() or DASHES_RE.match(line)):
            if not DASHES_RE.match(line):
                starts = None  # text outside the table: it ended
            out.append(indent_collapse(line))
            continue
        if starts is None:
            out.append(indent_collapse(line))
            continue
        cells = split_row(line, starts)
        drop = False
        for j, h in enumerate(headers):
            if h in AGE_HEADERS:
                cells[j] = DURATION_RE.sub("<age>", cells[j])
            if h in ("REASON", "Reason") and cells[j] in KUBELET_REASONS and (
                    "From" not in headers or cells[headers.index("From")] == "kubelet"):
                drop = True
            if h == "From" and cells[j] == "kubelet":
                drop = True
            if h == "Type" and cells[j] in KUBELET_POD_CONDITIONS:
                drop = True
        if not drop:
            out.append(indent + "  ".join(cells).rstrip())
    return "\n".join(out)


def normalise(text: str, names: Names, tied: list[str] | None = None) -> str:
    if not text:
        return text
    suffix_re = re.compile(r"\b([a-z0-9][a-z0-9.-]*-)([" + SUFFIX_ALPHABET + r"]{5})\b")
    text = HOLDER_RE.sub(r"\1<kwok-or-kubelet>", text)
    text = KUBESIM_ONLY_FIRST_RE.sub(r"\1", text)
    text = KUBESIM_ONLY_RE.sub("", text)
    text = normalise_tables(text)
    text = UUID_RE.sub(names.uid, text)
    text = RFC3339_RE.sub("<time>", text)
    text = HUMAN_TIME_RE.sub("<time>", text)
    text = GO_TIME_RE.sub("<time>", text)
    text = RV_RE.sub(r'\1"<rv>"', text)
    text = DESCRIBE_RV_RE.sub(r"\1<rv>", text)
    text = IP_RE.sub("<ip>", text)
    text = GO_POINTER_RE.sub("<ptr>", text)
    text = suffix_re.sub(lambda m: names.suffix(m), text)
    for n in tied or []:
        text = re.sub(rf"\b{re.escape(n)}\b", "<tied-node>", text)
    if tied:  # which pod got which number followed the node order: that is tied too
        text = re.sub(r"<\??\d+>", "<n>", text)
    return text


def indent_collapse(line: str) -> str:
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    return indent + re.sub(r"(?<=\S) {2,}(?=\S)", "  ", stripped).rstrip()


KUBESIM_NAME_RE = re.compile(r"(?<![\w./-])kubesim(?=[ '\"])")
NAME_LINE_RE = re.compile(r"^([a-z0-9.-]+)/\S+$")


def sort_rows(text: str) -> str:
    """Sort the rows of every table (kubectl get's and describe's), keeping headers, dashes
    and everything outside tables in place: for outputs whose row order is incidental."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if is_header(lines, i):
            out.append(lines[i])
            i += 1
            if i < len(lines) and DASHES_RE.match(lines[i]):
                out.append(lines[i])
                i += 1
            indent = len(out[-1]) - len(out[-1].lstrip())
            rows = []
            while (i < len(lines) and lines[i].strip() and not lines[i].startswith("--- ")
                   and len(lines[i]) - len(lines[i].lstrip()) >= indent and not is_header(lines, i)):
                rows.append(lines[i])
                i += 1
            out += sorted(rows)
            continue
        # outside tables: sort runs of `kind/name` lines within each kind (`-o name`), keeping
        # the order of the kinds
        m = NAME_LINE_RE.match(lines[i])
        if m:
            run_ = [lines[i]]
            i += 1
            while i < len(lines) and NAME_LINE_RE.match(lines[i]) and NAME_LINE_RE.match(lines[i]).group(1) == m.group(1):
                run_.append(lines[i])
                i += 1
            out += sorted(run_)
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def compared(step: Step, code: int, out: str, err: str, names: Names, kubesim: bool = False) -> str:
    """One side's transcript of a compared step, normalised as the comparison sees it."""
    text = transcript(code, out, err)
    if kubesim:  # kubesim names itself where kubectl does in usage errors ("See 'kubesim drain -h'")
        text = KUBESIM_NAME_RE.sub("kubectl", text)
    text = normalise(text, names, step.tied)
    return sort_rows(text) if step.sort else text
