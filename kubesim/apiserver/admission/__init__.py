"""The admission chain: the plugins a v1.35 kube-apiserver runs by default that kubesim models,
in their order, and what a plugin sees of a request.

Upstream: staging/src/k8s.io/apiserver/pkg/admission/chain.go (every mutating plugin in
order, later every validating one in order; what a plugin sees is ``interfaces.py``) and
pkg/kubeapiserver/options/plugins.go (``AllOrderedPlugins``, ``DefaultOffAdmissionPlugins``). On a create or update the API server
decodes the object (the scheme's defaults), runs the mutating plugins, the strategy's
PrepareForCreate/Update and validation, then the validating plugins, then stores it; a delete
passes the validating plugins first (``kubesim.apiserver.objects``).

One plugin module each, named as upstream names the plugin's package:

- ``namespacelifecycle``: NamespaceLifecycle (the immortal namespaces cannot be deleted);
- ``limitranger``: LimitRanger (a namespace's LimitRanges default container requests/limits and
  bound pods' and claims' resources);
- ``serviceaccount``: ServiceAccount (``serviceAccountName: default`` and the projected
  ``kube-api-access-xxxxx`` token volume; mirror pods may not reference credentials);
- ``nodetaint``: TaintNodesByCondition (a new node starts ``not-ready:NoSchedule``);
- ``priority``: Priority (a pod's ``priorityClassName`` resolved to ``priority``; one global
  default among PriorityClasses);
- ``defaulttolerationseconds``: DefaultTolerationSeconds (300 s for not-ready/unreachable);
- ``defaultstorageclass``: DefaultStorageClass (a claim without a class gets the default one);
- ``storageobjectinuseprotection``: StorageObjectInUseProtection (the pvc-/pv-protection
  finalizers);
- ``runtimeclass``: RuntimeClass (the class's overhead, node selector and tolerations);
- ``defaultingressclass``: DefaultIngressClass (an Ingress without a class gets the default
  IngressClass);
- ``podtopologylabels``: PodTopologyLabels (a bound pod gets its node's zone and region labels;
  the binding half is ``kubesim.apiserver.registry.core.pod.bind``);
- ``resourcequota``: ResourceQuota (a create that would pass a namespace's quota is refused);
- ``podsecurity``: PodSecurity (the namespace's ``pod-security.kubernetes.io/*`` levels refuse
  pods and warn about pods and pod templates; its checks are ``podsecuritypolicy``).

Where kubesim differs: RuntimeClass runs first rather than after DefaultTolerationSeconds, as
it always has in kubesim, so a class's tolerations come before the default ones (upstream
appends them after); and it runs only where the request can read the cluster's objects (not
on the kubelet's mirror pods). The other default plugins (PodSecurity, NodeRestriction,
the webhooks, ...) are not modelled.
"""

from __future__ import annotations

from kubesim.apiserver.admission import (
    defaultingressclass,
    defaultstorageclass,
    defaulttolerationseconds,
    limitranger,
    namespacelifecycle,
    nodetaint,
    podsecurity,
    podtopologylabels,
    priority,
    resourcequota,
    runtimeclass,
    serviceaccount,
    storageobjectinuseprotection,
)
from kubesim.apiserver.admission.interfaces import (
    CREATE,
    DELETE,
    UPDATE,
    Attributes,
    MutationPlugin,
    ValidationPlugin,
)

__all__ = ["CREATE", "DELETE", "PLUGINS", "UPDATE", "Attributes", "admit", "validate"]

PLUGINS = (
    runtimeclass.RuntimeClass(),  # kubesim: first (upstream: after DefaultTolerationSeconds)
    namespacelifecycle.NamespaceLifecycle(),
    limitranger.LimitRanger(),
    serviceaccount.ServiceAccount(),
    nodetaint.TaintNodesByCondition(),
    podsecurity.PodSecurity(),
    priority.Priority(),
    defaulttolerationseconds.DefaultTolerationSeconds(),
    defaultstorageclass.DefaultStorageClass(),
    storageobjectinuseprotection.StorageObjectInUseProtection(),
    defaultingressclass.DefaultIngressClass(),
    podtopologylabels.PodTopologyLabels(),
    resourcequota.ResourceQuota(),
)


# each phase's plugins, in order, picked once (every write passes both: a bulk apply's thousands)
_MUTATING = tuple(p.admit for p in PLUGINS if isinstance(p, MutationPlugin))
_VALIDATING = tuple(p.validate for p in PLUGINS if isinstance(p, ValidationPlugin))


def admit(a: Attributes) -> None:
    """Run every mutating plugin, in order. Raises what a plugin refuses with (Forbidden, ...)."""
    for admit_ in _MUTATING:
        admit_(a)


def validate(a: Attributes) -> None:
    """Run every validating plugin, in order."""
    for validate_ in _VALIDATING:
        validate_(a)
