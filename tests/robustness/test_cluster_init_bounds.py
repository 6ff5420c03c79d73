"""``cluster init`` refuses shapes it cannot build well (issue 18, items 5 and 8): a node count
past its bound (it used to grow to gigabytes), zone names that are not label values (they were
written as invalid topology.kubernetes.io/zone labels); a zone count past 26 keeps valid names."""

from __future__ import annotations

import pytest

from kubesim.controlplane.bootstrap import zone_names
from kubesim.testing.cli import snapshot


@pytest.mark.parametrize("args, error", [
    ("--nodes 999999999999", "error: --nodes must be between 0 and 20,000 (kubesim's bound; upstream tests clusters "
                             "of 5,000 nodes)"),
    ("--nodes -1", "error: --nodes must be between 0 and 20,000 (kubesim's bound; upstream tests clusters of 5,000 "
                   "nodes)"),
    ("--nodes 1.5", 'error: invalid argument "1.5" for "--nodes" flag: strconv.ParseInt: parsing "1.5": invalid '
                    "syntax\nSee 'kubesim cluster --help' for usage."),
    ("--zones 1001", "error: --zones must be between 0 and 1000, or a comma-separated list of names"),
    ("--zones 'a b,c'", "error: invalid --zones name 'a b' for the topology.kubernetes.io/zone label: a valid label "
                        "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
                        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                        "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    ("--zones x/y", "error: invalid --zones name 'x/y' for the topology.kubernetes.io/zone label: a valid label must "
                    "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
                    "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
                    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    ("--zones " + "z" * 64, "error: invalid --zones name '" + "z" * 64 + "' for the topology.kubernetes.io/zone "
                            "label: must be no more than 63 bytes"),
])
def test_a_shape_kubesim_cannot_build_is_refused_and_changes_nothing(kubesim, args, error):
    kubesim.ok("get nodes")
    before = snapshot(kubesim.state_dir)
    r = kubesim("cluster init " + args)
    assert (r.code, r.out, r.err) == (1, "", error + "\n")
    assert snapshot(kubesim.state_dir) == before


@pytest.mark.parametrize("count, names", [
    (3, ["zone-a", "zone-b", "zone-c"]),
    (28, [f"zone-{c}" for c in "abcdefghijklmnopqrstuvwxyz"] + ["zone-aa", "zone-ab"]),
])
def test_zone_names_past_z_stay_label_values(count, names):
    assert zone_names(count) == names
    assert zone_names(str(count)) == names


def test_many_zones_label_the_nodes_round_robin(kubesim):
    kubesim.ok("cluster init --nodes 28 --zones 28")
    rows = kubesim.ok("get nodes -L topology.kubernetes.io/zone --no-headers").splitlines()
    zones = {r.split()[0]: r.split()[-1] for r in rows}
    assert zones["controlplane"] == "zone-a" and zones["node26"] == "zone-aa" and zones["node27"] == "zone-ab"
