"""TaintToleration: hard NoSchedule/NoExecute taints filter, soft PreferNoSchedule taints score.

Upstream: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (v1.35).
Filter: the first NoSchedule/NoExecute taint no toleration tolerates rejects the node with
UnschedulableAndUnresolvable "node(s) had untolerated taint(s)" (the key/value of the taint went
into a V(4) log line, not the message, in v1.33+; older clusters printed
"node(s) had untolerated taint {key: value}"). PreScore keeps the pod's tolerations whose effect is
empty or PreferNoSchedule; Score counts the node's PreferNoSchedule taints none of them tolerates;
NormalizeScore is DefaultNormalizeScore reversed, so fewer intolerable taints score higher.
EventsToRegister (queueing hints on): Node Add|UpdateNodeTaint, Queue when the node's taints
stop rejecting the pod (``isSchedulableAfterNodeChange``); Pod UpdatePodToleration, Queue for
the pod's own new toleration (``isSchedulableAfterPodTolerationChange``).
Legacy names: PodToleratesNodeTaints / TaintTolerationPriority.

kubesim specifics: the runtime's compiled Filter remembers a tainted node's verdict
(NodeInfo.memo) for its taints list and the pod's tolerations' text.
"""

from __future__ import annotations

import json

from kubesim.scheduler.framework import events as ev
from kubesim.scheduler.framework.cycle_state import CycleState
from kubesim.scheduler.framework.interface import (
    MAX_NODE_SCORE,
    EnqueueExtensions,
    FilterPlugin,
    NodeScore,
    PreScorePlugin,
    ScorePlugin,
)
from kubesim.scheduler.framework.status import Code, Status
from kubesim.scheduler.framework.types import NodeInfo, PodInfo
from kubesim.scheduler.plugins.helper import (
    default_normalize_list,
    default_normalize_score,
    do_not_schedule_taints,
    find_matching_untolerated_taint,
    interned,
    tolerations_tolerate_taint,
)

NAME = "TaintToleration"
PRE_SCORE_STATE_KEY = "PreScore" + NAME
# The pre-v1.33 filter reason (still exported upstream as ErrReasonNotMatch).
ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"


def untolerated_taint(taints: list[dict], tolerations: list[dict]) -> dict | None:
    """The first NoSchedule/NoExecute taint the tolerations do not tolerate (None: fits)."""
    return find_matching_untolerated_taint(taints, tolerations, do_not_schedule_taints)


_TOLERATIONS_KEYS: dict[str, str] = {}


def tolerations_key(tolerations: list[dict]) -> str:
    """The tolerations as one interned string: pods tolerating alike get the same object."""
    text = json.dumps(tolerations, sort_keys=True, separators=(",", ":"))
    return interned(_TOLERATIONS_KEYS, text)


def _uid(pod: dict) -> str:
    return (pod.get("metadata") or {}).get("uid") or ""


def prefer_no_schedule_tolerations(tolerations: list[dict]) -> list[dict]:
    """Tolerations with no effect (all effects) or effect PreferNoSchedule."""
    return [t for t in tolerations if not t.get("effect") or t.get("effect") == "PreferNoSchedule"]


def count_intolerable_prefer_no_schedule(taints: list[dict], tolerations: list[dict]) -> int:
    return sum(1 for t in taints
               if t.get("effect") == "PreferNoSchedule"
               and not tolerations_tolerate_taint(tolerations, t))


class TaintToleration(FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions):
    name = NAME
    node_local = True  # (framework/equivalence.py)

    def events_to_register(self) -> list[ev.ClusterEventWithHint]:
        return [
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.NODE, ev.ADD | ev.UPDATE_NODE_TAINT),
                                    self.is_schedulable_after_node_change),
            ev.ClusterEventWithHint(ev.ClusterEvent(ev.POD, ev.UPDATE_POD_TOLERATION),
                                    self.is_schedulable_after_pod_toleration_change),
        ]

    def is_schedulable_after_node_change(self, pod: dict, old: dict | None, new: dict) -> int:
        tolerations = (pod.get("spec") or {}).get("tolerations") or []
        was_untolerated = True
        if old is not None:
            was_untolerated = untolerated_taint((old.get("spec") or {}).get("taints") or [],
                                                tolerations) is not None
        is_untolerated = untolerated_taint((new.get("spec") or {}).get("taints") or [],
                                           tolerations) is not None
        return ev.QUEUE if was_untolerated and not is_untolerated else ev.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(self, pod: dict, old: dict | None,
                                                   new: dict) -> int:
        return ev.QUEUE if _uid(pod) == _uid(new) else ev.QUEUE_SKIP

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        taints = node.taints
        if not taints:
            return None
        tolerations = (pod.pod.get("spec") or {}).get("tolerations") or []
        if untolerated_taint(taints, tolerations) is None:
            return None
        return Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNTOLERATED)

    def filter_fn(self, state: CycleState, pod: PodInfo):
        """``filter`` for one pod; a tainted node remembers its verdict (in ``memo``) for its
        taints list and the pod's tolerations, so pods tolerating alike decide it once."""
        tolerations = (pod.pod.get("spec") or {}).get("tolerations") or []
        key = None
        rejected = Status(Code.UnschedulableAndUnresolvable, ERR_REASON_UNTOLERATED)

        def fn(node: NodeInfo) -> Status | None:
            nonlocal key
            taints = node.taints
            if not taints:
                return None
            if key is None:
                key = tolerations_key(tolerations)
            e = node.memo.get(NAME)
            if e is not None and e[0] is taints and e[1] is key:
                untolerated = e[2]
            else:
                untolerated = untolerated_taint(taints, tolerations) is not None
                node.memo[NAME] = (taints, key, untolerated)
            return rejected if untolerated else None
        return fn

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        tolerations = (pod.pod.get("spec") or {}).get("tolerations") or []
        state.write(PRE_SCORE_STATE_KEY, tuple(prefer_no_schedule_tolerations(tolerations)))
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> tuple[int, Status | None]:
        tolerations = state.get(PRE_SCORE_STATE_KEY)
        if tolerations is None:
            return 0, Status(Code.Error, err=f'failed to read "{PRE_SCORE_STATE_KEY}" from '
                                             "cycleState: not found")
        taints = node.taints
        if not taints:
            return 0, None
        return count_intolerable_prefer_no_schedule(taints, list(tolerations)), None

    def score_nodes(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]):
        tolerations = state.get(PRE_SCORE_STATE_KEY)
        if tolerations is None:
            return super().score_nodes(state, pod, nodes)
        tol = list(tolerations)
        return [count_intolerable_prefer_no_schedule(n.taints, tol) if n.taints else 0
                for n in nodes]

    def normalize_score(self, state: CycleState, pod: PodInfo,
                        scores: list[NodeScore]) -> Status | None:
        default_normalize_score(MAX_NODE_SCORE, True, scores)
        return None

    def normalize_list(self, state: CycleState, pod: PodInfo, scores: list[int]) -> list[int]:
        return default_normalize_list(MAX_NODE_SCORE, True, scores)
