"""Snapshot ordering (the node tree's zone interleaving), the pods it holds and its image
states (after upstream backend/cache snapshot_test.go and node_tree_test.go)."""

from kubesim.scheduler.framework.snapshot import Snapshot, zone_interleaved

from kubesim.testing.wrappers import make_node, make_pod


def test_snapshot_interleaves_zones_like_the_node_tree():
    nodes = [make_node(n).zone(z, "r").obj() for n, z in
             [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("c1", "c"), ("b2", "b")]]
    assert [n["metadata"]["name"] for n in zone_interleaved(nodes)] == [
        "a1", "b1", "c1", "a2", "b2", "a3"]


def test_snapshot_skips_terminal_and_unknown_node_pods():
    nodes = [make_node("n1").capacity(cpu="1").obj()]
    pods = [make_pod("run").node("n1").req(cpu="100m").obj(),
            make_pod("done").node("n1").req(cpu="100m").phase("Succeeded").obj(),
            make_pod("ghost").node("gone").req(cpu="100m").obj(),
            make_pod("pending").req(cpu="100m").obj()]
    snap = Snapshot.build(nodes, pods)
    assert [p.name for p in snap.get("n1").pods] == ["run"]


def test_image_states_count_nodes_and_keep_the_first_size():
    nodes = [make_node("n1").image(100, "img:1", "img:latest").obj(),
             make_node("n2").image(200, "img:1").obj(),
             make_node("n3").obj()]
    snap = Snapshot.build(nodes)
    st = snap.get("n2").image_states["img:1"]
    assert (st.size, st.num_nodes) == (100, 2)
    assert snap.get("n1").image_states["img:latest"].num_nodes == 1
    assert snap.get("n3").image_states == {}
