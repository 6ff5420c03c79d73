"""ImageLocality: mirrors upstream image_locality_test.go (TestImageLocalityPriority)."""

import pytest

from kubesim.scheduler.plugins.imagelocality import (MB, ImageLocality, calculate_priority,
                                                     normalized_image_name)

from kubesim.testing.wrappers import make_node, make_pod
from ..harness import run_scores


def node_403002000(name="machine1"):
    return (make_node(name).capacity(cpu="4")
            .image(40 * MB, "gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1")
            .image(300 * MB, "gcr.io/300:latest", "gcr.io/300:v1")
            .image(2000 * MB, "gcr.io/2000:latest").obj())


def node_25010(name="machine2"):
    return (make_node(name).capacity(cpu="4")
            .image(250 * MB, "gcr.io/250:latest")
            .image(10 * MB, "gcr.io/10:latest", "gcr.io/10:v1").obj())


def node_60040900(name="machine3"):
    return (make_node(name).capacity(cpu="4")
            .image(60 * MB, "gcr.io/600:latest")
            .image(40 * MB, "gcr.io/40:latest")
            .image(900 * MB, "gcr.io/900:latest").obj())


def pod_with(*images):
    w = make_pod("p")
    for img in images:
        w.container(image=img)
    return w.obj()


CASES = [
    # machine1: gcr.io/40 40MB * 1/2 = 20MB < 23MB -> 0
    # machine2: gcr.io/250 250MB * 1/2 = 125MB -> 100 * (125 - 23) / (2000 - 23) = 5
    pytest.param(pod_with("gcr.io/40", "gcr.io/250"), [node_403002000(), node_25010()], [0, 5],
                 id="two images spread on two nodes, prefer the larger image one"),
    # machine1: (40 + 300) * 1/2 = 170MB -> 100 * 147 / 1977 = 7; machine2: 0
    pytest.param(pod_with("gcr.io/40", "gcr.io/300"), [node_403002000(), node_25010()], [7, 0],
                 id="two images on one node, prefer this node"),
    # machine1: 2000MB * 1/2 = 1000MB -> 100 * 977 / 1977 = 49; machine2: 10 * 1/2 -> 0
    pytest.param(pod_with("gcr.io/10", "gcr.io/2000"), [node_403002000(), node_25010()], [49, 0],
                 id="a huge image is capped by the per-container maximum"),
    # gcr.io/40 is on machine1 and machine3 (spread 2/3): 40MB * 2/3 = 26.67MB
    # -> 100 * (27962026 - 24117248) / (1048576000 - 24117248) = 0
    pytest.param(pod_with("gcr.io/40"), [node_403002000(), node_25010(), node_60040900()],
                 [0, 0, 0], id="an image on two of three nodes is scaled by its spread"),
    # gcr.io/900: 900MB * 1/3 = 300MB -> 100 * (300 - 23) / (1000 - 23) = 28 on machine3
    pytest.param(pod_with("gcr.io/900:latest"), [node_403002000(), node_25010(), node_60040900()],
                 [0, 0, 28], id="a large image on one of three nodes"),
    # init containers count too: gcr.io/300 (init) + gcr.io/40 -> same as the two-image case
    pytest.param(None, [node_403002000(), node_25010()], [7, 0],
                 id="init container images count"),
    pytest.param(pod_with(), [node_403002000(), node_25010()], [0, 0],
                 id="a pod without containers scores zero"),
]


@pytest.mark.parametrize("p, nodes, expected", CASES)
def test_score(p, nodes, expected):
    if p is None:
        p = pod_with("gcr.io/40")
        p["spec"]["initContainers"] = [{"name": "init", "image": "gcr.io/300"}]
    assert run_scores(ImageLocality(), p, nodes) == expected


@pytest.mark.parametrize("name, expected", [
    ("gcr.io/10", "gcr.io/10:latest"),
    ("gcr.io/10:v1", "gcr.io/10:v1"),
    ("localhost:5000/app", "localhost:5000/app:latest"),
    ("nginx", "nginx:latest"),
])
def test_normalized_image_name(name, expected):
    assert normalized_image_name(name) == expected


def test_calculate_priority_clamps():
    assert calculate_priority(0, 1) == 0
    assert calculate_priority(5000 * MB, 1) == 100


@pytest.mark.parametrize("p, nodes, expected", [c for c in CASES if c.values[0] is not None] + [
    # the three machines again, each twice, and two nodes without images: the batch works a
    # combination of image states out once and scores each node as Score does
    pytest.param(pod_with("gcr.io/40", "gcr.io/900"),
                 [node_403002000("a1"), node_25010("b1"), node_60040900("c1"), node_403002000("a2"),
                  make_node("bare1").capacity(cpu="4").obj(), node_25010("b2"), node_60040900("c2"),
                  make_node("bare2").capacity(cpu="4").obj()], None,
                 id="nodes sharing their images score as Score scores each"),
])
def test_score_nodes_scores_each_node_as_score_does(p, nodes, expected):
    from kubesim.scheduler.framework.cycle_state import CycleState
    from kubesim.scheduler.framework.types import PodInfo

    from ..harness import Handle, snapshot

    plugin = ImageLocality()
    snap = snapshot(nodes, [])
    plugin.handle = Handle(snap)
    infos = snap.list()
    batch = plugin.score_nodes(CycleState(), PodInfo(p), infos)
    one_by_one = [plugin.score(CycleState(), PodInfo(p), ni)[0] for ni in infos]
    assert batch == one_by_one
    if expected is not None:
        by_name = dict(zip([ni.name for ni in infos], batch, strict=True))
        assert [by_name[n["metadata"]["name"]] for n in nodes] == expected
