"""DESIGN §2's one-way dependencies, checked by parsing every module's imports (function-level
imports included):

- ``cli → kubectl → (the client interface) → apiserver → (store, api)``: the CLI parses flags and
  calls kubectl; kubectl talks to the API server only through its client interface, so it
  imports neither the API server nor the control plane; only the CLI's factory
  (``cli/session.py``) opens a session on the control plane;
- ``controlplane → (scheduler | controllers | kubelet) → (apiserver's storage interface, api)``:
  the scheduler, controllers and kubelet never import each other, nor kubectl or the CLI — like
  the real components they meet only in stored objects (the scheduler may read the clock's Go
  duration format, as every component may);
- ``network`` (the simulated data plane: kube-proxy, CoreDNS, a NetworkPolicy-enforcing CNI) is
  pure over ``api``; only the control plane wires it to the stored objects and the kubelet;
- ``printers → (api, codec)`` (YAML is written by codec); ``codec → api``; ``api``, ``errors`` and
  ``clock`` import nothing of kubesim;
- only the API server opens the store.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "kubesim"

# package -> the kubesim packages it may import (besides itself)
ALLOWED = {
    "api": {"errors"},
    "clock": set(),
    "errors": set(),
    # the cyclic collector held off while data is made in bulk: a leaf, like clock and errors
    "gcpause": set(),
    "store": {"errors", "gcpause"},
    "codec": {"api", "errors"},
    "printers": {"api", "clock", "codec", "errors"},
    "scheduler": {"api", "clock", "gcpause"},
    "controllers": {"api", "clock", "errors"},
    "kubelet": {"api", "clock", "codec", "errors"},
    # the simulated data plane (kube-proxy, CoreDNS, a policy-enforcing CNI): pure, over objects
    "network": {"api"},
    "apiserver": {"api", "clock", "codec", "errors", "store"},
    "controlplane": {"api", "apiserver", "clock", "codec", "controllers", "errors", "gcpause", "kubelet",
                     "network", "scheduler"},
    "kubectl": {"api", "clock", "codec", "errors", "gcpause", "printers"},
    "cli": {"api", "clock", "errors", "kubectl", "printers", "practice"},
    "testing": {"api", "apiserver", "cli", "clock", "controllers", "errors"},
    # kubesim serve: the client interface spoken over HTTP; like the CLI's factory it opens a
    # session on the control plane, and it prints tables server-side as the API server does
    "server": {"api", "clock", "codec", "controlplane", "errors", "printers"},
    # practice mode: tasks as data, read through the client interface like kubectl
    "practice": {"api", "codec", "errors"},
}

# Single modules allowed one import more than their package: the CLI's factory opens the
# in-process control plane (as kubectl's builds a REST client from a kubeconfig), and kubesim's
# own ``cluster init|reset|info`` act on the state itself, as kubeadm acts on a machine.
EXCEPTIONS = {
    "cli/session.py": {"controlplane"},
    "cli/cluster.py": {"controlplane"},
}

# Imports still to be removed by the architecture step; each entry is a debt, never a rule.
DEBT = {
}


def _imports(path: pathlib.Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        out.update(n.split(".")[1] for n in names if n.startswith("kubesim."))
    return out


def _modules(package: str) -> list[pathlib.Path]:
    single = ROOT / f"{package}.py"
    return [single] if single.exists() else sorted((ROOT / package).rglob("*.py"))


def test_every_package_has_its_rules():
    packages = {p.stem if p.is_file() else p.name for p in ROOT.iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))}
    assert packages == set(ALLOWED)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_package_imports_only_what_lies_below_it(package):
    bad = {}
    for p in _modules(package):
        rel = str(p.relative_to(ROOT))
        extra = _imports(p) - ALLOWED[package] - {package} - EXCEPTIONS.get(rel, set()) - DEBT.get(rel, set())
        if extra:
            bad[rel] = sorted(extra)
    assert bad == {}


def test_the_debt_is_still_owed():
    """An entry in DEBT that no longer applies must go (the list only shrinks)."""
    paid = {rel: sorted(deps - _imports(ROOT / rel)) for rel, deps in DEBT.items()}
    assert {k: v for k, v in paid.items() if v} == {}


def test_nothing_but_the_entry_points_imports_the_cli():
    users = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                   if "cli" in _imports(p) and p.parent.name != "cli")
    assert users == ["__main__.py", "testing/cli.py"]


def test_only_the_apiserver_opens_the_store():
    users = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                   if "store" in _imports(p) and p.parent.name not in ("store", "apiserver"))
    assert users == []


def _attribute_calls(path: pathlib.Path, attr: str) -> list[str]:
    """``x.<attr>`` accesses in a module (e.g. a component reaching for ``cluster.store``)."""
    return [f"{path.relative_to(ROOT)}:{n.lineno}" for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Attribute) and n.attr == attr]


@pytest.mark.parametrize("package", ["cli", "kubectl", "printers"])
def test_the_client_side_never_touches_the_state(package):
    """kubectl and the CLI go through the client: no ``.store`` anywhere on their side."""
    assert [hit for p in _modules(package) for hit in _attribute_calls(p, "store")] == []


def _third_party(path: pathlib.Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def test_only_the_codec_reads_and_writes_yaml_and_schemas():
    users = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                   if _third_party(p) & {"yaml", "jsonschema", "kubernetes_validate"} and p.parent.name != "codec")
    assert users == []
