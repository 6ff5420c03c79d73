"""NamespaceLifecycle (plugin/pkg/admission/namespace/lifecycle): the immortal namespaces."""

import pytest

from kubesim.apiserver.admission import DELETE, UPDATE, Attributes, validate
from kubesim.errors import Forbidden


def ns(name):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public", "kube-node-lease"])
def test_an_immortal_namespace_may_not_be_deleted(name):
    with pytest.raises(Forbidden) as e:
        validate(Attributes(DELETE, ns(name)))
    assert e.value.message == f'namespaces "{name}" is forbidden: this namespace may not be deleted'


def test_other_namespaces_and_other_operations_pass():
    validate(Attributes(DELETE, ns("dev")))
    validate(Attributes(UPDATE, ns("default"), ns("default")))
