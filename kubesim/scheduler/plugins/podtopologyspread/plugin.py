"""PodTopologySpread: spread matching pods evenly over topology domains (hard filter, soft score).

Upstream (v1.35): pkg/scheduler/framework/plugins/podtopologyspread/plugin.go (the system default
constraints — hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway — ``New``, and the
extension points, whose work is in filtering.py and scoring.py of this package), common.go
(``getConstraints``, ``buildDefaultConstraints`` with the pod's ``helper.DefaultSelector``),
pkg/scheduler/apis/config/v1/defaults.go (``SetDefaults_PodTopologySpreadArgs``: defaultingType
System) and pkg/scheduler/apis/config/validation/validation_pluginargs.go
(``ValidatePodTopologySpreadArgs``).

v1.35 has NodeInclusionPolicyInPodTopologySpread (GA) and MatchLabelKeysInPodTopologySpread on,
so the policies and matchLabelKeys always apply. A constraint whose labelSelector is ``{}`` counts
no existing pod (``countPodsMatchSelector`` returns 0 for an empty selector), while AddPod/RemovePod
and the self-match still see it match everything: that is v1.35 behaviour, reproduced on purpose.
EventsToRegister (queueing hints on, plugin.go): Pod Add|UpdatePodLabel|UpdatePodToleration|Delete,
Queue for a scheduled pod of the pod's namespace added or deleted with labels a hard
constraint's selector matches, updated so that some selector's verdict on it changes, or the pod
itself getting a toleration when a constraint honours taints (``isSchedulableAfterPodChange``);
Node Add|Delete|UpdateNodeLabel|UpdateNodeTaint, Queue for a node carrying every constraint's
topology key that is added or deleted, that gains or loses one of the keys, or that changes a
key's value or its taints (``isSchedulableAfterNodeChange``).
Legacy names: EvenPodsSpread / EvenPodsSpreadPriority.

kubesim specifics: default constraints get the pod's Services and controllers through a
``default_selector`` callable or an informer-like ``list_objects(kind, namespace)`` (the
framework's Handle has no informers yet).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kubesim.api.equality import semantic_equal
from kubesim.api.selectors import LabelSelector, label_key_errors
from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    NodeScore,
    PreFilterExtensions,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from kubesim.scheduler.framework.pod_groups import match_group
from kubesim.scheduler.framework.status import SKIP, Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.helper import default_selector
from kubesim.scheduler.plugins.podtopologyspread.common import (
    DO_NOT_SCHEDULE,
    HONOR,
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    NAME,
    SCHEDULE_ANYWAY,
    Constraint,
    filter_constraints,
    node_labels_match_spread_constraints,
)
from kubesim.scheduler.plugins.podtopologyspread.filtering import (
    PRE_FILTER_STATE_KEY,
    cal_pre_filter_state,
    fits,
    fits_fn,
    update_with_pod,
)
from kubesim.scheduler.plugins.podtopologyspread.scoring import (
    PRE_SCORE_STATE_KEY,
    count_existing_pods,
    init_pre_score_state,
    node_score,
    node_scores,
    normalize_score_list,
    normalize_scores,
)

_DEFAULT_SELECTOR_KEY = "DefaultSelector" + NAME  # kubesim: the cycle's DefaultSelector, memoized

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

SYSTEM_DEFAULT_CONSTRAINTS: tuple[dict, ...] = (
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)


# (kind, namespace) -> the stored objects of that kind in the namespace (an informer lister).
ObjectLister = Callable[[str, str], Iterable[dict]]
# pod -> the selector default constraints use (None or empty: no default constraints).
DefaultSelectorFunc = Callable[[dict], "LabelSelector | None"]


def _not_found(key: str) -> Status:
    return Status(Code.Error, err=f'reading "{key}" from cycleState: not found')


def _pre_score_not_found() -> Status:
    return Status(Code.Error, err=f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: '
                                  "not found")


# -- PodTopologySpreadArgs (apis/config: defaults.go, validation_pluginargs.go) ----------------
def default_args(args: dict | None) -> dict:
    """``SetDefaults_PodTopologySpreadArgs`` on a copy: defaultingType System."""
    out = dict(args or {})
    if not out.get("defaultingType"):
        out["defaultingType"] = SYSTEM_DEFAULTING
    return out


def _q(v) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(v)


def validate_args(args: dict, path: str = "") -> list[str]:
    """``ValidatePodTopologySpreadArgs``, in its words (field paths under ``path``)."""
    prefix = f"{path}." if path else ""
    errs: list[str] = []
    dtype = args.get("defaultingType", "")
    constraints = args.get("defaultConstraints") or []
    if dtype not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
        errs.append(f'{prefix}defaultingType: Unsupported value: {_q(dtype)}: supported values: '
                    f'"{SYSTEM_DEFAULTING}", "{LIST_DEFAULTING}"')
    elif dtype == SYSTEM_DEFAULTING and constraints:
        errs.append(f"{prefix}defaultingType: Invalid value: {_q(dtype)}: when "
                    ".defaultConstraints are not empty")
    cpath = f"{prefix}defaultConstraints"
    for i, c in enumerate(constraints):
        p = f"{cpath}[{i}]"
        skew = c.get("maxSkew", 0)
        if not isinstance(skew, int) or skew <= 0:
            errs.append(f"{p}.maxSkew: Invalid value: {_q(skew)}: not in valid range (0, inf)")
        key = c.get("topologyKey") or ""
        if not key:
            errs.append(f"{p}.topologyKey: Required value: can not be empty")
        else:
            errs += [f"{p}.topologyKey: Invalid value: {_q(key)}: {m}"
                     for m in label_key_errors(key)]
        when = c.get("whenUnsatisfiable") or ""
        if not when:
            errs.append(f"{p}.whenUnsatisfiable: Required value: can not be empty")
        elif when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            errs.append(f"{p}.whenUnsatisfiable: Unsupported value: {_q(when)}: supported "
                        f'values: "{DO_NOT_SCHEDULE}", "{SCHEDULE_ANYWAY}"')
        if c.get("labelSelector") is not None:
            errs.append(f"{p}.labelSelector: Forbidden: constraint must not define a selector, "
                        "as they deduced for each pod")
        for other in constraints[:i]:
            if (other.get("topologyKey") == c.get("topologyKey")
                    and other.get("whenUnsatisfiable") == c.get("whenUnsatisfiable")):
                errs.append(f'{p}: Duplicate value: "{{{key}, {when}}}"')
                break
    return errs


def _aggregate(errs: list[str]) -> str:
    """``utilerrors.NewAggregate(...).Error()``."""
    return errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"


def _uid(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("uid") or ""


def _labels(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("labels") or {}


def _involved_in_topology_spreading(incoming: dict, pod_with_spreading: dict) -> bool:
    """``involvedInTopologySpreading``: the pod itself, or a scheduled pod of its namespace."""
    return _uid(incoming) == _uid(pod_with_spreading) or (
        bool((incoming.get("spec") or {}).get("nodeName"))
        and (incoming.get("metadata") or {}).get("namespace")
        == (pod_with_spreading.get("metadata") or {}).get("namespace"))


# -- the plugin --------------------------------------------------------------------------------
class PodTopologySpread(PreFilterPlugin, PreFilterExtensions, FilterPlugin, PreScorePlugin,
                        ScorePlugin, EnqueueExtensions):
    """The plugin. Default constraints need the pod's owners and services: pass
    ``default_selector(pod) -> LabelSelector`` or ``list_objects(kind, namespace)``; without
    either, ``handle.list_objects`` is used when the handle has it, else no default constraints
    apply (upstream would refuse to start without its informers)."""

    name = NAME

    def __init__(self, args: dict | None = None, handle: Handle | None = None, *,
                 default_selector: DefaultSelectorFunc | None = None,
                 list_objects: ObjectLister | None = None) -> None:
        super().__init__(args, handle)
        a = default_args(self.args)
        errs = validate_args(a)
        if errs:
            raise ValueError(_aggregate(errs))
        self.defaulting_type: str = a["defaultingType"]
        self.system_defaulted = self.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints: tuple[dict, ...] = (
            SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted
            else tuple(a.get("defaultConstraints") or ()))
        self._default_selector_fn = default_selector
        self._list_objects = list_objects
        # action -> the default constraints for it, when none has matchLabelKeys (then the
        # pod's labels do not enter filter_constraints: the same list for every pod)
        self._defaults_by_action: dict[str, list[Constraint]] | None = (
            None if any(c.get("matchLabelKeys") for c in self.default_constraints) else {})

    # -- constraints of a pod --------------------------------------------------------------
    def _default_selector(self, state: CycleState | None, pod: PodInfo) -> LabelSelector:
        if state is not None:
            cached = state.get(_DEFAULT_SELECTOR_KEY)
            if cached is not None:
                return cached
        if self._default_selector_fn is not None:
            sel = self._default_selector_fn(pod.pod) or LabelSelector.everything()
        else:
            lister = self._list_objects or getattr(self.handle, "list_objects", None)
            if lister is None:
                sel = LabelSelector.everything()
            else:
                ns = pod.namespace
                sel = default_selector(pod.pod, lister("Service", ns),
                                       lister("ReplicationController", ns),
                                       lister("ReplicaSet", ns), lister("StatefulSet", ns))
        if state is not None:
            state.write(_DEFAULT_SELECTOR_KEY, sel)
        return sel

    def build_default_constraints(self, state: CycleState | None, pod: PodInfo,
                                  action: str) -> list[Constraint]:
        """``buildDefaultConstraints``: the default constraints for ``action`` with the pod's
        DefaultSelector; none when that selector is empty."""
        by_action = self._defaults_by_action
        constraints = by_action.get(action) if by_action is not None else None
        if constraints is None:
            labels = (pod.pod.get("metadata") or {}).get("labels") or {}
            constraints = filter_constraints(self.default_constraints, labels, action)
            if by_action is not None:
                by_action[action] = constraints
        if not constraints:
            return []
        selector = self._default_selector(state, pod)
        if selector.empty:
            return []
        return [Constraint(c.max_skew, c.topology_key, selector, c.min_domains,
                           c.node_affinity_policy, c.node_taints_policy) for c in constraints]

    def constraints(self, state: CycleState | None, pod: PodInfo, action: str
                    ) -> list[Constraint]:
        """The pod's own constraints for ``action``, or the default ones when it has none.

        Raises ValueError worded as upstream's ``getConstraints`` / ``initPreScoreState``.
        """
        spec_constraints = (pod.pod.get("spec") or {}).get("topologySpreadConstraints")
        hard = action == DO_NOT_SCHEDULE
        if spec_constraints:
            labels = (pod.pod.get("metadata") or {}).get("labels") or {}
            try:
                return filter_constraints(spec_constraints, labels, action)
            except ValueError as e:
                kind = "hard" if hard else "soft"
                raise ValueError(
                    f"obtaining pod's {kind} topology spread constraints: {e}") from None
        try:
            return self.build_default_constraints(state, pod, action)
        except ValueError as e:
            kind = "hard" if hard else "soft"
            raise ValueError(f"setting default {kind} topology spread constraints: {e}") from None

    # -- EnqueueExtensions -------------------------------------------------------------------
    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            ev.ClusterEventWithHint(
                ev.ClusterEvent(ev.POD, ev.ADD | ev.UPDATE_POD_LABEL | ev.UPDATE_POD_TOLERATION
                                | ev.DELETE),
                self.is_schedulable_after_pod_change),
            ev.ClusterEventWithHint(
                ev.ClusterEvent(ev.NODE, ev.ADD | ev.DELETE | ev.UPDATE_NODE_LABEL
                                | ev.UPDATE_NODE_TAINT),
                self.is_schedulable_after_node_change),
        ]

    def _hard_constraints(self, pod: dict) -> list[Constraint]:
        return self.constraints(None, PodInfo(pod), DO_NOT_SCHEDULE)

    def is_schedulable_after_pod_change(self, pod: dict, old: dict | None,
                                        new: dict | None) -> int:
        if (new is not None and not _involved_in_topology_spreading(new, pod)) or \
                (old is not None and not _involved_in_topology_spreading(old, pod)):
            return ev.QUEUE_SKIP
        constraints = self._hard_constraints(pod)
        if new is not None and old is not None:
            if _uid(pod) == _uid(new) and not semantic_equal(
                    (new.get("spec") or {}).get("tolerations"),
                    (old.get("spec") or {}).get("tolerations")) and any(
                    c.node_taints_policy == HONOR for c in constraints):
                return ev.QUEUE
            old_labels, new_labels = _labels(old), _labels(new)
            if new_labels == old_labels:
                return ev.QUEUE_SKIP
            for c in constraints:
                if c.selector.matches(old_labels) != c.selector.matches(new_labels):
                    return ev.QUEUE
            return ev.QUEUE_SKIP
        labels = _labels(new if new is not None else old)  # type: ignore[arg-type]
        return ev.QUEUE if any(c.selector.matches(labels) for c in constraints) \
            else ev.QUEUE_SKIP

    def is_schedulable_after_node_change(self, pod: dict, old: dict | None,
                                         new: dict | None) -> int:
        constraints = self._hard_constraints(pod)
        old_matching = old is not None and node_labels_match_spread_constraints(
            _labels(old), constraints)
        new_matching = new is not None and node_labels_match_spread_constraints(
            _labels(new), constraints)
        if old is not None and new is not None:
            if old_matching != new_matching:
                return ev.QUEUE
            if new_matching and (
                    any(_labels(old).get(c.topology_key) != _labels(new).get(c.topology_key)
                        for c in constraints)
                    or not semantic_equal((old.get("spec") or {}).get("taints"),
                                          (new.get("spec") or {}).get("taints"))):
                return ev.QUEUE
            return ev.QUEUE_SKIP
        if new is not None:
            return ev.QUEUE if new_matching else ev.QUEUE_SKIP
        return ev.QUEUE if old_matching else ev.QUEUE_SKIP

    # -- PreFilter ---------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        snapshot = self.handle.snapshot
        try:
            constraints = self.constraints(state, pod, DO_NOT_SCHEDULE)
            s = cal_pre_filter_state(
                constraints, pod, nodes, snapshot.pod_groups(match_group)
                if constraints and nodes is snapshot.node_info_list else None)
        except ValueError as e:
            return None, Status(Code.Error, err=f"get constraints from pod: {e}")
        if not s.constraints:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: PodInfo, pod_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _not_found(PRE_FILTER_STATE_KEY)
        update_with_pod(s, pod_to_add, pod_to_schedule, node_info, 1)
        return None

    def remove_pod(self, state: CycleState, pod_to_schedule: PodInfo, pod_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _not_found(PRE_FILTER_STATE_KEY)
        update_with_pod(s, pod_to_remove, pod_to_schedule, node_info, -1)
        return None

    # -- Filter ------------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _not_found(PRE_FILTER_STATE_KEY)
        return fits(s, node.labels)

    def filter_fn(self, state: CycleState, pod: PodInfo):
        """Filter bound to this cycle's state (read at each call, so AddPod/RemovePod on the
        same state still count); None when the pod has no hard constraints."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return lambda node: _not_found(PRE_FILTER_STATE_KEY)
        if not s.constraints:
            return None
        return fits_fn(s)

    # -- PreScore ----------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        all_nodes = self.handle.snapshot.list()
        if not all_nodes:
            return SKIP
        # Only non-system-default spreading requires nodes to carry every topology key, so nodes
        # without a zone label still get hostname spreading.
        require_all = bool((pod.pod.get("spec") or {}).get("topologySpreadConstraints")) \
            or not self.system_defaulted
        try:
            s = init_pre_score_state(self.constraints(state, pod, SCHEDULE_ANYWAY), nodes,
                                     require_all)
        except ValueError as e:
            return Status(Code.Error, err=f"calculating preScoreState: {e}")
        if not s.constraints:
            return SKIP
        count_existing_pods(s, pod, all_nodes, require_all,
                            self.handle.snapshot.pod_groups(match_group))
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    # -- Score -------------------------------------------------------------------------------
    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo
              ) -> tuple[int, Status | None]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return 0, _pre_score_not_found()
        return node_score(s, node, pod.namespace), None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
                    ) -> list[int] | Status:
        """Score for every node at once (the runtime's batch path)."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _pre_score_not_found()
        ignored = s.ignored_nodes
        s.scored_ignored = [i for i, ni in enumerate(nodes) if ni.name in ignored] \
            if ignored else []
        return node_scores(s, nodes, pod.namespace)

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _pre_score_not_found()
        normalize_scores(scores, s.ignored_nodes)
        return None

    def normalize_list(self, state: CycleState, pod: PodInfo, scores: list[int]
                       ) -> list[int] | Status:
        """``normalize_score`` over the plain numbers ``score_nodes`` just returned (the
        runtime's batch path: it normalizes the list it had scored)."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _pre_score_not_found()
        if s.scored_ignored is None or len(scores) < max(s.scored_ignored, default=-1) + 1:
            return Status(Code.Error, err="normalizing scores not scored by score_nodes")
        return normalize_score_list(scores, s.scored_ignored)
