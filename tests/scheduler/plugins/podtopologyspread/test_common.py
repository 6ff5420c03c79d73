"""PodTopologySpread's counting (after upstream common.go's countPodsMatchSelector)."""

from kubesim.api.selectors import LabelSelector, from_label_selector
from kubesim.scheduler.framework.types import PodInfo
from kubesim.scheduler.plugins.podtopologyspread.common import count_pods_match_selector

from .builders import FOO, placed


def test_count_pods_match_selector_skips_terminating_pods_and_other_namespaces():
    pods = [PodInfo(placed("a", "n", foo="")), PodInfo(placed("b", "n", "other", foo="")),
            PodInfo(placed("c", "n", terminating=True, foo="")), PodInfo(placed("d", "n"))]
    assert count_pods_match_selector(pods, from_label_selector(FOO), "default") == 1
    assert count_pods_match_selector(pods, LabelSelector.everything(), "default") == 0
