"""DESIGN §2's one-way dependencies, checked by parsing every module's imports: the scheduler,
controllers and kubelet never import each other (they meet only in stored objects), scheduler
plugins see only the framework and api, and nothing below the CLI imports it."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "kubesim"

# package -> the kubesim packages it may import (besides itself)
ALLOWED = {
    "api": {"errors"},
    "clock": set(),
    "errors": set(),
    "store": {"errors"},
    "codec": {"api", "errors"},
    "scheduler": {"api"},
    "controllers": {"api", "clock"},
    "kubelet": {"api", "clock", "codec", "errors"},
    "engine": {"api", "clock", "codec", "controllers", "errors", "kubelet", "scheduler", "store"},
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


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_package_imports_only_what_lies_below_it(package):
    bad = {str(p.relative_to(ROOT)): sorted(_imports(p) - ALLOWED[package] - {package})
           for p in _modules(package)}
    assert {k: v for k, v in bad.items() if v} == {}


def test_nothing_but_the_entry_points_imports_the_cli():
    users = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                   if "cli" in _imports(p) and p.parent.name != "cli")
    assert users == ["__main__.py", "testing/cli.py"]
