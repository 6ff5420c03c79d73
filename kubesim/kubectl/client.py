"""The client interface: everything kubectl asks of the API server, and nothing more.

kubectl (this package) never opens the state, never imports the API server, the control plane
or the components: it talks to a ``Client``. Defined here, where it is consumed (as a Go
interface is), so its implementations need not import kubectl:

- ``kubesim.controlplane.client.LocalClient`` serves it in-process, on the state one command
  has open (the CLI's case): every call is one request handled by the API server; the writes are
  settled when the command's session ends, or sooner when a waiting verb moves the clock;
- ``kubesim serve`` will speak the same calls as the Kubernetes REST API over HTTP, each request
  its own transaction, settled after each write.

Upstream: what kubectl uses of client-go (``rest.Interface`` through cli-runtime's resource
builder and helper: staging/src/k8s.io/cli-runtime/pkg/resource/helper.go Get, List, Create,
Replace, Patch, Delete; the eviction, scale and log subresources), plus kubesim's own API group
(``kubesim.io``: the simulated clock, explain-schedule, the scheduler's configuration, a node's
kubelet), which a real cluster does not have.

Objects returned by ``get``/``list`` may be shared with the server's cache (an informer's
objects are too): treat them as read-only and copy before changing them. Refusals raise
``kubesim.errors.StatusError`` subclasses carrying the API server's reason and message.
"""

from __future__ import annotations

import random
from typing import Protocol

from kubesim.api.kinds import KindInfo


class Client(Protocol):
    """The API server as kubectl sees it. ``info`` names the resource (its KindInfo)."""

    rng: random.Random  # the seeded random source (generators' names, with KUBESIM_SEED)

    # -- reads -------------------------------------------------------------------------------
    def get(self, info: KindInfo, namespace: str, name: str) -> dict:
        """GET one object; NotFound (``pods "x" not found``) when absent."""

    def find(self, info: KindInfo, namespace: str, name: str) -> dict | None:
        """GET, None when absent (a 404 the caller expects)."""

    def prefetch(self, refs: list[tuple[KindInfo, str, str]]) -> None:
        """Not a request: a hint that GETs (or DELETEs) of these (info, namespace, name)
        objects follow (a file of many objects), which the server may read together."""

    def list(self, info: KindInfo, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None, omit: tuple[str, ...] = ()) -> list[dict]:
        """LIST, sorted by (namespace, name); ``namespace`` None: all namespaces. A malformed
        selector raises the error kubectl prints; an unsupported field label the server's.
        ``omit``: dotted paths (``metadata.managedFields``) the caller will not read, which the
        server may leave out of the objects (as it leaves a Table's rows only what printing
        needs): what get's table printing asks."""

    def list_pieces(self, info: KindInfo, namespace: str | None = None, label_selector: str | None = None,
                    field_selector: str | None = None, omit: tuple[str, ...] = (), size: int = 500,
                    table: bool = False):
        """``list`` page by page, as client-go's pager reads a LIST with ``limit`` and
        ``continue`` (kubectl get's ``--chunk-size``, 500): an iterator of lists of at most
        ``size`` objects, in the same order, each read when reached, to be read before the
        session ends; a reader that keeps only what it makes of each page holds one page.
        ``table``: the caller prints the kind's table from them and reads nothing else (as
        kubectl asks a LIST ``as=Table``): the server may then give each object only what
        the table reads (``api.tablefields``)."""

    def count(self, info: KindInfo) -> int:
        """How many objects of a kind exist (what ``cluster-info`` reports)."""

    def resource_version(self) -> str:
        """The store's current resourceVersion: what a LIST's ``metadata.resourceVersion`` says."""

    def watch(self, info: KindInfo, namespace: str | None, name: str | None = None,
              label_selector: str | None = None, field_selector: str | None = None) -> Watch:
        """WATCH from now: every later write to the objects of a kind that match (one ``name``,
        or the selectors; ``namespace`` None: all namespaces), as the API server streams it.
        Selectors are refused as ``list`` refuses them."""

    # -- writes ------------------------------------------------------------------------------
    def create(self, obj: dict, info: KindInfo | None = None, *, dry_run: bool = False) -> dict:
        """POST: admission, defaulting, validation, storage; the stored object. AlreadyExists,
        Invalid, Forbidden, NotFound (namespace) as the API server refuses."""

    def update(self, info: KindInfo, obj: dict, *, verb: str = "patch", subresource: str = "") -> dict:
        """PUT of the whole object (status is a subresource: the stored status is kept); the
        stored object, with a new resourceVersion when anything changed. ``verb`` is what
        kubectl's own request would be authorized as: ``patch`` (apply, label, scale, set, ...
        send a PATCH kubesim computes client-side) or ``update`` (replace's PUT).
        ``subresource``: ``scale`` for a write through the scale subresource (managedFields
        record it so)."""

    def patch(self, info: KindInfo, namespace: str, name: str, patch_type: str, patch,
              field_validation: str = "Warn") -> tuple[dict, list[str]]:
        """PATCH (``json``, ``merge`` or ``strategic``) computed and decoded as the server does
        with ``fieldValidation`` ``Warn`` (unknown fields dropped with a warning) or ``Strict``
        (refused): (what it would store, the warnings). Nothing is written: the caller stores it
        with ``update`` (kubectl's patch and edit compare first)."""

    def apply(self, info: KindInfo, config: dict, *, field_manager: str, force: bool = False) -> tuple[dict, bool]:
        """PATCH application/apply-patch+yaml (server-side apply) of ``config`` by
        ``field_manager``: (the stored object, whether it was created). A 409 Conflict names
        the fields other managers own, unless ``force``."""

    def delete(self, info: KindInfo, namespace: str, name: str, *, grace_period: float | None = None,
               force: bool = False, propagation: str = "Background") -> dict:
        """DELETE: a pod on a node is deleted gracefully (it gets its deletionTimestamp), an
        object with finalizers is marked; the object as the server returns it."""

    def update_status(self, info: KindInfo, namespace: str, name: str, obj: dict) -> dict:
        """PUT NAME/status: the stored object with ``obj``'s status (spec and metadata kept)."""

    def bind(self, namespace: str, name: str, binding: dict) -> None:
        """POST pods/NAME/binding: the pod assigned to the Binding's target node; Conflict when
        it already has one."""

    def evict(self, namespace: str, name: str, *, grace_period: float | None = None, dry_run: bool = False) -> None:
        """POST pods/NAME/eviction, honouring PodDisruptionBudgets (TooManyRequests when one
        forbids it)."""

    def logs(self, namespace: str, name: str, container: str, previous: bool = False) -> list[str]:
        """GET pods/NAME/log: the container's lines. BadRequest for an unknown container."""

    def log_entries(self, namespace: str, name: str, container: str,
                    previous: bool = False) -> list[tuple[float, str]]:
        """The container's log as ``(time printed, line)`` entries, oldest first (what a
        follow streams, timestamps included)."""

    def pod_log(self, namespace: str, name: str, options) -> str:
        """GET pods/NAME/log with ``kubesim.api.core.podlogs.PodLogOptions``: the text the
        kubelet returns. Invalid options, BadRequest for an unknown or waiting container."""

    def exec(self, namespace: str, name: str, container: str, command: list[str]) -> tuple[str, str, int]:
        """POST pods/NAME/exec: the command's (stdout, stderr, exit code)."""

    def explain_network(self, namespace: str, name: str, host: str, port: int, protocol: str = "TCP") -> dict:
        """kubesim.io: each hop of a connection from the pod to ``host:port`` (NetworkExplanation)."""

    def warnings(self) -> list[str]:
        """The warnings the server's responses carried since last asked (a Warning header each;
        kubectl prints ``Warning: <text>`` on stderr)."""

    def create_token(self, namespace: str, name: str, spec: dict) -> dict:
        """POST serviceaccounts/NAME/token with a TokenRequest's ``spec``: the TokenRequest with
        its ``status.token``. NotFound, Invalid, BadRequest, Conflict as the server refuses."""

    def node_metrics(self, name: str | None = None, label_selector: str | None = None) -> list[dict]:
        """metrics.k8s.io/v1beta1 NodeMetrics (one named node's, or a list's)."""

    def pod_metrics(self, namespace: str | None, name: str | None = None, label_selector: str | None = None,
                    field_selector: str | None = None) -> list[dict]:
        """metrics.k8s.io/v1beta1 PodMetrics (``namespace`` None: every namespace)."""

    def raw(self, path: str) -> dict:
        """GET of a non-resource path (``/api/v1/nodes/NODE/proxy/configz``)."""

    # -- authorization.k8s.io, authentication.k8s.io: the requester's own reviews -------------
    def self_review_allowed(self, group: str, resource: str, raise_forbidden: bool = True) -> bool:
        """Whether the requester may create a self review (``selfsubjectaccessreviews``,
        ``selfsubjectrulesreviews``, ``selfsubjectreviews``); Forbidden when not, unless
        ``raise_forbidden`` is False."""

    def access_review(self, verb: str, group: str = "", resource: str = "", subresource: str = "",
                      namespace: str = "", name: str = "", path: str = "") -> tuple[bool, str]:
        """POST selfsubjectaccessreviews: (allowed, the authorizer's reason); ``path`` makes it
        a non-resource request."""

    def rules_review(self, namespace: str) -> tuple[list[dict], list[dict], bool, str]:
        """POST selfsubjectrulesreviews: (resource rules, non-resource rules, incomplete,
        evaluation error)."""

    def self_subject_review(self) -> dict:
        """POST selfsubjectreviews: the requester's ``userInfo`` (username, uid, groups, extra)."""

    # -- kubesim.io: what a real cluster does not serve ----------------------------------------
    def now(self) -> float:
        """The simulated clock (epoch seconds)."""

    def next_due(self) -> float | None:
        """When some component next asked to be woken (None: nothing will change on its own)."""

    def settle(self) -> bool:
        """Let the control plane react to the writes so far; True when anything changed."""

    def wait_until(self, t: float) -> bool:
        """What waiting until ``t`` lets happen: the clock moves to ``t``, stopping and settling
        at every moment a component asked to be woken on the way. True when anything changed."""

    def scheduler_configuration(self) -> dict:
        """The KubeSchedulerConfiguration in force, defaulted as kube-scheduler defaults it."""

    def apply_scheduler_configuration(self, cfg: dict) -> str:
        """Make ``cfg`` the scheduler's configuration: ``created``, ``configured`` or
        ``unchanged``; refused (InvalidConfiguration) as kube-scheduler would refuse to start."""

    def scheduler_plugins(self) -> dict[str, dict]:
        """Every scheduler plugin's legacy predicate/priority names (``{"predicate": ...,
        "priority": ...}``), for explain-schedule's headers."""

    def explain_schedule(self, namespace: str, name: str) -> tuple[dict, str | None]:
        """The pod's last scheduling attempt (DESIGN §3.5) and a note for stderr when its
        per-node detail had to be evaluated afresh."""

    def explain_pods(self, pods: list[dict]) -> list[tuple[dict, dict]]:
        """What-if: each pod created (admitted and defaulted) and evaluated against the cluster
        in order, as if the ones before it had been placed: [(explanation, pod)]. Writes are
        for the evaluation only: the caller's session must not commit."""

    def set_kubelet(self, node: str, running: bool) -> bool:
        """Stop or start a node's kubelet; False when it already was so."""


class WatchEvent(Protocol):
    type: str  # ADDED | MODIFIED | DELETED
    object: dict  # the object as written (for DELETED: as it was last)
    at: float  # the simulated time of the write


class Watch(Protocol):
    def events(self) -> list[WatchEvent]:
        """The events since the last call, in the order the writes were made."""

    def stop(self) -> None:
        """End the watch."""


class Factory(Protocol):
    """What a command gets from the command line besides its flags (kubectl's cmdutil.Factory):
    the namespace and a way to reach the API server."""

    namespace_flag: str | None  # -n as given (None: not given)

    @property
    def explicit_namespace(self) -> bool:
        """Whether -n was given (a manifest's own namespace must then agree with it)."""

    def namespace(self) -> str:
        """The namespace of the request: -n, else the context's namespace, else ``default``."""

    def kubeconfig_path(self) -> str:
        """The kubeconfig ``config`` reads and writes: ``--kubeconfig``, else the state's."""

    def kubeconfig(self):
        """That file's ``clientcmd.Config`` (kubeadm's default one for a state that has none)."""

    def request_timeout(self) -> float:
        """``--request-timeout`` in seconds (0: none); kubectl's error for a bad value."""

    def connect(self, settle_first: bool = True, commit: bool = True):
        """A context manager yielding a Client for the command's requests. The command's writes
        are committed when the block ends without an error (not with ``commit`` False) and
        dropped when it raises."""
