"""kubectl top's printer and sorters: the NodeMetrics/PodMetrics tables.

Upstream: staging/src/k8s.io/kubectl/pkg/metricsutil/metrics_printer.go (``TopCmdPrinter``:
every cell ends with a tab, so each line carries its padding; CPU in millicores, memory in Mi,
percentages of the node's allocatable — or capacity — truncated; ``<unknown>`` for a node without
metrics), metrics_sorter.go (``--sort-by=cpu|memory``: largest first; else by name, namespaced
pods by namespace first) and metrics_resource_adder.go (``--sum``). Printed through cli-runtime's
GetNewTabWriter (kubesim.printers.tabwriter.table_tabwrite).

Go's ``sort.Sort`` is an insertion sort up to 12 elements (stable, as Python's sort); past that
its order of equal usages is pdqsort's, which kubesim does not reproduce (ties keep name order).
"""

from __future__ import annotations

from kubesim.api.quantity import cpu_milli, mem_bytes

NAMESPACE_COLUMN = "NAMESPACE"
POD_COLUMN = "POD"
RESOURCE_SWAP = "swap"
UNKNOWN = "<unknown>"


def _milli(q) -> int:
    return cpu_milli(q) if q is not None else 0


def _value(q) -> int:
    return mem_bytes(q) if q is not None else 0


def milli_value(resource: str, q) -> int:
    """Quantity.MilliValue() of a usage (0 when it is missing: the zero Quantity)."""
    return _milli(q) if resource == "cpu" else _value(q) * 1000


def _single_usage(resource: str, q) -> str:
    """printSingleResourceUsage."""
    if resource == "cpu":
        return f"{_milli(q)}m"
    if resource in ("memory", RESOURCE_SWAP):
        return f"{_value(q) // (1024 * 1024)}Mi"
    return str(_value(q))


class TopCmdPrinter:
    """NewTopCmdPrinter: the measured resources and columns, with swap when ``show_swap``."""

    def __init__(self, show_swap: bool = False):
        self.measured = ["cpu", "memory"]
        self.node_columns = ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
        self.pod_columns = ["NAME", "CPU(cores)", "MEMORY(bytes)"]
        self.missing: dict[str, list[str]] = {}
        if show_swap:
            self.measured.append(RESOURCE_SWAP)
            self.node_columns += ["SWAP(bytes)", "SWAP(%)"]
            self.pod_columns += ["SWAP(bytes)"]

    def register_missing_resource(self, node: str, resource: str) -> None:
        if resource not in self.missing.setdefault(node, []):
            self.missing[node].append(resource)

    # -- lines -------------------------------------------------------------------------------
    def _usages(self, name: str, usage: dict, available: dict | None) -> str:
        """printMetricsLine: the name, then per resource its usage and, with an available
        amount, the percentage of it."""
        out = name + "\t"
        for res in self.measured:
            if res in self.missing.get(name, ()):
                out += f"{UNKNOWN}\t{UNKNOWN}\t"
                continue
            q = usage.get(res)
            out += _single_usage(res, q) + "\t"
            if available is not None and res in available:
                total = milli_value(res, available[res])
                fraction = milli_value(res, q) / total * 100 if total else 0.0
                out += f"{int(fraction)}%\t"
        return out + "\n"

    def print_node_metrics(self, metrics: list[dict], available: dict[str, dict], no_headers: bool,
                           sort_by: str) -> str:
        """PrintNodeMetrics: the nodes with metrics, sorted, then ``<unknown>`` rows for the listed
        nodes without (Go ranges over a map there; kubesim prints them by name)."""
        if not metrics:
            return ""
        available = dict(available)
        text = "" if no_headers else "".join(c + "\t" for c in self.node_columns) + "\n"
        for m in sort_node_metrics(metrics, sort_by):
            name = m["metadata"]["name"]
            text += self._usages(name, m.get("usage") or {}, available.pop(name, None))
        for name in sorted(available):
            text += name + "\t" + f"{UNKNOWN}\t{UNKNOWN}\t" * len(self.measured) + "\n"
        return _tabwrite(text)

    def print_pod_metrics(self, metrics: list[dict], containers: bool, with_namespace: bool, no_headers: bool,
                          sort_by: str, sum_: bool) -> str:
        """PrintPodMetrics (``--sum``'s column count grows with the NAMESPACE and POD headers only
        when headers are printed, as upstream's does)."""
        if not metrics:
            return ""
        text, width = "", len(self.pod_columns)
        if not no_headers:
            if with_namespace:
                text += NAMESPACE_COLUMN + "\t"
                width += 1
            if containers:
                text += POD_COLUMN + "\t"
                width += 1
            text += "".join(c + "\t" for c in self.pod_columns) + "\n"
        ordered = sort_pod_metrics(metrics, with_namespace, sort_by, self.measured)
        for m in ordered:
            meta = m["metadata"]
            prefix = meta.get("namespace", "") + "\t" if with_namespace else ""
            if containers:
                for c in sort_container_metrics(m.get("containers") or [], sort_by):
                    text += prefix + meta["name"] + "\t" + self._usages(c["name"], c.get("usage") or {}, None)
            else:
                text += prefix + self._usages(meta["name"], pod_usage(m, self.measured), None)
        if sum_:
            total = {res: sum(milli_value(res, (c.get("usage") or {}).get(res)) for m in ordered
                              for c in m.get("containers") or []) for res in self.measured}
            text += "\t" * (width - 2) + "________\t________\t\n"
            text += "\t" * (width - 3)
            text += self._usages("", {res: _from_milli(res, v) for res, v in total.items()}, None)
        return _tabwrite(text)


def _from_milli(resource: str, milli: int) -> str:
    return f"{milli}m" if resource == "cpu" else str(milli // 1000)


def _tabwrite(text: str) -> str:
    from kubesim.printers.tabwriter import table_tabwrite

    return table_tabwrite(text)


def pod_usage(m: dict, measured: list[str]) -> dict:
    """getPodMetrics: the sum of the containers' usage, per measured resource."""
    out = {}
    for res in measured:
        total = sum(milli_value(res, (c.get("usage") or {}).get(res)) for c in m.get("containers") or [])
        out[res] = _from_milli(res, total)
    return out


def sort_node_metrics(metrics: list[dict], sort_by: str) -> list[dict]:
    """NodeMetricsSorter."""
    if sort_by in ("cpu", "memory"):
        return sorted(metrics, key=lambda m: -milli_value(sort_by, (m.get("usage") or {}).get(sort_by)))
    return sorted(metrics, key=lambda m: m["metadata"]["name"])


def sort_pod_metrics(metrics: list[dict], with_namespace: bool, sort_by: str, measured: list[str]) -> list[dict]:
    """PodMetricsSorter."""
    if sort_by in ("cpu", "memory"):
        return sorted(metrics, key=lambda m: -milli_value(sort_by, pod_usage(m, measured).get(sort_by)))
    if with_namespace:
        return sorted(metrics, key=lambda m: (m["metadata"].get("namespace", ""), m["metadata"]["name"]))
    return sorted(metrics, key=lambda m: m["metadata"]["name"])


def sort_container_metrics(containers: list[dict], sort_by: str) -> list[dict]:
    """ContainerMetricsSorter."""
    if sort_by in ("cpu", "memory"):
        return sorted(containers, key=lambda c: -milli_value(sort_by, (c.get("usage") or {}).get(sort_by)))
    return sorted(containers, key=lambda c: c["name"])
