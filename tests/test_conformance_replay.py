"""The conformance scenarios as regular tests, without Go or a cluster (conformance/README.md,
"Goldens: record and replay").

conformance/golden/<scenario>.yaml holds the real v1.35 cluster's normalised output of every
compared step of conformance/scenarios/<scenario>.yaml, recorded by `conformance/run.py
--record`, and whether kubesim agreed at record time. Each test here replays kubesim's side of
one scenario in-process, exactly as the live run drove it (same commands, same clock moves), and:

- every step recorded as agreeing must still print the recorded real output (else: the diff);
- every step recorded as a disagreement must still disagree, strictly like xfail(strict=True):
  a fix makes the test fail until the golden says so (`conformance/run.py --replay
  conformance/golden --accept-fixed ...`, or a re-record), so a golden never hides a fix and a
  later regression of it.
"""

from pathlib import Path

import pytest

from conformance.oracle import golden
from conformance.oracle.scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent / "conformance"
GOLDENS = sorted((ROOT / "golden").glob("*.yaml"))


def test_every_scenario_has_a_golden():
    scenarios = {p.stem for p in (ROOT / "scenarios").glob("*.yaml")}
    assert scenarios <= {p.stem for p in GOLDENS}, "record the missing goldens: conformance/run.py --record"


@pytest.mark.parametrize("path", GOLDENS, ids=[p.stem for p in GOLDENS])
def test_replay(path):
    recorded = golden.load(path)
    scenario = Scenario.load(ROOT / "scenarios" / f"{recorded['scenario']}.yaml")
    result = golden.replay(scenario, recorded)
    if not result.ok:
        pytest.fail(result.report(str(scenario.path.relative_to(ROOT.parent))), pytrace=False)
    assert result.results, "no compared step"
