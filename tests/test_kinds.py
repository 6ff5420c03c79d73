"""One predictable place per kind (docs/adding-a-kind.md): every kind the API server serves has
its strategy with validation, its table columns, its describer (or kubectl's generic one, where
kubectl has none), a sample manifest, and survives a round trip through apply, get -o yaml,
apply again and delete."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kubesim.api import kinds
from kubesim.apiserver import registry
from kubesim.apiserver.registry.rest import Strategy
from kubesim.kubectl import describe
from kubesim.printers import tables
from kubesim.testing.cli import Harness

SAMPLES = Path(__file__).parent / "testdata" / "kinds"
SERVED = sorted((k for k in kinds.REGISTRY.all() if k.served), key=lambda k: (k.group, k.kind))
IDS = [k.kind for k in SERVED]


@pytest.mark.parametrize("info", SERVED, ids=IDS)
def test_a_served_kind_has_a_strategy_that_validates(info):
    strategy = registry.for_kind(info.kind)
    assert strategy is not None and strategy.kind == info.kind
    assert type(strategy).validate is not Strategy.validate
    assert type(strategy).validate_update is not Strategy.validate_update


@pytest.mark.parametrize("info", SERVED, ids=IDS)
def test_a_served_kind_has_its_columns_and_describer(info):
    table = tables.table_of(info.kind)
    assert table is not tables.GENERIC and table.columns
    assert (info.kind in describe.DESCRIBERS) != (info.kind in describe.GENERIC)


@pytest.mark.parametrize("info", SERVED, ids=IDS)
def test_a_served_kind_has_a_sample_manifest(info):
    doc = yaml.safe_load((SAMPLES / f"{info.kind}.yaml").read_text())
    assert (doc["apiVersion"], doc["kind"]) == (info.api_version, info.kind)


def _contains(stored, given) -> bool:
    """Whether everything ``given`` says is in ``stored`` (the server adds defaults and status)."""
    if isinstance(given, dict):
        return isinstance(stored, dict) and all(_contains(stored.get(k), v) for k, v in given.items())
    if isinstance(given, list):
        return isinstance(stored, list) and len(stored) == len(given) and all(
            _contains(s, g) for s, g in zip(stored, given))
    return stored == given


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    h = Harness(tmp_path_factory.mktemp("kinds") / "state")
    h.ok("get nodes")  # the default cluster
    return h


@pytest.mark.parametrize("info", SERVED, ids=IDS)
def test_a_served_kind_round_trips_through_apply_get_and_delete(cluster, info):
    path = SAMPLES / f"{info.kind}.yaml"
    given = yaml.safe_load(path.read_text())
    name = given["metadata"]["name"]
    ref = f"{info.plural}.{info.group}" if info.group else info.plural
    assert cluster.ok(f"apply -f {path}") == f"{info.ref}/{name} created\n"
    stored = yaml.safe_load(cluster.ok(f"get {ref} {name} -o yaml"))
    given["metadata"].pop("namespace", None)
    assert _contains(stored, given), stored
    assert cluster.ok(f"apply -f {path}") == f"{info.ref}/{name} unchanged\n"
    assert len(cluster.ok(f"get {ref} {name}").splitlines()) == 2  # a header and its row
    assert cluster.ok(f"get {ref} {name} -o name") == f"{info.ref}/{name}\n"
    assert name in cluster.ok(f"describe {ref} {name}")
    assert cluster(f"delete {ref} {name} --now").code == 0
    cluster.ok("advance 1m")  # whatever finalizers or grace periods hold it go
    gone = cluster(f"get {ref} {name}")
    assert gone.code == 1 and "not found" in gone.err
