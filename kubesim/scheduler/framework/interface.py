"""One small base class per extension point; a plugin inherits the ones it implements.

Upstream: staging/src/k8s.io/kube-scheduler/framework/interface.go (``Plugin``,
``PreEnqueuePlugin``, ``QueueSortPlugin``, ``PreFilterPlugin`` + ``PreFilterExtensions``,
``FilterPlugin``, ``PostFilterPlugin``, ``PreScorePlugin``, ``ScorePlugin`` + ``ScoreExtensions``,
``ReservePlugin``, ``PermitPlugin``, ``PreBindPlugin``, ``BindPlugin``, ``PostBindPlugin``,
``PreFilterResult`` with ``AllNodes``/``Merge``, ``MaxNodeScore``), and
pkg/scheduler/framework/interface.go (the ``Handle`` plugins get).

The runtime routes by ``isinstance``. Plugins receive the pod being scheduled as a
:class:`~kubesim.scheduler.framework.types.PodInfo` (``pod.pod`` is the manifest dict) and
nodes as :class:`~kubesim.scheduler.framework.types.NodeInfo`. Statuses: ``None`` is success.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from kubesim.api.record import Record

if TYPE_CHECKING:  # pragma: no cover
    from kubesim.scheduler.framework.cycle_state import CycleState
    from kubesim.scheduler.framework.snapshot import Snapshot
    from kubesim.scheduler.framework.status import Status
    from kubesim.scheduler.framework.types import NodeInfo, PodInfo

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = (1 << 63) - 1


class NodeScore(Record):
    __slots__ = ("name", "score")

    def __init__(self, name: str, score: int):
        self.name = name
        self.score = score


class PreFilterResult(Record):
    """The set of nodes worth filtering; ``None`` node_names means all nodes."""

    __slots__ = ("node_names",)

    def __init__(self, node_names: set[str] | None = None):
        self.node_names = node_names

    def all_nodes(self) -> bool:
        return self.node_names is None


def merge_pre_filter_results(a: PreFilterResult | None,
                             b: PreFilterResult | None) -> PreFilterResult | None:
    """``PreFilterResult.Merge``: intersection, where None/all-nodes is the identity."""
    a_all = a is None or a.all_nodes()
    b_all = b is None or b.all_nodes()
    if a_all and b_all:
        return None
    if a_all:
        return PreFilterResult(set(b.node_names))  # type: ignore[union-attr]
    if b_all:
        return PreFilterResult(set(a.node_names))  # type: ignore[union-attr]
    return PreFilterResult(a.node_names & b.node_names)  # type: ignore[union-attr,operator]


class PostFilterResult(Record):
    __slots__ = ("mode_override", "nominated_node_name")

    def __init__(self, nominated_node_name: str = "", mode_override: bool = False):
        self.nominated_node_name = nominated_node_name
        self.mode_override = mode_override  # ModeOverride vs ModeNoop


class QueuedPodInfo(Record):
    """What QueueSort compares: the pod plus when it (re)entered the queue."""

    __slots__ = ("attempts", "consecutive_errors", "extra", "pod_info", "seq", "timestamp", "unschedulable_count")

    def __init__(self, pod_info: PodInfo, timestamp: float = 0.0, attempts: int = 0, unschedulable_count: int = 0,
                 consecutive_errors: int = 0, seq: int = 0, extra: dict | None = None):
        self.pod_info = pod_info
        self.timestamp = timestamp
        self.attempts = attempts
        self.unschedulable_count = unschedulable_count
        self.consecutive_errors = consecutive_errors
        self.seq = seq
        self.extra = {} if extra is None else extra


def _never(level: int) -> bool:
    return False


def contextual_kvs(name: str, values: dict, kv: dict) -> dict:
    """A line's key/values as klog's text logger writes them for a contextual logger: the name
    first (``logger="PreBind.VolumeBinding"``), then the logger's values the call does not
    repeat, then the call's own (k8s.io/klog/v2 textlogger ``WithName``, serialize.MergeKVs)."""
    out: dict = {"logger": name} if name else {}
    for k, v in values.items():
        if k not in kv:
            out[k] = v
    out.update(kv)
    return out


class Handle:
    """What plugins may reach besides their arguments: the cycle's snapshot, the klog sink, and
    the informer-style views the engine provides.

    ``log(level, "file.go:NN", message, kv)`` is the scheduler's log callback (or None).
    ``namespace_labels`` maps namespace name to its labels (InterPodAffinity's
    namespaceSelector); ``list_objects(kind, namespace)`` lists stored objects (PodTopologySpread's
    default constraints look up the pod's ReplicaSets, StatefulSets and Services);
    ``get_object(kind, namespace, name)`` reads one (None when absent).

    Plugins never write the store. What upstream's plugins ask the API server to do (PreBind
    binding volumes, preemption deleting victims) they hand to ``request``; the scheduler returns
    the requests of a committed cycle in ``ScheduleResult.writes`` and the engine carries them
    out in order, as controller changes (controllers/base.py ``Change``). While ``commit`` is
    False (explain-schedule evaluating a pod) requests are dropped.
    """

    def __init__(self, snapshot: Snapshot | None = None, log=None) -> None:
        from kubesim.scheduler.framework.snapshot import Snapshot

        self.snapshot: Snapshot = snapshot if snapshot is not None else Snapshot()
        self.log = log
        # The contextual logger of the running code (klog.LoggerWithName / LoggerWithValues):
        # its dotted name ("Bind.DefaultBinder", "" for none) and its values, merged into each
        # line by the scheduler's log callback; ``v(level)`` says whether a level is logged.
        self.log_name = ""
        self.log_values: dict = {}
        self.v = _never
        self.namespace_labels: dict[str, dict] | None = None
        self.list_objects = None
        self.get_object = None
        self.commit = True
        self.writes: list[dict] = []
        # The scheduler's pod nominator (node name -> nominated PodInfos) and the cycle's
        # random source (a copy while explaining), for PostFilter plugins.
        self.nominated: dict[str, list] = {}
        self.rng = None
        self.now: float = 0.0  # the cycle's time (seconds since the epoch)

    def scope(self, extension_point: str, plugin: str, **values) -> tuple[str, dict]:
        """Enter a plugin's logger as framework.go names it when V(4) is on
        (``<ExtensionPoint>.<Plugin>`` with the extension point's values, e.g. ``node``); the
        previous logger is returned for ``unscope``."""
        saved = self.log_name, self.log_values
        if self.v(4):
            self.log_name = f"{extension_point}.{plugin}"
            if values:
                self.log_values = {**self.log_values, **values}
        return saved

    def unscope(self, saved: tuple[str, dict]) -> None:
        self.log_name, self.log_values = saved

    def call_scoped(self, extension_point: str, plugin: str, fn, *args):
        """``fn(*args)`` with the plugin's logger entered (``scope``) around it: what a caller
        that knows V(4) is on calls instead of ``fn`` (below it, the scope names nothing)."""
        saved = self.scope(extension_point, plugin)
        try:
            return fn(*args)
        finally:
            self.unscope(saved)

    def nominated_pods_for_node(self, node_name: str) -> list:
        """``NominatedPodsForNode``: pods nominated to run on the node (status.nominatedNodeName)."""
        return self.nominated.get(node_name) or []

    def request(self, op: str, obj: dict, events: list[tuple] | None = None) -> None:
        """Ask the API server to ``op`` (``update``, ``update_status`` or ``delete``) ``obj``,
        then record ``events`` about it: (type, reason, action, note, related object or None),
        as the scheduler's events.k8s.io recorder's Eventf takes them."""
        if self.commit:
            self.writes.append({"op": op, "obj": obj, "events": list(events or [])})


class Plugin:
    """Base of all plugins. ``name`` is upstream's plugin name; ``args`` the defaulted args dict."""

    name: ClassVar[str] = ""
    # Filter (and Score, without NormalizeScore) depend only on the pod (not its volumes), the
    # args and the node's NodeInfo: results may be kept per pod class and node generation
    # (equivalence.py)
    node_local: ClassVar[bool] = False

    def __init__(self, args: dict | None = None, handle: Handle | None = None) -> None:
        self.args = args or {}
        self.handle = handle if handle is not None else Handle()


class EnqueueExtensions:
    """``EnqueueExtensions``: the cluster events that may make a pod this plugin rejected
    schedulable, each with an optional QueueingHintFn (kubesim.scheduler.framework.events). Only
    PreEnqueue, PreFilter, Filter, Reserve and Permit plugins' registrations count; such a
    plugin without this mix-in is interested in every event (``UnrollWildCardResource``)."""

    def events_to_register(self) -> list:
        raise NotImplementedError


class PreEnqueuePlugin(Plugin):
    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        raise NotImplementedError


class QueueSortPlugin(Plugin):
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        raise NotImplementedError


class PreFilterExtensions:
    """Incremental updates of PreFilter state when pods are added/removed (preemption, nomination)."""

    def add_pod(self, state: CycleState, pod_to_schedule: PodInfo, pod_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: PodInfo,
                   pod_to_remove: PodInfo, node_info: NodeInfo) -> Status | None:
        return None


class PreFilterPlugin(Plugin):
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        raise NotImplementedError

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None


class FilterPlugin(Plugin):
    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        raise NotImplementedError

    def filter_fn(self, state: CycleState, pod: PodInfo
                  ) -> Callable[[NodeInfo], Status | None] | None:
        """This cycle's Filter as a one-argument function (a fast path for many nodes), or None
        when the plugin passes every node for this pod. Must agree with ``filter``. It may
        return one Status object for many nodes of the cycle (a rejection is never changed
        after Filter but for its plugin, which is this plugin's name on every node)."""
        filt = self.filter
        return lambda node: filt(state, pod, node)


class NodeToStatusReader:
    """Read-only node -> status view given to PostFilter plugins (``NodeToStatusReader``)."""

    def get(self, node_name: str) -> Status | None:  # pragma: no cover - interface
        raise NotImplementedError


class PostFilterPlugin(Plugin):
    def post_filter(self, state: CycleState, pod: PodInfo, node_to_status: NodeToStatusReader
                    ) -> tuple[PostFilterResult | None, Status | None]:
        raise NotImplementedError


class PreScorePlugin(Plugin):
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                  ) -> Status | None:
        raise NotImplementedError


class ScorePlugin(Plugin):
    """Score returns (score, status); ``normalize_score`` is the optional ScoreExtensions."""

    has_normalize: ClassVar[bool] = False
    # Optional fast path for NormalizeScore over plain numbers: ``normalize_list(state, pod,
    # scores) -> list[int] | Status`` returning the normalized scores (a Status on failure). It
    # must agree with ``normalize_score``; None means the framework uses ``normalize_score``.
    normalize_list: ClassVar[Callable | None] = None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo
              ) -> tuple[int, Status | None]:
        raise NotImplementedError

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: list[NodeScore]
                        ) -> Status | None:
        return None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                    ) -> list[int] | Status:
        """Score every node at once (a fast path); must agree with ``score``."""
        out = []
        for node in nodes:
            v, s = self.score(state, pod, node)
            if s is not None and not s.is_success():
                return s
            out.append(v)
        return out

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "normalize_score" in cls.__dict__:
            cls.has_normalize = True
            if "normalize_list" not in cls.__dict__:
                cls.normalize_list = None  # an own NormalizeScore beats an inherited fast path


class ReservePlugin(Plugin):
    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        raise NotImplementedError

    def unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        raise NotImplementedError


class PermitPlugin(Plugin):
    def permit(self, state: CycleState, pod: PodInfo, node_name: str
               ) -> tuple[Status | None, float]:
        raise NotImplementedError


class PreBindPlugin(Plugin):
    def pre_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        raise NotImplementedError


class BindPlugin(Plugin):
    def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        raise NotImplementedError


class PostBindPlugin(Plugin):
    def post_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> None:
        raise NotImplementedError


# Upstream's interface type names, used in its configuration errors, in runtime order.
EXTENSION_POINTS: tuple[tuple[str, str, type], ...] = (
    ("preFilter", "PreFilterPlugin", PreFilterPlugin),
    ("filter", "FilterPlugin", FilterPlugin),
    ("postFilter", "PostFilterPlugin", PostFilterPlugin),
    ("reserve", "ReservePlugin", ReservePlugin),
    ("preScore", "PreScorePlugin", PreScorePlugin),
    ("score", "ScorePlugin", ScorePlugin),
    ("preBind", "PreBindPlugin", PreBindPlugin),
    ("bind", "BindPlugin", BindPlugin),
    ("postBind", "PostBindPlugin", PostBindPlugin),
    ("permit", "PermitPlugin", PermitPlugin),
    ("preEnqueue", "PreEnqueuePlugin", PreEnqueuePlugin),
    ("queueSort", "QueueSortPlugin", QueueSortPlugin),
)
