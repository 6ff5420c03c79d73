"""The simulated kubelets' turns in the settle loop (the control plane runs them: ``sync_pods``,
``static_pods``; ``resume_node`` after ``kubesim node start``). Like kubelet/node.py they take
the command's context duck-typed: ``ctx.store`` (get/list/iter_kind/put/create/delete/meta/
set_meta), ``ctx.now()``, ``ctx.stamp()``, ``ctx.record(obj, type, reason, message, component,
host, field_path)`` and ``ctx.wake_at(t)``.

Kubelet memory lives in store metadata, one blob per node (``kubelet/<node>``: memory key ->
memory). A pod is synced only when it changed since the kubelet last wrote it (its
resourceVersion) or when its wake-up time has come, so read-only commands stay cheap.
"""

from __future__ import annotations

import copy
import os

from kubesim.api.nodes import kubelet_stopped
from kubesim.api.pods import MIRROR_POD_ANNOTATION, is_mirror_pod
from kubesim.kubelet import pod_workers as L
from kubesim.kubelet import staticpods as SP

MEMORY_META = "kubelet/{node}"
IMAGES_META = "kubelet/{node}/images"  # the node's images (image_service.NodeImages)
MANIFEST_ERRORS_META = "kubelet/{node}/manifest-errors"
ERROR_NODES_META = "kubelet/nodes-with-manifest-errors"  # so clean nodes need no lookup
# what the kubelet made of each file of a node's static pod directory, by the text's hash:
# a file read again with the same text is not parsed and checked again (the YAML parse and the
# pod's validation otherwise cost every command that settles)
MANIFESTS_META = "kubelet/{node}/static-pods"
MANIFESTS_VERSION = 1
_PARSE_CACHE: dict[tuple, object] = {}


def _key(p: dict) -> tuple:
    md = p.get("metadata") or {}
    return (md.get("creationTimestamp") or "", md.get("namespace") or "", md.get("name") or "")


def _waiting_for_volumes(ctx, pod: dict, node: dict, memories: dict, key: str) -> bool:
    """WaitForAttachAndMount: a pod not yet started whose claims are not bound waits with a
    ContainerCreating status and FailedMount (recorded once per message; no ``rv`` is kept, so
    the pod is looked at again next sync); so does one whose configMap, secret or projected
    volume cannot be set up (``_failed_mounts``)."""
    if not (pod.get("spec") or {}).get("volumes") or (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    from kubesim.kubelet.volumes import unready_volumes_message, waiting_status

    msg = unready_volumes_message(pod, ctx.store.get)
    if msg is None:
        return _failed_mounts(ctx, pod, node, memories, key)
    if (memories.get(key) or {}).get("volumes") != msg:
        pod["status"] = waiting_status(pod, node, ctx.stamp())
        ctx.store.put(pod)
        ctx.record(pod, "Warning", "FailedMount", msg, "kubelet", node["metadata"]["name"])
        memories[key] = {"volumes": msg}
    return True


def _failed_mounts(ctx, pod: dict, node: dict, memories: dict, key: str) -> bool:
    """The volume manager's mount attempts of configMap, secret and projected volumes: each
    failed attempt records FailedMount (the event recorder counts repeats), the next comes after
    the exponential back-off (``volumes.mount_attempt_offset``); the pod waits while a volume some
    container mounts fails. Its memory keeps ``mount``: [first attempt, attempts made]."""
    from kubesim.kubelet.volumes import (
        expected_volumes,
        mount_attempt_offset,
        setup_errors,
        waiting_status,
    )

    mem = memories.get(key) or {}
    now = ctx.now()
    first, made = (mem.get("mount") or [None, 0])
    if first is not None and now + 1e-9 < first + mount_attempt_offset(made):
        ctx.wake_at(first + mount_attempt_offset(made))
        return True  # no attempt due: still waiting
    errors = setup_errors(pod, ctx.store.get)
    expected = expected_volumes(pod) if errors else ()  # (most pods mount all they can: no errors)
    if not any(vol in expected for vol, _ in errors):
        if first is not None:
            memories[key] = {k: v for k, v in mem.items() if k != "mount"}
        return False
    if first is None:
        first = now
        pod["status"] = waiting_status(pod, node, ctx.stamp())
        ctx.store.put(pod)
    host = node["metadata"]["name"]
    while first + mount_attempt_offset(made) <= now + 1e-9:
        at = first + mount_attempt_offset(made)
        for _vol, message in errors:
            ctx.record(pod, "Warning", "FailedMount", message, "kubelet", host, at=at)
        made += 1
    memories[key] = {**mem, "mount": [first, made]}
    ctx.wake_at(first + mount_attempt_offset(made))
    return True


INDEX_META = "kubelet/index"  # node -> [earliest wake of its pods or None, a pod waits for volumes]


# What the kubelet never reads of a pod: a pass over many nodes decodes pods without it
UNREAD = ("metadata.managedFields",)
LAZY_CHUNK = 500  # pods decoded together in such a pass (one read, a bounded piece in memory)
# What of a pod the kubelet leaves out when it reads it as one of the node's other pods, where a
# pod may be admitted (L.sync_pod: admission reads their requests and host ports and whether
# they are active, the pod IP their status.podIP; passing over them reads their names, uid,
# annotations, resourceVersion and creationTimestamp)
ADMITTED = ("metadata.managedFields", "metadata.ownerReferences", "metadata.labels", "metadata.generateName",
            "spec.volumes", "spec.tolerations", "spec.affinity", "spec.topologySpreadConstraints",
            "status.conditions", "status.containerStatuses", "status.initContainerStatuses",
            "status.ephemeralContainerStatuses", "status.hostIPs", "status.podIPs",
            # of the first two containers (most pods have no more), all but the name, resources
            # and ports: a DaemonSet pod's command, environment and mounts are most of its text
            *(f"spec.containers[{i}].{f}" for i in range(2)
              for f in ("image", "command", "args", "env", "envFrom", "volumeMounts", "securityContext",
                        "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "imagePullPolicy",
                        "terminationMessagePath", "terminationMessagePolicy")))


def _per_transaction(ctx, name: str) -> dict:
    """A dict kept on the command's context under ``name`` for as long as its store (the
    transaction) is the same; a context that keeps nothing gets a fresh one."""
    d = getattr(ctx, "__dict__", None)
    if d is None:
        return {}
    got = d.get(name)
    if got is None or got[0] is not ctx.store:
        got = d[name] = (ctx.store, {})
    return got[1]


class _Unread:
    """A pod a pass over many nodes passes over without reading it: its key, its
    resourceVersion and the kubelet's memory of it (``_passed_over_unread``)."""
    __slots__ = ("key", "mem", "rv")

    def __init__(self, key: tuple, rv: str, mem: dict):
        self.key, self.rv, self.mem = key, rv, mem


def _passed_over_unread(memories: dict, keys: list, rvs: dict, now: float) -> dict:
    """Of a node's pod ``keys``, those ``_passed_over`` passes over, told from their
    resourceVersions (``rvs``: None where the pod is gone) and the node's ``memories`` alone:
    a memory kept at a pod's resourceVersion is that pod's (no two writes share one, and the
    key ``memory_key`` gives is a function of the version's metadata). key -> ``_Unread``."""
    by_rv = {m["rv"]: m for m in memories.values() if isinstance(m, dict) and m.get("rv") is not None}
    out = {}
    for k in keys:
        rv = rvs.get(k)
        if rv is not None and _at_rest(m := by_rv.get(rv), rv, now):
            out[k] = _Unread(k, rv, m)
    return out


def _read_piece(store, by_node: dict, names: list[str], now: float, read_rvs: dict | None = None) -> dict[str, list]:
    """The pods of the nodes ``names`` (``by_node``: node -> pod keys) as the pass over them
    reads them, in few reads: ``by_node`` then holds each node's pods read, and the answer
    the pods it passes over unread (``_Unread``), by node.

    A node where a pod already read (one this command bound) is admitted now has its pods read
    as admission and the pod IP read them (``ADMITTED``). Of every other node, first only the
    resourceVersions: a node whose every pod the loop passes over (synced at its
    resourceVersion, no wake due: the kubelet's own writes of the round before bring it back
    here) needs no more. The pods it syncs are read whole, and the rest of the node's pods
    as admission reads them when one of those may be a first sync (L.sync_pod).

    ``read_rvs`` (this transaction's: ``_remember_versions``) keeps the resourceVersions of
    the pods read, so that a later pass asks the database only for the others'."""
    if read_rvs is None:
        read_rvs = {}
    memories_of = {nn: store.meta(MEMORY_META.format(node=nn)) or {} for nn in names}

    def first_sync_of(nn: str, pod: dict) -> bool:
        return L.first_sync(memories_of[nn].get(L.memory_key(pod)))

    first = {nn for nn in names
             if any(p is not None and not _passed_over(memories_of[nn].get(L.memory_key(p)), p, now)
                    and first_sync_of(nn, p) for p in store.already_read(by_node[nn]).values())}
    read: dict = {}  # key -> the pod as read (None: gone)
    unread_of: dict = {}  # key -> _Unread: passed over unread
    whole: list = []  # the keys of the pods the pass syncs: read whole
    admitted = [k for nn in names if nn in first for k in by_node[nn]]
    got_admitted = iter(_remember_versions(read_rvs, admitted, store.objects(admitted, ADMITTED, aligned=True))
                        if admitted else ())
    rest = [k for nn in names if nn not in first for k in by_node[nn]]
    rvs = _resource_versions(store, rest, read_rvs) if rest else {}
    for nn in names:
        if nn in first:
            for k in by_node[nn]:
                p = next(got_admitted)
                if p is not None and not _passed_over(memories_of[nn].get(L.memory_key(p)), p, now):
                    whole.append(k)
                else:
                    read[k] = p
        else:
            unread_of.update(passed := _passed_over_unread(memories_of[nn], by_node[nn], rvs, now))
            whole.extend(k for k in by_node[nn] if k not in passed and rvs.get(k) is not None)
    if whole:
        read.update(zip(whole, _remember_versions(read_rvs, whole, store.objects(whole, UNREAD, aligned=True))))
    # the unread pods of a node where a synced pod may be a first sync: read as admission reads them
    others = [k for nn in names if nn not in first
              and any((p := read.get(k2)) is not None and first_sync_of(nn, p) for k2 in by_node[nn])
              for k in by_node[nn] if k in unread_of]
    if others:
        read.update(zip(others, _remember_versions(read_rvs, others, store.objects(others, ADMITTED, aligned=True))))
        for k in others:
            del unread_of[k]
    unread: dict[str, list] = {}
    for nn in names:
        pods = []
        for k in by_node[nn]:
            if k in unread_of:
                unread.setdefault(nn, []).append(unread_of[k])
            elif (p := read.get(k)) is not None:
                pods.append(p)
        by_node[nn] = pods
    return unread


_READ_RVS = "_kubelet_read_rvs"  # on the command's context: (its store, key -> resourceVersion)


def _remember_versions(read_rvs: dict, keys: list, pods: list) -> list:
    """``pods`` (read for ``keys``, aligned), their resourceVersions kept in ``read_rvs``: a
    pod read from the database is what it committed, as its ``rv`` column says (the column is
    the body's version as an integer: kept only where the text is that integer's)."""
    for k, p in zip(keys, pods):
        if p is not None:
            rv = (p.get("metadata") or {}).get("resourceVersion")
            if type(rv) is str and rv.isascii() and rv.isdigit() and (rv[0] != "0" or rv == "0"):
                read_rvs[k] = rv
    return pods


def _resource_versions(store, keys: list, read_rvs: dict) -> dict:
    """``store.resource_versions(keys)``, those of the pods an earlier pass of this
    transaction read (``read_rvs``) and nothing wrote or read whole since (the store's cache
    holds every object written, deleted or read whole in the transaction, and answers for
    those) taken from ``read_rvs``: a 1,000-pod apply's second pass asks again for the
    versions of thousands of pods its first pass read."""
    if not read_rvs:
        return store.resource_versions(keys)
    cached = store.already_read(keys)
    out: dict = {}
    ask = []
    for k in keys:
        if k not in cached and (rv := read_rvs.get(k)) is not None:
            out[k] = rv
        else:
            ask.append(k)
    if ask:
        out.update(store.resource_versions(ask))
    return out


def _at_rest(mem: dict | None, rv: str | None, now: float) -> bool:
    """Whether the kubelet synced a pod at resourceVersion ``rv`` (its memory ``mem`` says)
    and no wake it asked for is due."""
    return mem is not None and mem.get("rv") == rv and (mem.get("wake") is None or mem["wake"] > now)


def _passed_over(mem: dict | None, pod: dict, now: float) -> bool:
    """Whether the kubelet has nothing to do for the pod now (``_at_rest`` at its current
    resourceVersion). Reads only the pod's metadata."""
    return _at_rest(mem, (pod.get("metadata") or {}).get("resourceVersion"), now)


_RESTED = "_kubelet_rested"  # on the command's context: (its store, key -> resourceVersion)


def left_at_rest(ctx) -> dict:
    """The Pods and Nodes the kubelet passes of this command left at rest, by store key, with
    the resourceVersion each had then: every pod of such a node was synced at that version
    with no wake due (``_passed_over``), nothing waits for volumes, no static pod is killed.
    A node none of whose keys was written since needs no visit: its pod workers sleep (the
    caller of ``sync_pods`` leaves it out of ``only_nodes``; its wakes stay in the index).
    Kept per transaction (its store)."""
    return _per_transaction(ctx, _RESTED)


def sync_pods(ctx, config: L.KubeletConfig = L.DEFAULT_CONFIG, only_nodes: set[str] | None = None,
              rested_nodes: set[str] | None = None) -> bool:
    """Every node's kubelet syncs the pods bound to it that are due.

    ``only_nodes``, when given, limits the pass to those nodes plus the ones the index
    (``INDEX_META``) says have a wake due or a pod waiting for its volumes; the other nodes'
    wakes stay registered from the index. The caller names every node whose pods or Node may
    have changed since the index was last complete, but for ``rested_nodes``: those whose
    every write this command's passes have seen and left at rest (``left_at_rest``). They are
    not visited, yet read as a visit would read them (which decides how the pods it syncs
    are read, whole or without their managedFields: where a write puts that key)."""
    store = ctx.store
    now = ctx.now()
    index = dict(store.meta(INDEX_META) or {})
    visit = None
    if only_nodes is not None:
        visit = set(only_nodes)
        for name, (wake, waiting) in index.items():
            if waiting or (wake is not None and wake <= now):
                visit.add(name)
            elif wake is not None and name not in visit:  # a visited node's pods ask for themselves
                ctx.wake_at(wake)
    rested = set(rested_nodes or ()) - visit if visit is not None else set()
    reads = visit | rested if rested else visit  # (what a visit of the rested nodes too would read)
    if visit is None:
        nodes = {n["metadata"]["name"]: n for n in store.list("Node")}
    elif len(reads) > 50:
        # many nodes: read together, a few hundred to a statement and one decode
        nodes = {n["metadata"]["name"]: n for n in store.get_many(("Node", "", name) for name in sorted(reads))}
    else:
        nodes = {name: n for name in reads if (n := store.get("Node", "", name)) is not None}
    by_node: dict[str, list] = {}
    lazy = False  # by_node holds keys: each node's pods are decoded when it is reached
    if visit is None:
        for p in store.iter_kind("Pod"):
            nn = (p.get("spec") or {}).get("nodeName")
            if nn:
                by_node.setdefault(nn, []).append(p)
    elif len(reads) > 50:
        # many nodes (a bulk apply's pods spread over the cluster): their pods' keys in one
        # pass over the node index, and only those pods decoded, a node at a time and without
        # their managedFields (which a write recomputes from the stored pod: the API server's
        # field manager), so a pass over thousands of pods holds those it changed
        by_node = {nn: keys for nn, keys in store.pod_keys_on_nodes(visit).items() if keys}
        lazy = True
    else:
        for nn in visit:
            pods = [p for k in store.pod_keys_on_node(nn) if (p := store.get(*k)) is not None]
            if pods:
                by_node[nn] = pods
        for nn in rested:  # (read whole, as their visit would read them; it would pass over each)
            for k in store.pod_keys_on_node(nn):
                store.get(*k)
    changed = False
    order = sorted(by_node)
    if len(order) > 50:
        # one read, not one a node: the kubelets' memories and their nodes' images
        store.prefetch_meta([MEMORY_META.format(node=nn) for nn in order]
                            + [IMAGES_META.format(node=nn) for nn in order])
    decoded_to = 0  # (lazy) the nodes before this place in ``order`` have their pods decoded
    unread: dict[str, list[_Unread]] = {}  # (lazy) node -> the pods it passes over unread
    read_rvs = _per_transaction(ctx, _READ_RVS) if lazy else None
    for at, node_name in enumerate(order):
        if lazy:
            if at >= decoded_to:
                # this node's pods and the next nodes', up to LAZY_CHUNK pods, in few reads
                end, n = at, 0
                while end < len(order) and (end == at or n + len(by_node[order[end]]) <= LAZY_CHUNK):
                    n += len(by_node[order[end]])
                    end += 1
                unread.update(_read_piece(store, by_node, order[at:end], now, read_rvs))
                decoded_to = end
            if not by_node[node_name] and node_name not in unread:
                del by_node[node_name]
                continue
        node = nodes.get(node_name)
        if node is None or kubelet_stopped(node):
            # a pod bound to a missing node stays Pending; a stopped kubelet does nothing, and
            # wakes for nothing (``node start`` writes the Node, which brings it back here)
            if node is not None:
                index.pop(node_name, None)
            continue
        meta_key = MEMORY_META.format(node=node_name)
        memories = dict(store.meta(meta_key) or {})
        images = _node_images(ctx, node, now)
        mem_changed = False
        earliest = None
        waiting = False
        resting = True  # every pod of the node ends this visit at rest (``left_at_rest``)
        pods = sorted(by_node[node_name], key=_key)
        passed = unread.pop(node_name, ()) if lazy else ()
        if lazy:
            by_node[node_name] = ()  # (the pods it did not change go with this iteration)
        for p in passed:  # (as ``_passed_over`` pods below)
            if p.mem.get("wake") is not None:
                ctx.wake_at(p.mem["wake"])
                earliest = p.mem["wake"] if earliest is None else min(earliest, p.mem["wake"])
        for pod in pods:
            key = L.memory_key(pod)
            mem = memories.get(key)
            if _passed_over(mem, pod, now):
                if mem.get("wake") is not None:
                    ctx.wake_at(mem["wake"])
                    earliest = mem["wake"] if earliest is None else min(earliest, mem["wake"])
                continue
            kill = (mem or {}).get(STATIC_KILL)
            if kill and mem.get("removed") is not None:
                resting = False
                continue  # a killed static pod: static_pods deletes or replaces its mirror pod
            if L.first_sync(mem) and _waiting_for_volumes(ctx, pod, node, memories, key):
                resting = False
                mem_changed = mem_changed or memories.get(key) is not mem
                changed = changed or memories.get(key) is not mem
                waiting = True
                continue
            mem = dict(mem or {})
            # the kill of a static pod whose file was edited is not posted to its mirror pod
            target = copy.deepcopy(pod) if kill and not kill.get("removed") else pod
            result = L.sync_pod(target, node, pods, now, ctx.record, memory=mem, config=config, get=ctx.store.get,
                                network=getattr(ctx, "pod_network", None),
                                images=images)
            md = pod["metadata"]
            if result.remove or target is not pod or (result.next_wake is not None and result.next_wake <= now):
                resting = False
            if result.remove and kill:
                if target is pod and result.changed:
                    store.put(pod)
                memories[key] = mem
                mem_changed = changed = True
                continue
            if result.remove:
                if result.status_changed:  # the status manager writes the final status, then deletes
                    store.put(pod)
                store.delete("Pod", md.get("namespace", ""), md["name"])
                if not is_mirror_pod(pod):
                    memories.pop(key, None)
                else:
                    memories[key] = {**mem, "removed": None, "term": None, "rv": None, "wake": None}
                mem_changed = changed = True
                continue
            if result.changed and target is pod:
                store.put(pod)
                changed = True
            mem["rv"] = pod["metadata"].get("resourceVersion")
            mem["wake"] = result.next_wake
            memories[key] = mem
            mem_changed = True
            if result.next_wake is not None:
                ctx.wake_at(result.next_wake)
                earliest = result.next_wake if earliest is None else min(earliest, result.next_wake)
        if images is not None:
            wrote, post_at = _post_node_images(ctx, node, images, now)
            changed = changed or wrote
            if post_at is not None:
                ctx.wake_at(post_at)
                earliest = post_at if earliest is None else min(earliest, post_at)
        if resting and not waiting:
            rested = left_at_rest(ctx)
            for pod in pods:
                md = pod["metadata"]
                rested[("Pod", md.get("namespace") or "", md["name"])] = md.get("resourceVersion")
            for p in passed:
                rested[p.key] = p.rv
            rested[("Node", "", node_name)] = node["metadata"].get("resourceVersion")
        if mem_changed:
            store.set_meta(meta_key, memories)
            store.touch_meta(meta_key)
        if earliest is None and not waiting:
            index.pop(node_name, None)
        else:
            index[node_name] = [earliest, waiting]
    # no pods there (any more): the node's kubelet has only its images to list when due
    for name in (visit if visit is not None else list(index)):
        if name not in by_node:
            wrote, wake = _list_images_without_pods(ctx, nodes.get(name), index.get(name), now)
            changed = changed or wrote
            if wake is None:
                index.pop(name, None)
            else:
                index[name] = [wake, False]
    store.set_meta(INDEX_META, index or None)
    return changed


def _node_images(ctx, node: dict, now: float):
    """The node's images as its kubelet last left them; a node's first pod finds the images
    its kubelet started with (image_service.NodeImages.preloaded). With KUBESIM_IMAGES=present
    (in the command's environment), None: every node has every image and pulls nothing, as
    KWOK's fake nodes (the conformance oracle's) start containers at once."""
    if (getattr(ctx, "env", None) or {}).get("KUBESIM_IMAGES") == "present":
        return None
    store = ctx.store
    from kubesim.kubelet.image_service import NodeImages

    name = node["metadata"]["name"]
    data = store.meta(IMAGES_META.format(node=name))
    if data is None:
        return NodeImages.preloaded(node, 0.0)
    return NodeImages(name, dict(data))


_IMAGES_POSTED = "_kubelet_images_posted"  # on the command's context: (its store, node -> _post_node_images' check)


def _post_node_images(ctx, node: dict, images, now: float) -> tuple[bool, float | None]:
    """Keep the node's images when they changed, and post in its status (the Images setter)
    those its image cache held at its last refresh (image_service.listed_as_of) when that
    list differs from the one posted: (whether it wrote anything, when an image the cache
    missed will be listed or None). A node checked already in this transaction, for the same
    refresh and with its images unchanged since, has nothing to post (only its kubelet writes
    status.images): a bulk apply's settle visits its thousand nodes round after round."""
    from kubesim.kubelet.image_service import listed_as_of

    store = ctx.store
    md = node["metadata"]
    wrote = images.changed
    if wrote:
        key = IMAGES_META.format(node=md["name"])
        store.set_meta(key, images.data)
        store.touch_meta(key)  # changed in place
    as_of = listed_as_of(now)
    posted = _per_transaction(ctx, _IMAGES_POSTED)
    checked = posted.get(md["name"])
    if not wrote and checked is not None and checked[:2] == (md.get("uid"), as_of):
        return False, checked[2]
    listed = images.node_status_images(as_of)
    if (node.get("status") or {}).get("images") != listed:
        node.setdefault("status", {})["images"] = listed
        store.put(node)
        wrote = True
    wake = images.next_listing(as_of)
    posted[md["name"]] = (md.get("uid"), as_of, wake)
    return wrote, wake


def _list_images_without_pods(ctx, node: dict | None, entry, now: float) -> tuple[bool, float | None]:
    """A node with no pods whose index ``entry`` holds a wake (the next listing of an image
    it pulled): its images listed when due. (Whether that wrote anything, the next such wake
    or None.)"""
    wake = entry[0] if entry else None
    if wake is None or node is None or kubelet_stopped(node):
        return False, None
    if wake > now + 1e-9:
        ctx.wake_at(wake)
        return False, wake
    images = _node_images(ctx, node, now)
    if images is None:
        return False, None
    wrote, wake = _post_node_images(ctx, node, images, now)
    if wake is not None:
        ctx.wake_at(wake)
    return wrote, wake


def _read_manifests(store, read_dir: str, node_name: str, directory: str,
                    memo: dict | None = None) -> SP.ManifestDir:
    """``read_manifest_dir`` of a node's static pod directory, its files whose text is what
    the last command read taken from what it made of them (kept in the state). ``memo``: what
    this command made of them so far, for a state kept elsewhere before (the kept copy is
    then neither used nor rewritten: each settle round would parse the files again)."""
    key = MANIFESTS_META.format(node=node_name)
    saved = store.meta(key)
    mine = saved is None or (isinstance(saved, dict) and saved.get("v") == MANIFESTS_VERSION
                             and saved.get("node") == node_name and saved.get("dir") == directory)
    made = copy.deepcopy(saved.get("made") or {}) if mine and saved else {}
    if not mine and memo is not None:
        made = memo.setdefault((node_name, directory), {})
    manifests = SP.read_manifest_dir(read_dir, node_name, parse=_parse_cached, source_dir=directory,
                                     made=made)
    # What was made of the files depends on their path (the config hash): a state moved to
    # another directory keeps what it holds (rewriting it would make what a command stores
    # depend on where the state is) and parses its files each time.
    value = {"v": MANIFESTS_VERSION, "node": node_name, "dir": directory, "made": made} if made else None
    if mine and value != saved:
        store.set_meta(key, value)
    return manifests


def _parse_cached(text: str):
    key = hash(text)
    if key not in _PARSE_CACHE:
        _PARSE_CACHE[key] = SP.decode_manifest(text)
    return _PARSE_CACHE[key]


def static_pods(ctx, static_pod_path, create_mirror_pod, with_files: set[str] | None = None,
                read_path=None) -> bool:
    """Each running kubelet reads its static pod directory and keeps the mirror pods in step;
    ``static_pod_path(node_name) -> str``; ``create_mirror_pod(pod)`` is the API server's create
    of a mirror pod (the kubelet's request: the engine wires it). ``with_files``, when given,
    names the nodes whose directory holds anything (read once this command): the others are not
    listed again. ``read_path(node_name)``, when given, is where the files are read from (a new
    cluster's staged tree); they are still named after ``static_pod_path``."""
    store = ctx.store
    now = ctx.now()
    changed = False
    restarted = set(store.meta(RESTARTED_META) or ())
    by_node: dict[str, list[dict]] = {}
    keys = store.keys_annotated("Pod", MIRROR_POD_ANNOTATION)
    if keys is None:  # the pods whose stored text names it
        keys = store.keys_containing("Pod", MIRROR_POD_ANNOTATION)
    if keys is not None:
        pods = (p for k in keys if (p := store.get(*k)) is not None)
    else:
        pods = store.iter_kind("Pod")
    for p in pods:
        if MIRROR_POD_ANNOTATION in ((p.get("metadata") or {}).get("annotations") or {}):
            by_node.setdefault((p.get("spec") or {}).get("nodeName") or "", []).append(p)
    error_nodes = set(store.meta(ERROR_NODES_META) or [])
    memo = vars(ctx).setdefault("_static_pods_made", {})  # (this command's: _read_manifests)
    if with_files is not None:
        # only these nodes can have anything to do; the same order as listing them all
        nodes = (n for name in sorted(with_files | set(by_node) | error_nodes)
                 if (n := store.get("Node", "", name)) is not None)
    else:
        nodes = store.list("Node")
    for node in nodes:
        name = node["metadata"]["name"]
        if kubelet_stopped(node):
            continue
        directory = static_pod_path(name)
        read_dir = read_path(name) if read_path is not None else directory
        if with_files is not None and name not in with_files:
            has_files = False
        else:
            try:
                has_files = bool(os.listdir(read_dir))
            except OSError:
                has_files = False
        if not has_files and not by_node.get(name) and name not in error_nodes:
            continue  # nothing there and nothing mirrored: the common case on big clusters
        manifests = _read_manifests(store, read_dir, name, directory, memo) if has_files else SP.ManifestDir()
        err_key = MANIFEST_ERRORS_META.format(node=name)
        known = store.meta(err_key) or []
        if known != [list(e) for e in manifests.errors]:
            store.set_meta(err_key, [list(e) for e in manifests.errors] or None)
            log = getattr(ctx, "log", None)
            for where, msg, kv in manifests.log_lines():
                if log is not None and [kv["path"], kv["err"]] not in known:
                    # file.go's ErrorS, once per new error: the kubelet's log line is what a
                    # user on a real node reads (journalctl -u kubelet); nothing is stored
                    log(0, where, msg, kv, severity="E")
        if manifests.errors:
            error_nodes.add(name)
        else:
            error_nodes.discard(name)
        desired = SP.desired_mirror_pods(manifests, node, now)
        plan = SP.reconcile_mirror_pods(desired, by_node.get(name, []))
        for p in plan.delete:
            store.delete("Pod", p["metadata"].get("namespace", ""), p["metadata"]["name"])
            changed = True
        create = list(plan.create)
        if plan.replace:
            done, starting = _replace_static_pods(ctx, name, plan.replace, now, name in restarted)
            changed = done or changed
            create.extend(starting)
        for p in create:
            if store.get("Namespace", "", p["metadata"]["namespace"]) is None:
                continue  # the API server refuses a pod in a missing namespace; the kubelet retries
            create_mirror_pod(p)
            changed = True
    store.set_meta(ERROR_NODES_META, sorted(error_nodes) or None)
    if restarted:
        store.set_meta(RESTARTED_META, None)
    return changed


# kubelet memory of a static pod its kubelet kills because its file was edited or removed:
# {"at": when, "removed": the file is gone (else a new static pod waits for the name)}
STATIC_KILL = "sk"
# nodes whose kubelet has started again since their static pods were last looked at: its pod
# workers know no started static pod, so none waits for an old one (whose containers the new
# kubelet kills as pods it does not know, HandlePodCleanups)
RESTARTED_META = "kubelet.restartedNodes"


def _replace_static_pods(ctx, node_name: str, pairs: list[tuple[dict, dict | None]], now: float,
                         restarted: bool = False) -> tuple[bool, list[dict]]:
    """The static pods whose file was edited or removed (``pairs``: their stored mirror pod and
    the new static pod's mirror pod, or None): kill each old pod with its grace period, then,
    once it has terminated, delete its mirror pod and start the new one at its next try
    (staticpods.replacement_start). A pod that never started, or has finished, goes at once,
    and so does every one the kubelet finds on starting again (``restarted``). Returns
    (whether anything was written, the new mirror pods to create now)."""
    store = ctx.store
    meta_key = MEMORY_META.format(node=node_name)
    memories = dict(store.meta(meta_key) or {})
    changed = mem_changed = False
    starting = []
    for old, new in pairs:
        key = L.memory_key(old)
        mem = memories.get(key)
        kill = (mem or {}).get(STATIC_KILL)
        if kill is None and not restarted and mem is not None and mem.get("c") and not (
                mem.get("removed") is not None or mem.get("done") or mem.get("rejected")):
            term = {"at": now, "grace": SP.kill_grace_period(old)}
            memories[key] = {**mem, STATIC_KILL: {"at": now, "removed": new is None}, "term": term,
                             "rv": None, "wake": now}
            mem_changed = True
            index = dict(store.meta(INDEX_META) or {})
            index[node_name] = [now, False]  # its kubelet looks at the pod on this pass
            store.set_meta(INDEX_META, index)
            continue
        if kill is not None and mem.get("removed") is None and not restarted:
            continue  # still terminating (sync_pods kills it)
        if kill is not None and new is not None and not restarted:
            start = SP.replacement_start(kill["at"], mem["removed"])
            if start > now + 1e-9:
                ctx.wake_at(start)
                continue
        store.delete("Pod", old["metadata"].get("namespace", ""), old["metadata"]["name"])
        changed = True
        if memories.pop(key, None) is not None:
            mem_changed = True
        if new is not None:
            starting.append(new)
    if mem_changed:
        store.set_meta(meta_key, memories)
        store.touch_meta(meta_key)
    return changed or mem_changed, starting


def resume_node(ctx, node_name: str) -> None:
    """``kubesim node start``: after ``kubesim.kubelet.node.start_kubelet``, the new kubelet process
    takes over the pods that kept running (exits that happened meanwhile are seen, back-off
    and probe history are gone)."""
    store = ctx.store
    node = store.get("Node", "", node_name)
    meta_key = MEMORY_META.format(node=node_name)
    memories = dict(store.meta(meta_key) or {})
    for pod in store.iter_kind("Pod"):
        if (pod.get("spec") or {}).get("nodeName") != node_name:
            continue
        mem = memories.get(L.memory_key(pod))
        if mem and mem.get("c"):
            L.resume_pod(pod, node, ctx.now(), mem)
            mem["rv"] = None  # sync it on the next round
    store.set_meta(meta_key, memories)
    index = dict(store.meta(INDEX_META) or {})
    index[node_name] = [0.0, False]  # due now: its kubelet looks at its pods on the next pass
    store.set_meta(INDEX_META, index)
    restarted = set(store.meta(RESTARTED_META) or ())
    store.set_meta(RESTARTED_META, sorted(restarted | {node_name}))
