"""describe's shared writing: kubectl's PrefixWriter over Go's tabwriter, and the blocks every
describer prints the same way (labels, annotations, taints, tolerations, label selectors,
resources, events, RFC 1123 times).

Upstream: staging/src/k8s.io/kubectl/pkg/describe/describe.go (PrefixWriter, tabbedString,
printLabelsMultiline, printAnnotationsMultiline, printNodeTaintsMultiline,
printPodTolerationsMultiline, DescribeEvents, describeResources) and
staging/src/k8s.io/kubectl/pkg/util/event (events sorted by series/last/event time).

Layout: describe writes through Go's ``text/tabwriter`` with minwidth 0, tabwidth 8, padding 2
(``tabbedString``); indentation levels are two spaces each (``PrefixWriter``). Times print as
RFC 1123 with numeric zone in the local time zone, as kubectl does (set ``TZ`` to pin it).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from kubesim.printers.age import parse_timestamp, translate_timestamp_since
from kubesim.printers.tabwriter import tabwrite

TYPE_CHECKING = False  # (typing costs ~3 ms to import)


if TYPE_CHECKING:
    from kubesim.api.quantity import Quantity


# describe's tabwriter (describe.go tabbedString)
DESCRIBE_MINWIDTH, DESCRIBE_TABWIDTH, DESCRIBE_PADDING = 0, 8, 2


LEVEL_0, LEVEL_1, LEVEL_2, LEVEL_3, LEVEL_4 = range(5)


SKIP_ANNOTATIONS = {"kubectl.kubernetes.io/last-applied-configuration"}


MAX_ANNOTATION_LEN = 140


@dataclass
class DescribeContext:
    """What a describer shows besides the object, fetched for it (describers never fetch):
    the current time, the events involving the object, related pods, and kind-specific extras."""

    now: float
    events: list[dict] | None
    pods: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)


class PrefixWriter:
    """describe.go's PrefixWriter: two spaces per level, terminal escapes neutralised."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, level: int, text: str) -> None:
        self.parts.append(_escape("  " * level + text))

    def write_line(self, *args: object) -> None:
        self.parts.append(_escape(" ".join(str(a) for a in args) + "\n"))

    def text(self) -> str:
        return tabwrite("".join(self.parts), DESCRIBE_MINWIDTH, DESCRIBE_TABWIDTH, DESCRIBE_PADDING)


def _escape(s: str) -> str:
    """cli-runtime's EscapeTerminal."""
    return s.replace("\x1b", "^[").replace("\r", "\\r")


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


ZERO_TIME_RFC1123Z = "Mon, 01 Jan 0001 00:00:00 +0000"


def format_rfc1123z(ts: str | None) -> str:
    """Go's ``t.Format(time.RFC1123Z)`` of a metav1.Time, which kubectl holds in local time."""
    t = parse_timestamp(ts)
    if t is None:
        return ZERO_TIME_RFC1123Z
    lt = time.localtime(math.floor(t))
    offset = lt.tm_gmtoff or 0
    sign = "+" if offset >= 0 else "-"
    offset = abs(offset)
    return (f"{_DAYS[lt.tm_wday]}, {lt.tm_mday:02d} {_MONTHS[lt.tm_mon - 1]} {lt.tm_year:04d} "
            f"{lt.tm_hour:02d}:{lt.tm_min:02d}:{lt.tm_sec:02d} "
            f"{sign}{offset // 3600:02d}{offset % 3600 // 60:02d}")


def go_bool(v: object) -> str:
    return "true" if v else "false"


def print_bool(v: object) -> str:
    return "True" if v else "False"


def string_or_none(s: str) -> str:
    return s if s else "<none>"


def _quantity_module():
    from kubesim.api import quantity

    return quantity


def parse_quantity(s: object) -> Quantity:
    """ParseQuantity of a stored value; its String() is the stored text when upstream keeps it."""
    return _quantity_module().parse(s)


def zero_quantity() -> Quantity:
    """The zero Quantity kubectl gets for a missing resource (String() ``0``)."""
    return _quantity_module().Quantity()


def quantity_string(s: object) -> str:
    """``Quantity.String()`` of a stored quantity: its canonical form."""
    return _quantity_module().canonical(s)


def parse_list(resources: dict | None) -> dict[str, Quantity]:
    return {name: parse_quantity(q) for name, q in (resources or {}).items()}


def object_meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def print_labels_multiline(w: PrefixWriter, title: str, labels: dict | None,
                            initial_indent: str = "", inner_indent: str = "\t") -> None:
    w.write(LEVEL_0, f"{initial_indent}{title}:{inner_indent}")
    if not labels:
        w.write_line("<none>")
        return
    for i, key in enumerate(sorted(labels)):
        if i != 0:
            w.write(LEVEL_0, initial_indent)
            w.write(LEVEL_0, inner_indent)
        w.write(LEVEL_0, f"{key}={labels[key]}\n")


def print_annotations_multiline(w: PrefixWriter, title: str, annotations: dict | None) -> None:
    w.write(LEVEL_0, f"{title}:\t")
    keys = sorted(k for k in (annotations or {}) if k not in SKIP_ANNOTATIONS)
    if not keys:
        w.write_line("<none>")
        return
    indent = "\t"
    for i, key in enumerate(keys):
        if i != 0:
            w.write(LEVEL_0, indent)
        value = str(annotations[key])
        value = value.removesuffix("\n")
        if len(value) + len(key) + 2 > MAX_ANNOTATION_LEN or "\n" in value:
            w.write(LEVEL_0, f"{key}:\n")
            for s in value.split("\n"):
                w.write(LEVEL_0, f"{indent}  {_shorten(s, MAX_ANNOTATION_LEN - 2)}\n")
        else:
            w.write(LEVEL_0, f"{key}: {value}\n")


def _shorten(s: str, max_length: int) -> str:
    return s[:max_length] + "..." if len(s) > max_length else s


def taint_to_string(taint: dict) -> str:
    """v1.Taint.ToString: ``key=value:effect``, ``key:effect``, ``key=value:`` or ``key``."""
    key, value, effect = taint.get("key", ""), taint.get("value", ""), taint.get("effect", "")
    if not effect:
        return f"{key}={value}:" if value else key
    return f"{key}={value}:{effect}" if value else f"{key}:{effect}"


def print_taints_multiline(w: PrefixWriter, title: str, taints: list[dict] | None) -> None:
    w.write(LEVEL_0, f"{title}:\t")
    if not taints:
        w.write_line("<none>")
        return
    ordered = sorted(taints, key=lambda t: f"{t.get('effect', '')},{t.get('key', '')}")
    for i, taint in enumerate(ordered):
        if i != 0:
            w.write(LEVEL_0, "\t")
        w.write(LEVEL_0, taint_to_string(taint) + "\n")


def print_tolerations_multiline(w: PrefixWriter, title: str, tolerations: list[dict] | None,
                                 initial_indent: str = "") -> None:
    w.write(LEVEL_0, f"{initial_indent}{title}:\t")
    if not tolerations:
        w.write_line("<none>")
        return
    for i, t in enumerate(sorted(tolerations, key=lambda t: t.get("key", ""))):
        if i != 0:
            w.write(LEVEL_0, initial_indent)
            w.write(LEVEL_0, "\t")
        key, value, effect = t.get("key", ""), t.get("value", ""), t.get("effect", "")
        w.write(LEVEL_0, key)
        if value:
            w.write(LEVEL_0, f"={value}")
        if effect:
            w.write(LEVEL_0, f":{effect}")
        # operator Exists with no value tolerates everything (or every value of the key)
        if t.get("operator") == "Exists" and not value:
            w.write(LEVEL_0, " op=Exists" if key or effect else "op=Exists")
        if t.get("tolerationSeconds") is not None:
            w.write(LEVEL_0, f" for {int(t['tolerationSeconds'])}s")
        w.write(LEVEL_0, "\n")


def format_label_selector(selector: dict | None) -> str:
    """metav1.FormatLabelSelector, as the printers have it (one implementation: an operator or
    a requirement the selector package refuses, e.g. ``In`` without values, is ``<error>``)."""
    from kubesim.printers.apps import format_label_selector as _format

    return _format(selector)


def describe_events(events: list[dict] | None, w: PrefixWriter, now: float) -> None:
    """DescribeEvents: ``Events:  <none>`` or the Type/Reason/Age/From/Message table; nothing
    when the events were not asked for (None: ``--show-events=false``)."""
    if events is None:
        return
    if not events:
        w.write(LEVEL_0, "Events:\t<none>\n")
        return

    def event_time(e: dict) -> float:
        # kubectl 1.36's event.SortableEvents orders by lastTimestamp alone (a missing one is
        # Go's zero time, so new-style events with only eventTime/series sort first)
        return parse_timestamp(e.get("lastTimestamp")) or float("-inf")

    w.write(LEVEL_0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
    w.write(LEVEL_1, "----\t------\t----\t----\t-------\n")
    for e in sorted(events, key=event_time):
        if e.get("eventTime"):
            first = translate_timestamp_since(e["eventTime"], now)
        else:
            first = translate_timestamp_since(e.get("firstTimestamp"), now)
        series = e.get("series")
        count = int(e.get("count") or 0)
        if series is not None:
            interval = (f"{translate_timestamp_since(series.get('lastObservedTime'), now)} "
                        f"(x{int(series.get('count') or 0)} over {first})")
        elif count > 1:
            interval = (f"{translate_timestamp_since(e.get('lastTimestamp'), now)} "
                        f"(x{count} over {first})")
        else:
            interval = first
        source = (e.get("source") or {}).get("component") or _reporting_controller(e)
        message = (e.get("message") or "").strip()
        field_path = (e.get("involvedObject") or {}).get("fieldPath")
        if field_path:
            message = f"{field_path}: {message}"
        w.write(LEVEL_1, f"{e.get('type', '')}\t{e.get('reason', '')}\t{interval}\t"
                         f"{source}\t{message}\n")


def _reporting_controller(event: dict) -> str:
    """core/v1 serialises ReportingController as ``reportingComponent``; events.k8s.io/v1 as
    ``reportingController`` (accepted too, for events stored in the newer shape)."""
    return event.get("reportingComponent") or event.get("reportingController") or ""


def describe_resources(resources: dict | None, w: PrefixWriter, level: int) -> None:
    if resources is None:
        return
    for title, key in (("Limits", "limits"), ("Requests", "requests")):
        values = resources.get(key) or {}
        if values:
            w.write(level, f"{title}:\n")
        for name in sorted(values):
            w.write(level + 1, f"{name}:\t{quantity_string(values[name])}\n")


def format_labels(m: dict | None) -> str:
    """labels.FormatLabels: ``k=v,k2=v2`` sorted by key, or ``<none>``."""
    if not m:
        return "<none>"
    return ",".join(f"{k}={m[k]}" for k in sorted(m))


def go_string_slice_v(items: list | None) -> str:
    """``%v`` of a []string: ``[a b]``."""
    return "[" + " ".join(str(i) for i in (items or [])) + "]"


def int_or_string_text(v: object) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
