"""The file-backed state store (DESIGN §3.2): one SQLite database in WAL mode.

Each command is one transaction, opened with ``BEGIN IMMEDIATE`` so concurrent commands on one
state serialise on SQLite's write lock (``busy_timeout`` waits for it) and none loses an update.
Objects are read through a per-command cache and written back only if they changed, so a
read-only command with nothing due commits an empty transaction and rewrites nothing. A process
killed at any point leaves the last committed transaction: SQLite's journal guarantees it.

``resourceVersion`` is a store-wide counter, as etcd's revision is for the API server.
"""

from __future__ import annotations

import _thread
import copy
import json
import operator
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

from kubesim.errors import StateError
from kubesim.gcpause import collector_paused

# ``objects`` is a rowid table (its key a unique index), not WITHOUT ROWID: there a row longer
# than about a quarter of a page spills, and bodies are 1-6 KB (each Event, about 1 KB, took a
# 4 KB overflow page of its own; a state's file was half as large again, and its commits and
# reads slower). The statements are the same for both layouts (a state made before keeps its
# WITHOUT ROWID table); what reads rows in order says ORDER BY, which the key's index answers.
SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
  kind TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  rv INTEGER NOT NULL,
  node TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL,
  PRIMARY KEY (kind, namespace, name)
);
CREATE INDEX IF NOT EXISTS objects_node ON objects (kind, node, namespace, name);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS event_index (key TEXT PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS event_written (
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  written TEXT NOT NULL,
  PRIMARY KEY (namespace, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS event_written_at ON event_written (written);
CREATE TABLE IF NOT EXISTS object_index (
  kind TEXT NOT NULL,
  facet TEXT NOT NULL,
  value TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  PRIMARY KEY (kind, facet, value, namespace, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS object_index_key ON object_index (kind, namespace, name);
CREATE TABLE IF NOT EXISTS derived (
  kind TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  rv INTEGER NOT NULL,
  node TEXT NOT NULL DEFAULT '',
  data TEXT NOT NULL,
  PRIMARY KEY (kind, namespace, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS derived_node ON derived (kind, node);
CREATE TABLE IF NOT EXISTS derived_sums (
  kind TEXT NOT NULL,
  node TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (kind, node)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS projected (
  kind TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  rv INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (kind, namespace, name)
) WITHOUT ROWID;
"""

DB_NAME = "kubesim.db"
KIND_RV_META = "store.kindResourceVersions"  # kind -> resourceVersion of its last write
OBJECT_INDEX_META = "store.objectIndex"  # the version of object_index the state holds complete
OBJECT_INDEX_VERSION = 3  # 2: the ControllerRef facet; 3: Events no longer by involved uid
# kind -> the resourceVersion of its last write when its ``derived`` rows were last complete
DERIVED_SYNCED_META = "store.derivedSynced"
# kind -> true when its ``derived_sums`` rows are the fold of its ``derived`` rows ("*": every
# kind not named, both empty after a wipe)
DERIVED_SUMS_META = "store.derivedSums"
# kind -> the resourceVersion of its last write when its ``projected`` rows were last complete
PROJECTED_SYNCED_META = "store.projectedSynced"
LEGACY_EVENT_INDEX_META = "events.index"  # older states kept the event index as one meta value
EVENT_WRITTEN_META = "events.writtenIndexed"  # event_written holds every Event (older states: filled once)

Key = tuple[str, str, str]  # (kind, namespace, name); namespace "" for cluster-scoped kinds


def key_of(obj: dict) -> Key:
    md = obj.get("metadata") or {}
    return (obj["kind"], md.get("namespace") or "", md["name"])


def event_written(ev: dict) -> str:
    """When an Event was last written, to the second (``YYYY-MM-DDTHH:MM:SS``): the latest of
    the times its writers set (creation, lastTimestamp, eventTime, series.lastObservedTime).
    What the API server's event TTL counts from (kubesim.apiserver.events)."""
    series = ev.get("series") or {}
    latest = ""  # (a loop: a third of max() over a generator, at every Event a commit writes)
    for t in ((ev.get("metadata") or {}).get("creationTimestamp"), ev.get("lastTimestamp"),
              ev.get("eventTime"), series.get("lastObservedTime") if isinstance(series, dict) else None):
        if isinstance(t, str) and t[:19] > latest:
            latest = t[:19]
    return latest


# The facets of ``object_index``: what commands and controllers look objects up by, as the
# API server's watch cache and the informers' indexers do (pkg/controller: by owner; the
# label selectors of controllers and LISTs; describe's events by involved object).
FACET_LABEL = "l:"  # + the label's key; value: the label's value
FACET_ANNOTATION = "a"  # value: an annotation's key
FACET_OWNER = "o"  # value: an owner reference's uid
FACET_DELETING = "d"  # value "": the object has a deletionTimestamp
FACET_CONTROLLER = "c"  # value: the uid its ControllerRef names (metav1.GetControllerOf)
FACET_INVOLVED_NAME = "in"  # Events: value: involvedObject.name
# (Not by involvedObject.uid: a command's Events would land on as many pages as uids, ~3,000
# for a 1,000-pod apply, for a selector on the uid alone; kubectl's describe and events name
# the object too. Version 2 indexes held that facet, "iu".)


def index_entries(kind: str, obj: dict) -> set[tuple[str, str]]:
    """(facet, value) of each ``object_index`` row of an object."""
    md = obj.get("metadata") or {}
    out: set[tuple[str, str]] = set()
    labels = md.get("labels")
    if isinstance(labels, dict):
        out.update((FACET_LABEL + str(k), str(v)) for k, v in labels.items())
    out.update(_annotation_entries(md))
    refs = md.get("ownerReferences")
    if isinstance(refs, list):
        out.update((FACET_OWNER, str(r["uid"])) for r in refs if isinstance(r, dict) and r.get("uid"))
        for r in refs:
            if isinstance(r, dict) and r.get("controller") is True:  # (validated: a bool)
                out.add((FACET_CONTROLLER, str(r.get("uid") or "")))
                break
    out.update(_deleting_entries(md))
    if kind == "Event":
        io = obj.get("involvedObject")
        if isinstance(io, dict) and io.get("name") is not None:
            out.add((FACET_INVOLVED_NAME, str(io["name"])))
    return out


def _annotation_entries(md: dict) -> list[tuple[str, str]]:
    annotations = md.get("annotations")
    return [(FACET_ANNOTATION, str(k)) for k in annotations] if isinstance(annotations, dict) else []


def _deleting_entries(md: dict) -> list[tuple[str, str]]:
    return [(FACET_DELETING, "")] if md.get("deletionTimestamp") is not None else []


# the facets whose entries are made from the metadata alone, by one function each
_FACET_ENTRIES = {FACET_ANNOTATION: _annotation_entries, FACET_DELETING: _deleting_entries}


def _has_index_entry(kind: str, obj: dict, facet: str, value: str | None) -> bool:
    """Whether ``index_entries(kind, obj)`` holds ``(facet, value)`` (any value of ``facet``
    when None). The annotation and deletion facets are made alone, without the object's other
    entries: a settle round asks for the mirror pods among the thousand pods a bulk apply wrote
    (the kubelets' static pods pass), and again each round."""
    entries = _FACET_ENTRIES.get(facet)
    found = entries(obj.get("metadata") or {}) if entries is not None else index_entries(kind, obj)
    return any(f == facet and (value is None or v == value) for f, v in found)


# What a state whose index is at version 1 lacks: the ControllerRef facet.
_INDEX_CONTROLLER_BACKFILL = (
    "INSERT OR IGNORE INTO object_index SELECT o.kind, 'c', CAST(coalesce(json_extract(j.value, '$.uid'), '') "
    "AS TEXT), o.namespace, o.name FROM objects o, json_each(o.body, '$.metadata.ownerReferences') j "
    "WHERE json_type(o.body, '$.metadata.ownerReferences') = 'array' AND json_type(j.value) = 'object' "
    "AND json_type(j.value, '$.controller') = 'true'")

_INDEX_BACKFILL = (
    "DELETE FROM object_index",
    _INDEX_CONTROLLER_BACKFILL,
    ("INSERT OR IGNORE INTO object_index SELECT o.kind, 'l:' || j.key, CAST(j.value AS TEXT), o.namespace, "
    "o.name FROM objects o, json_each(o.body, '$.metadata.labels') j WHERE json_type(o.body, "
    "'$.metadata.labels') = 'object'"),
    ("INSERT OR IGNORE INTO object_index SELECT o.kind, 'a', j.key, o.namespace, o.name FROM objects o, "
    "json_each(o.body, '$.metadata.annotations') j WHERE json_type(o.body, '$.metadata.annotations') = 'object'"),
    ("INSERT OR IGNORE INTO object_index SELECT o.kind, 'o', CAST(json_extract(j.value, '$.uid') AS TEXT), "
    "o.namespace, o.name FROM objects o, json_each(o.body, '$.metadata.ownerReferences') j "
    "WHERE json_type(o.body, '$.metadata.ownerReferences') = 'array' AND json_type(j.value) = 'object' "
    "AND json_extract(j.value, '$.uid') IS NOT NULL AND json_extract(j.value, '$.uid') != ''"),
    ("INSERT OR IGNORE INTO object_index SELECT kind, 'd', '', namespace, name FROM objects "
    "WHERE json_type(body, '$.metadata.deletionTimestamp') IS NOT NULL "
    "AND json_type(body, '$.metadata.deletionTimestamp') != 'null'"),
    ("INSERT OR IGNORE INTO object_index SELECT kind, 'in', CAST(json_extract(body, '$.involvedObject.name') "
    "AS TEXT), namespace, name FROM objects WHERE kind='Event' AND json_type(body, '$.involvedObject') = "
    "'object' AND json_extract(body, '$.involvedObject.name') IS NOT NULL"),
)
_INDEX_RETIRE = "DELETE FROM object_index WHERE kind='Event' AND facet='iu'"  # (what version 3 no longer keeps)


def _make_dumps():
    """json.dumps(o, separators=(",", ":")), built once (json.dumps with separators builds an
    encoder per call: 2-3 us of each digest's or projection's few); without the check for
    cycles (what is stored is decoded JSON, or a digest made of it: a tree), which costs a
    sixth of encoding a pod. Where json has its C encoder, that is made once and called
    directly: ``JSONEncoder.encode`` makes one at each call, through two Python frames (0.6 us
    of each of the 13,000 bodies, rows and values a bulk apply commits)."""
    encoder = json.JSONEncoder(separators=(",", ":"), check_circular=False)
    make = json.encoder.c_make_encoder
    if make is None:
        return encoder.encode
    encode = make(None, encoder.default, json.encoder.encode_basestring_ascii, None,
                  encoder.key_separator, encoder.item_separator, False, False, True)

    def dumps(o, _join="".join) -> str:
        return _join(encode(o, 0))

    return dumps


_dumps = _make_dumps()

_row_key = operator.itemgetter(0, 1, 2)  # a row's (kind, namespace, name)


NODE_SEEKS = 2000  # pod_keys_on_nodes: up to this many nodes, seeks beat a pass over the index


def _in_batches(values: list, size: int = 500) -> Iterator[tuple[list, str]]:
    """``values`` ``size`` at a time (SQLite bounds a statement's parameters), each part with
    its ``?,?,…`` list for an ``IN (…)``."""
    for i in range(0, len(values), size):
        part = values[i:i + size]
        yield part, ",".join("?" * len(part))


_NODE_BOUND_KIND = "Pod"  # the one kind whose rows name a node (``objects.node``, ``derived.node``)


def _node_of(obj: dict) -> str:
    if obj.get("kind") == _NODE_BOUND_KIND:
        return (obj.get("spec") or {}).get("nodeName") or ""
    return ""



def _fold_into(sums: dict, fold, node: str, key: Key, digest, sign: int) -> None:
    """``sums[node] = fold(sums.get(node), key, digest, sign)``, dropping a node left empty."""
    acc = fold(sums.get(node), key, digest, sign)
    if acc is None:
        sums.pop(node, None)
    else:
        sums[node] = acc


def _decode_into(by: dict, rows, texts: dict | None = None) -> None:
    """Decode (namespace, name, body) rows into ``by``, keeping what is there already (and,
    with ``texts``, the text of each body decoded, by (namespace, name)).
    Decoding many objects makes millions of containers that live as long as the command; the
    cyclic collector would scan them again and again (about a second on 20,000 objects). They
    hold no cycles: collect nothing while decoding, then move everything alive into the
    collector's permanent generation (gc.freeze), out of later scans."""
    count = 0
    keys: list[tuple[str, str]] = []
    bodies: list[str] = []

    def flush() -> None:
        # the bodies as one JSON array, decoded in one call: its keys ("metadata", "name",
        # "lastTransitionTime", ...) are then one string each, not one per object (a fifth
        # less memory for a kind of pods, and less time)
        by.update(zip(keys, json.loads("[" + ",".join(bodies) + "]")))
        keys.clear()
        bodies.clear()

    with collector_paused() as paused:
        for ns, name, body in rows:
            if (ns, name) not in by:
                keys.append((ns, name))
                bodies.append(body)
                if texts is not None:
                    texts[(ns, name)] = body
                count += 1
                if len(bodies) >= 2000:
                    flush()
        if bodies:
            flush()
        paused.freeze = count > 1000


def _loads_frozen(text: str):
    """``json.loads`` of a cluster's worth of digests (a few MB: hundreds of thousands of
    containers that live as long as the command) with the cyclic collector off, then moved
    to its permanent generation, as ``_decode_into`` does for objects."""
    with collector_paused(freeze=len(text) > 100_000):
        return json.loads(text)


def _prefix_bounds(prefix: str) -> tuple[str, str]:
    """The keys that start with ``prefix`` (which ends with "/") lie strictly between these."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


AUTO_VACUUM_FULL = 1  # (PRAGMA auto_vacuum's value for FULL)


def uuid4(n: int) -> str:
    """``str(uuid.UUID(int=n, version=4))``: ``n``'s 128 bits with the version and RFC 4122
    variant set, in the 8-4-4-4-12 form (without importing uuid, which imports platform: a
    few milliseconds of every command that creates an object)."""
    n = (n & ~(0xC000 << 48) | 0x8000 << 48) & ~(0xF000 << 64) | 4 << 76
    h = f"{n:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def new_uid(rng=None) -> str:
    """A version-4 UUID from ``rng`` (a command's seeded random source), else from the system's."""
    return uuid4(rng.getrandbits(128) if rng is not None else _system_bits())


# the system's random bytes, read a few hundred uids at a time (one getrandom call each, not one
# a uid: a bulk apply draws thousands, one for each Event), and where the unused ones begin
_SYSTEM_RANDOM: list = [b"", 0]
_SYSTEM_RANDOM_LOCK = _thread.allocate_lock()


def _system_bits() -> int:
    """128 bits from ``os.urandom``, none handed out twice (a forked child starts afresh)."""
    with _SYSTEM_RANDOM_LOCK:
        buf, at = _SYSTEM_RANDOM
        if at + 16 > len(buf):
            buf, at = os.urandom(4096), 0
            _SYSTEM_RANDOM[0] = buf
        _SYSTEM_RANDOM[1] = at + 16
    return int.from_bytes(buf[at:at + 16], "big")


def _forget_system_random() -> None:
    _SYSTEM_RANDOM[:] = [b"", 0]


os.register_at_fork(after_in_child=_forget_system_random)


class Store:
    """One open state: a transaction plus a write-back cache of the objects it touched."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)
        self._conn: sqlite3.Connection | None = None
        # kind -> {(namespace, name): object or None (known absent / deleted)}
        self._cache: dict[str, dict[tuple[str, str], dict | None]] = {}
        self._listed: set[str] = set()  # kinds fully loaded into the cache
        # (kind, namespace) pairs whose objects are all in the cache (``_list_namespace``): the
        # cache keeps every later write of them, so they are listed again without reading
        self._listed_ns: set[tuple[str, str]] = set()
        self._sorted: dict[str, list[dict]] = {}  # kind -> its objects sorted by (namespace, name)
        self._gone: dict[Key, tuple[int, dict]] = {}  # deleted this command: (its rv, last body)
        self._dirty: dict[Key, dict | None] = {}
        self._dirty_kinds: set[str] = set()  # the kinds of the keys in _dirty
        self._meta: dict[str, object] = {}
        self._meta_dirty: set[str] = set()
        self._meta_absent: set[str] = set()  # keys ``prefetch_meta`` found no value for
        self._meta_gone: set[str] = set()  # (of the dirty ones: deleted at commit, replace_meta)
        self._prefixes_held: dict[str, bool] = {}  # ``meta_held_under``'s answers (as of the last commit)
        self._events: dict[str, str | None] = {}  # event correlation key -> Event name (read or written)
        # the uids ``new_uid`` drew since the transaction (or its last checkpoint) began: no row
        # the database holds names one (``drew_uid``)
        self._drawn_uids: set[str] = set()
        self._events_dirty: set[str] = set()
        self._events_migrated = False
        self._opened_rv: int | None = None  # the resourceVersion before this transaction's writes
        self.wiped = False  # wipe() ran in this transaction (resourceVersions start again)
        self._committed: dict[Key, dict | None] = {}
        # the stored text of each object ``get`` and ``get_many`` read whose committed body
        # nobody asked for yet: ``committed`` decodes it instead of reading it again
        self._texts: dict[Key, str] = {}
        # (namespace, "<object>.") -> (a name, the names of the Events the last commit holds that
        # start so and sort from it on) (``committed`` of a new Event: one lookup for all the
        # Events of an object)
        self._event_names: dict[tuple[str, str], tuple[str, set[str]]] = {}
        # ``objects`` with ``omit``: the texts it read, per omit, of objects this transaction had
        # not read (the database holds them unchanged until commit): read again, decoded again
        self._omitted: dict[tuple[str, ...], dict[Key, str]] = {}
        self._writes: list[Key] = []  # every put and delete of this transaction, in order
        self._staged: Path | None = None  # a new cluster's node tree, until commit
        self.read_only = False  # this transaction reads a snapshot (open(read_only=True))
        self._lock: int | None = None  # the writers' lock file, held from open to commit/rollback
        self.created_fresh = False
        # kind -> callables told of every write of that kind, as it is made: (key, the object
        # written, or None and the last body for a delete). What the API server's watch needs.
        self._listeners: dict[str, list] = {}
        # kind -> derive(obj): a compact, JSON-able digest of each object of that kind, kept
        # beside it in the ``derived`` table and rewritten at commit with every write of it
        # (``derive``, ``derived``). What the scheduler's cache reads instead of the bodies.
        self._derivers: dict[str, object] = {}
        # kind -> fold(acc, key, digest, sign): the per-node sums of the kind's digests kept in
        # ``derived_sums`` with every change of a ``derived`` row (``derive``, ``derived_sums``)
        self._folds: dict[str, object] = {}
        self._index_built = False  # object_index known complete in this transaction
        # (kind, namespace) -> the names keys_orphaned read from the tables, which hold the
        # committed objects alone until commit (this transaction's writes are laid over them)
        self._orphaned: dict[tuple[str, str], set[str]] = {}
        self._derived_synced: set[str] = set()  # kinds whose derived rows this transaction completed
        # called with (key, object) before each put: what keeps managedFields (the API server's)
        self.write_hook = None
        # kind -> project(obj): the part of each object of that kind its table reads, kept
        # beside it in the ``projected`` table (``project``, ``projected_pieces``)
        self._projectors: dict[str, object] = {}
        self._projected_table: bool | None = None  # whether the state has the projected table
        # callables run at the start of each commit (and checkpoint), before anything is
        # written: they may still set metadata (``before_commit``)
        self._before_commit: list = []
        self._compact_at_commit = False  # a wiped state (a new cluster): see ``_compact``

    # -- lifecycle -------------------------------------------------------------------------
    def open(self, read_only: bool = False, snapshot: bool = False) -> Store:
        """Begin this command's transaction. ``read_only``: a deferred one, reading from a
        snapshot without waiting behind a writer (WAL); ``self.read_only`` says whether that was
        possible (a new state, or a killed command's leftovers, need the write lock).
        ``snapshot``: an existing state opened read-only by SQLite itself, which can never write
        or wait (shell completion)."""
        if snapshot:
            return self._open_read_only()
        d = self.directory
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StateError(f"cannot create state directory {d}: {e.strerror or e}") from None
        if not d.is_dir():
            raise StateError(f"state path {d} is not a directory")
        from kubesim.store import files

        files.forget_dirs()
        files.refuse_links(d)
        db = d / DB_NAME
        self.created_fresh = not db.exists()
        if not os.access(d, os.W_OK) or (db.exists() and not os.access(db, os.W_OK)):
            raise StateError(f"state directory {d} is not writable")
        leftovers = files.leftovers(d)
        self.read_only = read_only and not self.created_fresh and not leftovers
        if not self.read_only:
            self._lock = files.writer_lock(d)  # writers queue here, in turn, not in SQLite's busy poll
        try:
            conn = sqlite3.connect(str(db), timeout=60.0, isolation_level=None,
                                   check_same_thread=False)
            if self.created_fresh:
                # (before the first table: a database decides it when it is made) each commit
                # gives the pages it freed back to the file system (``_compact``)
                conn.execute(f"PRAGMA auto_vacuum={AUTO_VACUUM_FULL}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("BEGIN" if self.read_only else "BEGIN IMMEDIATE")
            if self.read_only and not conn.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone():
                # a file without its tables (a first command that failed): it must be created
                conn.execute("ROLLBACK")
                self._lock = files.writer_lock(d)
                conn.execute("BEGIN IMMEDIATE")
                self.read_only = False
            if not self.read_only:
                # Always (cheap when present): a process killed while creating the state may
                # have left the file without its tables.
                for stmt in SCHEMA.split(";"):
                    if stmt.strip():
                        conn.execute(stmt)
            row = None
            if leftovers:
                row = conn.execute("SELECT value FROM meta WHERE key=?", (files.GENERATION_META,)).fetchone()
        except sqlite3.DatabaseError as e:
            self._close()
            raise StateError(f"cannot open state {db}: {e}") from None
        self._conn = conn
        try:  # under the write lock: what a killed command left of the node files
            if leftovers:
                files.recover(d, json.loads(row[0]) if row else None)
        except OSError as e:
            self._safe_rollback()
            self._close()
            raise StateError(f"cannot recover the node directories of state {d}: {e.strerror or e}") from None
        return self

    def _open_read_only(self) -> Store:
        db = self.directory / DB_NAME
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60.0, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("BEGIN")
        except sqlite3.DatabaseError as e:
            self._close()
            raise StateError(f"cannot open state {db}: {e}") from None
        self._conn = conn
        return self

    # -- the node directories beside the database (kubesim.store.files) -------------------
    @property
    def nodes_dir(self) -> Path:
        """Where this transaction reads and writes node directories: the staged tree of a new
        cluster until it commits, else ``<state>/nodes``."""
        return self._staged if self._staged is not None else self.directory / "nodes"

    def stage_nodes(self, generation: str) -> Path:
        """Start an empty node tree for a new cluster; it replaces ``nodes/`` at commit.
        ``generation`` must differ from every committed transaction's (the caller's command
        counter)."""
        from kubesim.store import files

        self._staged = files.stage(self.directory, generation)
        self.set_meta(files.GENERATION_META, generation)
        return self._staged

    def commit(self) -> bool:
        """Write the changed objects and metadata; True when anything was written."""
        conn = self._require()
        wrote = bool(self._dirty or self._meta_dirty or self._events_dirty)
        try:
            self._write(conn)
            conn.execute("COMMIT")
            if self._compact_at_commit:
                self._compact(conn)
        except sqlite3.DatabaseError as e:
            self._safe_rollback()
            self._discard_staged()
            raise StateError(f"cannot write state {self.directory}: {e}") from None
        finally:
            self._close()
        if self._staged is not None:
            from kubesim.store import files

            self._staged = None
            try:
                files.finish(self.directory)
            except OSError:
                pass  # the next command's open finishes it (the mark matches the commit)
        return wrote

    @staticmethod
    def _compact(conn: sqlite3.Connection) -> None:
        """After the commit of a new cluster in a state made before its commits gave freed
        pages back (auto_vacuum off: the file only grew, an hour's expired Events leaving
        half of it free): the file rewritten once, holding what the new cluster holds, and
        from now on as a new state's, in which SQLite moves the last pages into the freed ones
        and truncates the file at each commit. Not done (disk full) is no error: the commit
        stands."""
        try:
            if conn.execute("PRAGMA auto_vacuum").fetchone()[0] != AUTO_VACUUM_FULL:
                conn.execute(f"PRAGMA auto_vacuum={AUTO_VACUUM_FULL}")
                conn.execute("VACUUM")
        except sqlite3.DatabaseError:
            pass

    def checkpoint(self) -> None:
        """Write what this transaction holds into it, exactly as ``commit`` does (objects and
        every row kept with them: indexes, derived rows and sums, projections, the event
        index, metadata), without committing, then forget it all as a new transaction on the
        database would: reads come back from the tables, ``committed`` and ``committed_meta``
        answer with what was written so far, and this transaction's writes start again. Still
        all or nothing: ``rollback`` drops it all, ``commit`` makes it one commit. What lets a
        new cluster of thousands of nodes be built a slice at a time in memory a slice holds
        (kubesim.controlplane.session.init_cluster)."""
        conn = self._require()
        try:
            self._write(conn)
        except sqlite3.DatabaseError as e:
            raise StateError(f"cannot write state {self.directory}: {e}") from None
        self._cache.clear()
        self._listed = set()
        self._listed_ns = set()
        self._sorted.clear()
        self._gone.clear()
        self._dirty.clear()
        self._dirty_kinds.clear()
        self._meta.clear()
        self._meta_dirty.clear()
        self._meta_absent.clear()
        self._meta_gone.clear()
        self._prefixes_held.clear()  # (the rows just written count from now on)
        self._events.clear()
        self._events_dirty.clear()
        self._drawn_uids.clear()  # (the rows just written may name them)
        self._opened_rv = None
        self.wiped = False
        self.created_fresh = False
        self._committed.clear()
        self._texts.clear()
        self._event_names.clear()
        self._omitted.clear()  # (texts read before: the tables changed under them)
        self._writes.clear()
        self._index_built = False
        self._orphaned.clear()
        self._derived_synced.clear()
        self._projected_table = None

    def before_commit(self, fn) -> None:
        """Have ``fn(store)`` run at the start of each commit (and checkpoint) of this
        transaction, once its writes are done and before any is written: what keeps a value
        derived from many objects (the scheduler's node digests) in step in the transaction
        that changed them. It may set metadata, not write objects. Registered once per ``fn``."""
        if fn not in self._before_commit:
            self._before_commit.append(fn)

    def _write(self, conn: sqlite3.Connection) -> None:
        """Write this transaction's objects, their rows and the metadata (commit's work)."""
        # The rows made here (tuples of texts, thousands for a bulk write) hold no cycles: the
        # cyclic collector, which their allocation would run a few times over everything young
        # (0.01-0.02 s of a 1,000-pod commit), waits until they are written.
        with collector_paused():
            self._write_rows(conn)

    def _write_rows(self, conn: sqlite3.Connection) -> None:
        for fn in self._before_commit:
            fn(self)
        if self._dirty:
            puts = []
            dels = []
            for k, obj in self._dirty.items():
                if obj is None:
                    dels.append(k)
                else:
                    puts.append((k[0], k[1], k[2], int(obj["metadata"].get("resourceVersion", 0)),
                                 _node_of(obj), _dumps(obj)))
            if dels:
                conn.executemany("DELETE FROM objects WHERE kind=? AND namespace=? AND name=?", dels)
            if puts:
                # in primary-key order: the B-tree grows at its edge instead of splitting
                # pages all over (a new cluster's 100,000 rows go in twice as fast)
                puts.sort(key=_row_key)
                conn.executemany("INSERT OR REPLACE INTO objects VALUES (?,?,?,?,?,?)", puts)
            ev_dels = [(k[1], k[2]) for k in dels if k[0] == "Event"]
            if ev_dels:
                conn.executemany("DELETE FROM event_written WHERE namespace=? AND name=?", ev_dels)
            ev_puts = [(k[1], k[2], event_written(obj)) for k, obj in self._dirty.items()
                       if k[0] == "Event" and obj is not None]
            if ev_puts:
                ev_puts.sort()
                conn.executemany("INSERT OR REPLACE INTO event_written VALUES (?,?,?)", ev_puts)
        self._write_index(conn)
        self._write_derived(conn)
        self._write_projected(conn)
        if self._events_dirty:
            conn.executemany("INSERT OR REPLACE INTO event_index VALUES (?,?)",
                             [(k, self._events[k]) for k in sorted(self._events_dirty)])
        gone = self._meta_gone
        if gone:  # (first: a large value deleted is not in the way of the inserts)
            conn.executemany("DELETE FROM meta WHERE key=?", [(k,) for k in sorted(gone)])
        conn.executemany("INSERT OR REPLACE INTO meta VALUES (?,?)",
                         [(k, _dumps(self._meta[k])) for k in sorted(self._meta_dirty)
                          if k not in gone])

    def rollback(self) -> None:
        self._safe_rollback()
        self._forget_empty_database()
        self._close()
        self._discard_staged()

    def _forget_empty_database(self) -> None:
        """A first command that failed leaves no database behind: the file it created holds no
        tables once its transaction rolled back, and would make the state look as if it existed.
        Checked under the writers' lock, so a state another command created meanwhile stays."""
        if not self.created_fresh or self._lock is None or self._conn is None:
            return
        try:
            if self._conn.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone():
                return
            self._conn.close()
        except sqlite3.DatabaseError:
            return
        self._conn = None
        from kubesim.store import files

        for name in files.DB_FILES:
            try:
                os.unlink(self.directory / name)
            except OSError:
                pass

    def _discard_staged(self) -> None:
        if self._staged is not None:
            from kubesim.store import files

            self._staged = None
            files.discard(self.directory)

    def _safe_rollback(self) -> None:
        if self._conn is not None:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._lock is not None:
            os.close(self._lock)  # (closing the descriptor releases the lock)
            self._lock = None

    def _require(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StateError("state is not open")
        return self._conn

    @property
    def dirty(self) -> bool:
        return bool(self._dirty or self._meta_dirty or self._events_dirty)

    # -- metadata --------------------------------------------------------------------------
    def meta(self, key: str, default=None):
        if key not in self._meta:
            # (after a wipe the table is empty until commit: nothing to look up)
            row = None if self.wiped or key in self._meta_absent else self._require().execute(
                "SELECT value FROM meta WHERE key=?", (key,)).fetchone()
            self._meta[key] = json.loads(row[0]) if row else default
        return self._meta[key]

    def prefetch_meta(self, keys: Iterable[str]) -> None:
        """Read the metadata values of ``keys`` not read yet a few hundred to a statement, so
        that ``meta`` of each (a pass over many nodes reading one value per node) asks nothing
        more of the database."""
        if self.wiped:
            return
        keys = [k for k in dict.fromkeys(keys) if k not in self._meta]
        conn = self._require()
        read: list[str] = []
        texts: list[str] = []
        for part, marks in _in_batches(keys):
            found = dict(conn.execute(
                f"SELECT key, value FROM meta WHERE key IN ({marks})", part))
            for k in part:
                text = found.get(k)
                if text is None:
                    self._meta_absent.add(k)
                else:
                    read.append(k)
                    texts.append(text)
        # decoded in one call, as objects are (the kubelet's memories of a thousand nodes: MBs
        # of containers a collection would walk again and again)
        self._meta.update(zip(read, _loads_frozen("[" + ",".join(texts) + "]"), strict=True))

    def committed_meta(self, key: str, default=None):
        """A metadata value as the last committed transaction left it (this one's changes
        reach the database only at commit), decoded afresh."""
        if self.wiped:
            return default  # (the wipe is this transaction's)
        row = self._require().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def set_meta(self, key: str, value) -> None:
        current = self.meta(key)
        if current is value or current == value:
            return  # (changes made in place to a stored value go through touch_meta)
        self._meta_changed(key, value)

    def _meta_changed(self, key: str, value) -> None:
        """``set_meta`` of a value known to differ from the current one."""
        self._meta[key] = value
        self._meta_dirty.add(key)
        self._meta_gone.discard(key)

    def meta_prefixed(self, prefix: str) -> list:
        """The metadata values whose key starts with ``prefix``, in key order, this
        transaction's included (a deleted or null one left out): read in one statement and
        decoded in one call (fresh objects, the caller's to change). For a value kept per item (the scheduler's node digests, one key a
        node), which one large value would rewrite whole for a change of one item. ``prefix``
        ends with "/". (The table keeps its rows in key order, values inline: keep a prefix
        with many keys away from a key of a large value, whose neighbours SQLite inserts a
        thousand times slower.)"""
        bounds = _prefix_bounds(prefix)
        mine = self.changed_meta_keys(prefix)
        if self.wiped:
            return [json.loads(json.dumps(v)) for k in mine if (v := self._meta[k]) is not None]
        conn = self._require()
        if mine:
            rows = dict(conn.execute("SELECT key, value FROM meta WHERE key > ? AND key < ?", bounds))
            rows.update((k, None) for k in mine)
            return [v for k in sorted(rows) if (v := json.loads(json.dumps(self._meta[k]) if k in self._meta_dirty
                                                                else rows[k])) is not None]
        text = conn.execute("SELECT '[' || coalesce(group_concat(value, ','), '') || ']' FROM "
                            "(SELECT value FROM meta WHERE key > ? AND key < ? ORDER BY key)",
                            bounds).fetchone()[0]
        out = _loads_frozen(text)
        return [v for v in out if v is not None] if None in out else out

    def meta_keys_below(self, prefix: str, field: str, bound: float) -> list[str]:
        """Keys of the stored metadata values under ``prefix`` whose number ``field`` is below
        ``bound`` (compared in SQLite, nothing decoded), except those this transaction set."""
        if self.wiped:
            return []
        bounds = _prefix_bounds(prefix)
        rows = self._require().execute(
            "SELECT key FROM meta WHERE key > ? AND key < ? AND json_extract(value, ?) < ?",
            (*bounds, "$." + field, bound))
        return [k for (k,) in rows if k not in self._meta_dirty]

    def meta_held_under(self, prefix: str) -> bool:
        """Whether the last commit left any metadata key under ``prefix`` (one seek, asked once
        a transaction: what tells a state that still holds an older form's rows, which nothing
        writes any more, from one that does not)."""
        if self.wiped:
            return False
        held = self._prefixes_held.get(prefix)
        if held is None:
            held = self._prefixes_held[prefix] = self._require().execute(
                "SELECT 1 FROM meta WHERE key > ? AND key < ? LIMIT 1", _prefix_bounds(prefix)).fetchone() is not None
        return held

    def meta_items_under(self, prefix: str) -> list[tuple[str, object]]:
        """(key, value) of the stored metadata under ``prefix``, in key order, except the keys
        this transaction set or deleted (the caller's own changes are in ``meta``)."""
        if self.wiped:
            return []
        rows = self._require().execute("SELECT key, value FROM meta WHERE key > ? AND key < ? ORDER BY key",
                                       _prefix_bounds(prefix))
        return [(k, json.loads(v)) for k, v in rows if k not in self._meta_dirty]

    def changed_meta_keys(self, prefix: str) -> list[str]:
        """The metadata keys under ``prefix`` this transaction set or deleted."""
        return sorted(k for k in self._meta_dirty if k.startswith(prefix))

    def meta_prefixed_among(self, prefix: str, path: str, values: Iterable[str],
                            skip: set[str] = frozenset()) -> set[str]:
        """Those of ``values`` that ``json_extract(value, path)`` of a stored metadata value
        under ``prefix`` (its key not in ``skip``) equals, as the last commit left them: read in
        key order until each is found (values most keys share are found at once, without
        extracting from every value), at worst one pass."""
        left = set(values)
        found: set[str] = set()
        if self.wiped or not left:
            return found
        bounds = _prefix_bounds(prefix)
        sql = "SELECT key, json_extract(value, ?) AS v FROM meta WHERE key > ? AND key < ?"
        args: tuple = (path, *bounds)
        if len(left) <= 500:  # (SQLite bounds a statement's parameters; past them, every row)
            sql += f" AND v IN ({','.join('?' * len(left))})"
            args += tuple(left)
        for k, v in self._require().execute(sql, args):
            if v in left and k not in skip:
                left.discard(v)
                found.add(v)
                if not left:
                    break
        return found

    def replace_meta(self, values: dict[str, object]) -> None:
        """Set metadata values the caller knows to differ from what is stored (no read of each
        first); a None value deletes its key at commit."""
        for k, v in values.items():
            self._meta[k] = v
            self._meta_dirty.add(k)
            if v is None:
                self._meta_gone.add(k)
            else:
                self._meta_gone.discard(k)

    def touch_meta(self, key: str) -> None:
        """Mark a metadata value changed in place (e.g. a large dict) for writing at commit."""
        self.meta(key)
        self._meta_dirty.add(key)

    # -- the event correlator's index ---------------------------------------------------------
    def _migrate_event_index(self) -> None:
        """Move an older state's index (one large meta value) into its table, once."""
        if self._events_migrated:
            return
        self._events_migrated = True
        conn = self._require()
        row = conn.execute("SELECT value FROM meta WHERE key=?", (LEGACY_EVENT_INDEX_META,)).fetchone()
        if row is None:
            return
        conn.executemany("INSERT OR REPLACE INTO event_index VALUES (?,?)",
                         list((json.loads(row[0]) or {}).items()))
        conn.execute("DELETE FROM meta WHERE key=?", (LEGACY_EVENT_INDEX_META,))
        self._meta.pop(LEGACY_EVENT_INDEX_META, None)
        self._meta_dirty.discard(LEGACY_EVENT_INDEX_META)

    def event_name(self, key: str) -> str | None:
        """The Event recorded under the correlation ``key`` (None: none yet)."""
        if key not in self._events:
            self._migrate_event_index()
            row = None if self.wiped else self._require().execute(
                "SELECT name FROM event_index WHERE key=?", (key,)).fetchone()
            self._events[key] = row[0] if row else None
        return self._events[key]

    def known_absent(self, meta_keys: Iterable[str] = (), event_keys: Iterable[str] = (),
                     objects: Iterable[Key] = ()) -> None:
        """Note metadata keys, event correlation keys and object keys the caller knows the
        database holds nothing for (keys that name a uid this transaction drew: ``drew_uid``;
        an Event name the event sequence just made), so that ``meta``, ``event_name`` and
        ``committed`` of them read nothing; what this transaction set stays."""
        for k in meta_keys:
            if k not in self._meta:
                self._meta_absent.add(k)
        if not self.wiped:
            for k in objects:
                self._committed.setdefault(k, None)
        event_keys = list(event_keys)
        if event_keys:
            self._migrate_event_index()  # (an older state's index is moved first, as a lookup would)
        for k in event_keys:
            self._events.setdefault(k, None)

    def rekey_events(self, fn) -> None:
        """Give every correlation key of the index the key ``fn(key)`` (the recorders changed
        their keys' layout), in this transaction."""
        self._migrate_event_index()
        conn = self._require()
        rows = () if self.wiped else conn.execute("SELECT key, name FROM event_index")
        moved = [(k, new, name) for k, name in rows if (new := fn(k)) != k]
        if moved:
            conn.executemany("DELETE FROM event_index WHERE key=?", [(k,) for k, _, _ in moved])
            conn.executemany("INSERT OR REPLACE INTO event_index VALUES (?,?)",
                             sorted((new, name) for _, new, name in moved))
        for k in [k for k in self._events if fn(k) != k]:  # (what this transaction read or set)
            name = self._events.pop(k)
            self._events[fn(k)] = name
            if k in self._events_dirty:
                self._events_dirty.discard(k)
                self._events_dirty.add(fn(k))

    def set_event_name(self, key: str, name: str) -> None:
        self._events[key] = name
        self._events_dirty.add(key)

    def events_written_before(self, cutoff: str) -> list[Key]:
        """Keys of the Events last written before ``cutoff`` (``YYYY-MM-DDTHH:MM:SS``), from the
        index; this transaction's own writes are not among them (callers look at the objects)."""
        conn = self._require()
        if not self.meta(EVENT_WRITTEN_META):
            self._index_event_writes()
        return [("Event", ns, name) for ns, name in conn.execute(
            "SELECT namespace, name FROM event_written WHERE written < ?", (cutoff,))]

    def _index_event_writes(self) -> None:
        """Fill ``event_written`` from the stored Events, once, for a state written before it
        existed (in SQLite: the Events are not decoded here)."""
        if self.read_only:
            return
        conn = self._require()
        t = "coalesce(substr(json_extract(body, '$.{}'), 1, 19), '')"
        conn.execute(
            "INSERT OR IGNORE INTO event_written SELECT namespace, name, max("
            + ", ".join(t.format(f) for f in ("metadata.creationTimestamp", "lastTimestamp", "eventTime",
                                              "series.lastObservedTime"))
            + ") FROM objects WHERE kind='Event'")
        self.set_meta(EVENT_WRITTEN_META, True)

    def event_keys(self) -> list[str]:
        """Every correlation key in the index, this transaction's own included."""
        self._migrate_event_index()
        keys = [r[0] for r in self._require().execute("SELECT key FROM event_index")]
        seen = set(keys)
        keys.extend(k for k in self._events_dirty if k not in seen)
        return keys

    def opened_resource_version(self) -> int:
        """The store's resourceVersion as this transaction found it (before its own writes)."""
        if self._opened_rv is None:
            self._opened_rv = int(self.meta("resourceVersion", 0))
        return self._opened_rv

    def resource_version(self) -> int:
        """The store's resourceVersion now (this transaction's writes included)."""
        return int(self.meta("resourceVersion", 0))

    # -- objects ---------------------------------------------------------------------------
    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        """The stored object (the cache's own dict: call ``put`` after changing it)."""
        nk = (namespace or "", name)
        by = self._cache.get(kind)
        if by is None:
            by = self._cache[kind] = {}
        elif nk in by:  # (most calls, tens of thousands a command: nothing more made for them)
            return by[nk]
        if kind in self._listed or self.wiped:  # (a wipe emptied the table until commit)
            return None
        k = (kind, nk[0], name)
        row = self._require().execute(
            "SELECT body FROM objects WHERE kind=? AND namespace=? AND name=?", k).fetchone()
        obj = json.loads(row[0]) if row else None
        by[nk] = obj
        if obj is None:  # (the table holds what was committed: nothing, ``committed`` says too)
            self._committed.setdefault(k, None)
        elif k not in self._committed:
            self._texts[k] = row[0]
        return obj

    def already_read(self, keys: Iterable[Key]) -> dict[Key, dict | None]:
        """Of ``keys``, those ``get`` answers without reading the database, with its answer:
        the object this transaction has read or written (None: it has none)."""
        out: dict[Key, dict | None] = {}
        for k in keys:
            kind, ns, name = k
            by = self._cache.get(kind)
            nk = (ns or "", name)
            if by is not None and nk in by:
                out[k] = by[nk]
            elif kind in self._listed or self.wiped:
                out[k] = None
        return out

    def resource_versions(self, keys: Iterable[Key]) -> dict[Key, str | None]:
        """The resourceVersion of each of ``keys`` as ``get`` would answer (None: no such
        object), without decoding a body: this transaction's reads and writes from its cache,
        the others from the table's ``rv`` column, a few hundred names to a statement."""
        out: dict[Key, str | None] = {}
        unread: dict[tuple[str, str], list[str]] = {}
        for k, obj in self.already_read(keys).items():
            out[k] = obj["metadata"].get("resourceVersion") if obj is not None else None
        for k in keys:
            if k not in out:
                out[k] = None
                unread.setdefault((k[0], k[1] or ""), []).append(k[2])
        conn = self._require()
        for (kind, ns), names in unread.items():
            # The projected rows, when the last commit left them all current, are the objects'
            # keys and resourceVersions in rows of a few hundred bytes: a seek among them costs
            # a third of one among the bodies, whose overflow pages each comparison reads
            table = "projected" if self._projected_current(kind) else "objects"
            for part, marks in _in_batches(list(dict.fromkeys(names))):
                for name, rv in conn.execute(
                        f"SELECT name, rv FROM {table} WHERE kind=? AND namespace=? AND name IN ({marks})",
                        (kind, ns, *part)):
                    out[(kind, ns, name)] = str(rv)
        return out

    def get_many(self, keys: Iterable[Key]) -> list[dict]:
        """``get`` of many keys: the objects that exist, in the order of ``keys`` (the cache's
        own dicts, as ``get`` gives them). Those not read yet are read with one statement per
        namespace and a few hundred names, and decoded together (``_decode_into``), not one
        query and one ``json.loads`` each."""
        keys = list(keys)
        missing: dict[tuple[str, str], list[str]] = {}
        for kind, ns, name in keys:
            if kind in self._listed or self.wiped:
                continue
            by = self._cache.get(kind)
            if by is None or (ns, name) not in by:
                missing.setdefault((kind, ns), []).append(name)
        conn = self._require()
        for (kind, ns), names in missing.items():
            by = self._cache.setdefault(kind, {})
            names = list(dict.fromkeys(names))
            texts: dict[tuple[str, str], str] = {}
            for part, marks in _in_batches(names):
                _decode_into(by, conn.execute(
                    f"SELECT namespace, name, body FROM objects WHERE kind=? AND namespace=? "
                    f"AND name IN ({marks}) ORDER BY name", (kind, ns, *part)), texts)
            for (ns_, name), text in texts.items():
                if (kind, ns_, name) not in self._committed:
                    self._texts[(kind, ns_, name)] = text
            for name in names:
                if (ns, name) not in by:  # known absent, as get records it
                    by[(ns, name)] = None
                    self._committed.setdefault((kind, ns, name), None)
        return [o for k in keys if (o := self.get(*k)) is not None]

    def list(self, kind: str, namespace: str | None = None, omit: tuple[str, ...] = ()) -> list[dict]:
        """All objects of a kind (in one namespace when given), sorted by (namespace, name).

        ``omit``: dotted paths (``metadata.managedFields``) the caller will not read. Objects
        this transaction has not read are then decoded without them (SQLite cuts them out, so
        they cost neither decoding nor memory) into copies the cache does not keep: read-only,
        never to be written back. Objects it has read or written come as they are."""
        if omit and kind not in self._listed:
            return self._list_omitting(kind, namespace, omit)
        if namespace is not None and kind not in self._listed:
            return self._list_namespace(kind, namespace)
        self._load_kind(kind)
        ordered = self._sorted.get(kind)
        if ordered is None:
            ordered = [o for o in self._cache.get(kind, {}).values() if o is not None]
            ordered.sort(key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
            self._sorted[kind] = ordered
        if namespace is None:
            return list(ordered)  # a copy: callers may sort or change it
        return [o for o in ordered if (o["metadata"].get("namespace") or "") == namespace]

    def _list_namespace(self, kind: str, namespace: str) -> list[dict]:
        """``list`` of one namespace, decoding only its objects (the primary key's prefix);
        what this transaction read or wrote before wins, as for ``get``."""
        by = self._cache.setdefault(kind, {})
        if (kind, namespace) not in self._listed_ns:
            if not self.wiped:  # (a wipe emptied the table until commit)
                _decode_into(by, self._require().execute(
                    "SELECT namespace, name, body FROM objects WHERE kind=? AND namespace=? ORDER BY name",
                    (kind, namespace)))
            self._listed_ns.add((kind, namespace))
        out = [o for (ns, _), o in by.items() if ns == namespace and o is not None]
        out.sort(key=lambda o: o["metadata"]["name"])
        return out

    def list_pieces(self, kind: str, namespace: str | None = None, omit: tuple[str, ...] = (),
                    size: int = 500) -> Iterator[list[dict]]:
        """``list`` in pieces of at most ``size`` objects, in the same order, each decoded only
        when it is reached, so a reader that drops each piece before the next holds one piece
        at a time (with ``omit``, as ``list`` gives them). Read them before this transaction
        writes again. A kind this transaction has read from is listed at once, then cut."""
        if kind in self._listed or self._cache.get(kind) or not omit:
            objs = self.list(kind, namespace, omit)
            for i in range(0, len(objs), size):
                yield objs[i:i + size]
            return
        sql = ("SELECT json_remove(body" + ", ?" * len(omit) + ") FROM objects WHERE kind=?"
               + (" AND namespace=?" if namespace is not None else "") + " ORDER BY namespace, name")
        args = ["$." + p for p in omit] + [kind] + ([namespace] if namespace is not None else [])
        cursor = self._require().execute(sql, args)
        try:
            while rows := cursor.fetchmany(size):
                with collector_paused():  # (containers without cycles: see _decode_into)
                    # one text, decoded in one call: the keys repeated from object to object are
                    # then one string each
                    piece = json.loads("[" + ",".join(r[0] for r in rows) + "]")
                del rows
                yield piece
        finally:
            cursor.close()

    def _list_omitting(self, kind: str, namespace: str | None, omit: tuple[str, ...]) -> list[dict]:
        """``list`` with ``omit`` on a kind not loaded: the stored bodies without those paths,
        this transaction's own reads and writes winning, as in ``get``."""
        sql = ("SELECT namespace, name, json_remove(body" + ", ?" * len(omit) + ") FROM objects WHERE kind=?"
               + (" AND namespace=?" if namespace is not None else "") + " ORDER BY namespace, name")
        args = ["$." + p for p in omit] + [kind] + ([namespace] if namespace is not None else [])
        cached = self._cache.get(kind) or {}
        found: dict[tuple[str, str], dict | None] = {}
        _decode_into(found, ((ns, name, body) for ns, name, body in self._require().execute(sql, args)
                             if (ns, name) not in cached))
        if not cached:
            return list(found.values())
        found.update((k, o) for k, o in cached.items() if namespace is None or k[0] == namespace)
        return [found[k] for k in sorted(found) if found[k] is not None]

    def objects(self, keys: list[Key], omit: tuple[str, ...] = (), aligned: bool = False) -> list:
        """The objects of ``keys`` that exist, in that order (``aligned``: one item per key,
        None where none exists); with ``omit``, as ``list`` gives them (those this transaction
        has not read decoded without those paths, uncached). Those not read yet are read a few
        hundred names to a statement and decoded together."""
        if not omit:
            got = self.get_many(keys)
            return [self.get(*k) for k in keys] if aligned else got
        conn = self._require()
        paths = ["$." + p for p in omit]
        unread: dict[tuple[str, str], list[str]] = {}
        for k in keys:
            by = self._cache.get(k[0]) or {}
            if (k[1], k[2]) not in by and k[0] not in self._listed:
                unread.setdefault((k[0], k[1]), []).append(k[2])
        texts: list[str] = []
        at: dict[Key, int] = {}  # an unread object's place in ``texts``
        seen = self._omitted.setdefault(tuple(omit), {})
        for (kind, ns), names in unread.items():
            names = list(dict.fromkeys(names))
            rest = []
            for name in names:
                text = seen.get((kind, ns, name))
                if text is None:
                    rest.append(name)
                else:
                    at[(kind, ns, name)] = len(texts)
                    texts.append(text)
            for part, marks in _in_batches(rest):
                for name, text in conn.execute(
                        "SELECT name, json_remove(body" + ", ?" * len(paths) + ") FROM objects "
                        f"WHERE kind=? AND namespace=? AND name IN ({marks}) ORDER BY name",
                        (*paths, kind, ns, *part)):
                    at[(kind, ns, name)] = len(texts)
                    texts.append(text)
                    seen[(kind, ns, name)] = text
        # (one call, as in list_pieces; frozen: the kubelet reads a few hundred pods at a time,
        # which each later collection walked again, 13 of them in a 1,000-pod apply's pass)
        decoded = _loads_frozen("[" + ",".join(texts) + "]")
        out = []
        for k in keys:
            i = at.get(k)
            o = decoded[i] if i is not None else (self._cache.get(k[0]) or {}).get((k[1], k[2]))
            if o is not None or aligned:
                out.append(o)
        return out

    def prefetch_committed(self, keys: Iterable[Key], absent_only: bool = False) -> None:
        """Read the committed bodies of ``keys`` not read yet (``committed``) a few hundred to a
        statement: for a writer about to write many objects that the field manager compares
        with what they were (most of them new: no body to decode). ``absent_only``: only
        note which of them the last commit did not have (their bodies are read, each, if
        asked for): for a reader that may stop at the first it looks at."""
        if self.wiped:
            return
        missing: dict[tuple[str, str], list[str]] = {}
        for kind, ns, name in keys:
            if (kind, ns or "", name) not in self._committed:
                missing.setdefault((kind, ns or ""), []).append(name)
        conn = self._require()
        for (kind, ns), names in missing.items():
            names = list(dict.fromkeys(names))
            for part, marks in _in_batches(names):
                found = dict(conn.execute(
                    f"SELECT name, {'NULL' if absent_only else 'body'} FROM objects WHERE kind=? "
                    f"AND namespace=? AND name IN ({marks})", (kind, ns, *part)))
                for name in part:
                    if name not in found:
                        self._committed[(kind, ns, name)] = None
                    elif not absent_only:
                        self._committed[(kind, ns, name)] = json.loads(found[name])

    def committed(self, kind: str, namespace: str, name: str) -> dict | None:
        """The object as the last committed transaction left it (this one's writes reach the
        database only at commit), decoded afresh: what it was before this command changed it."""
        k = (kind, namespace or "", name)
        if self.wiped:
            return None  # (the wipe is this transaction's: nothing was committed before it)
        if k not in self._committed:
            text = self._texts.pop(k, None)  # (read in this transaction: the same text)
            if text is None and kind == "Event" and self._no_committed_event(k):
                self._committed[k] = None
                return None
            if text is None:
                row = self._require().execute(
                    "SELECT body FROM objects WHERE kind=? AND namespace=? AND name=?", k).fetchone()
                text = row[0] if row else None
            self._committed[k] = json.loads(text) if text is not None else None
        return self._committed[k]

    def _no_committed_event(self, k: Key) -> bool:
        """Whether the last commit holds no Event of key ``k``, answered from the names of the
        Events that share its prefix (makeEvent names an Event ``<object>.<number>``: the
        Events one object gets, written one after another, cost one read, not one each)."""
        ns, name = k[1], k[2]
        dot = name.rfind(".")
        if dot <= 0:
            return False
        prefix = name[:dot + 1]
        names = self._event_names.get((ns, prefix))
        if names is None or name < names[0]:
            # (names from this one up to "<object>/": those starting with the prefix that sort
            # from it on. makeEvent's number grows with time: an object's new Event sorts after
            # the ones the last commit holds, which are not read, and before those it gets next)
            # event_written, when it holds every Event (written with them since), has their
            # keys in rows of a few dozen bytes: a fifth of the cost of a seek among the bodies
            table = "event_written WHERE" if self.meta(EVENT_WRITTEN_META) else "objects WHERE kind='Event' AND"
            names = self._event_names[(ns, prefix)] = (name, {r[0] for r in self._require().execute(
                f"SELECT name FROM {table} namespace=? AND name >= ? AND name < ?",
                (ns, name, prefix[:-1] + "/"))})
        return name not in names[1]

    def deleted(self, kind: str, namespace: str, name: str) -> tuple[int, dict] | None:
        """For an object this transaction deleted: the resourceVersion of the deletion and the
        object as it was last."""
        k = (kind, namespace or "", name)
        gone = self._gone.get(k)
        if gone is not None and gone[1] is None:  # deleted unread: still in the database until commit
            gone = self._gone[k] = (gone[0], self.committed(*k))
        return gone

    def iter_kind(self, kind: str) -> Iterator[dict]:
        self._load_kind(kind)
        for o in self._cache.get(kind, {}).values():
            if o is not None:
                yield o

    def count(self, kind: str) -> int:
        """How many objects of a kind exist, this transaction's own writes included."""
        if kind not in self._listed and kind not in self._dirty_kinds:
            return self._require().execute("SELECT COUNT(*) FROM objects WHERE kind=?", (kind,)).fetchone()[0]
        return sum(1 for _ in self.iter_kind(kind))

    def pod_keys_on_node(self, node: str) -> list[Key]:
        """Pods bound to ``node`` ('' = unbound), from the index, without loading bodies."""
        rows = self._require().execute(
            "SELECT kind, namespace, name FROM objects WHERE kind='Pod' AND node=? ORDER BY namespace, name",
            (node,)).fetchall()
        keys = [tuple(r) for r in rows]
        # overlay this transaction's own changes
        changed = False
        present = set(keys)
        for k, o in self._dirty.items():
            if k[0] != "Pod":
                continue
            on = o is not None and _node_of(o) == node
            if on and k not in present:
                present.add(k)
                changed = True
            elif not on and k in present:
                present.discard(k)
                changed = True
        return sorted(present) if changed else keys

    def pod_keys_on_nodes(self, nodes: set[str]) -> dict[str, list[Key]]:
        """``pod_keys_on_node`` of many nodes at once (node -> sorted keys; nodes without pods
        left out): a seek a node in the covering node index (a few hundred to a statement), or
        for more than ``NODE_SEEKS`` nodes one pass over it; no body read."""
        conn = self._require()
        if len(nodes) <= NODE_SEEKS:  # a seek in the node index for each node
            where: dict[Key, str] = {}
            for part, marks in _in_batches(sorted(n for n in nodes if n)):
                where.update((("Pod", ns, name), node) for node, ns, name in conn.execute(
                    "SELECT node, namespace, name FROM objects INDEXED BY objects_node "
                    f"WHERE kind='Pod' AND node IN ({marks}) ORDER BY node, namespace, name", part))
        else:  # most of the nodes: one pass over the index
            where = {("Pod", ns, name): node for node, ns, name in conn.execute(
                "SELECT node, namespace, name FROM objects INDEXED BY objects_node WHERE kind='Pod' AND node != '' "
                "ORDER BY node, namespace, name")
                if node in nodes}
        for k, o in self._dirty.items():  # this transaction's own changes
            if k[0] == "Pod":
                where[k] = _node_of(o) if o is not None else ""
        out: dict[str, list[Key]] = {}
        for k, node in where.items():
            if node and node in nodes:
                out.setdefault(node, []).append(k)
        return {n: sorted(keys) for n, keys in out.items()}

    def keys(self, kind: str) -> list[Key]:
        """Keys of every ``kind`` object, this transaction's writes included, without decoding."""
        if kind in self._listed:
            return sorted((kind, ns, name) for (ns, name), o in self._cache.get(kind, {}).items() if o is not None)
        keys = {tuple(r) for r in self._require().execute(
            "SELECT kind, namespace, name FROM objects WHERE kind=?", (kind,))}
        for k, o in self._dirty.items():
            if k[0] == kind:
                if o is None:
                    keys.discard(k)
                else:
                    keys.add(k)
        return sorted(keys)

    def pod_node_names(self) -> set[str]:
        """The node names pods are bound to, from the index, without loading bodies. A node
        this transaction's writes no longer name may still be listed (callers look at the pods
        on it with ``pod_keys_on_node``)."""
        if "Pod" in self._listed:
            return {n for n in (_node_of(o) for o in self.iter_kind("Pod")) if n}
        names = {r[0] for r in self._require().execute(
            "SELECT DISTINCT node FROM objects WHERE kind='Pod' AND node != ''")}
        names.update(n for k, o in self._dirty.items() if k[0] == "Pod" and o is not None and (n := _node_of(o)))
        return names

    def keys_containing(self, kind: str, text: str) -> list[Key]:
        """Keys of the ``kind`` objects whose stored JSON may contain ``text`` (a pre-filter
        that decodes nothing: callers check the objects they get). Once the kind is loaded,
        or for this transaction's own writes, every such key is a candidate."""
        if kind in self._listed:
            return sorted((kind, ns, name) for (ns, name), o in self._cache.get(kind, {}).items() if o is not None)
        keys = {tuple(r) for r in self._require().execute(
            "SELECT kind, namespace, name FROM objects WHERE kind=? AND instr(body, ?) > 0", (kind, text))}
        for k, o in self._dirty.items():
            if k[0] != kind:
                continue
            if o is None:
                keys.discard(k)
            else:
                keys.add(k)
        return sorted(keys)

    def _load_kind(self, kind: str) -> None:
        if kind in self._listed:
            return
        by = self._cache.setdefault(kind, {})
        self._sorted.pop(kind, None)
        _decode_into(by, self._require().execute(
            "SELECT namespace, name, body FROM objects WHERE kind=? ORDER BY namespace, name", (kind,)))
        self._listed.add(kind)

    def create(self, obj: dict, now: str) -> dict:
        """Store a new object, assigning uid, resourceVersion and creationTimestamp."""
        md = obj.setdefault("metadata", {})
        md.setdefault("uid", self.new_uid())
        md.setdefault("creationTimestamp", now)
        return self.put(obj)

    def new_uid(self) -> str:
        """A version-4 UUID, from the command's seeded random source when there is one."""
        uid = new_uid(getattr(self, "rng", None))
        self._drawn_uids.add(uid)
        return uid

    def drew_uid(self, uid: str | None) -> bool:
        """Whether ``new_uid`` drew ``uid`` in this transaction (since its last checkpoint):
        then no row the database holds names it (122 random bits are not drawn twice), and
        nothing recorded about an object of that uid before needs looking up."""
        return uid in self._drawn_uids

    def _next_write(self, kind: str) -> str:
        """The next resourceVersion (the store's, one more), for a write of a ``kind`` object,
        recorded as the kind's last (``kind_resource_version``): what ``set_meta`` and
        ``touch_meta`` of the two values would do, without their reads and comparisons (at
        every put and delete)."""
        self.opened_resource_version()
        rv = int(self.meta("resourceVersion", 0)) + 1
        self._meta_changed("resourceVersion", rv)  # (one more: it differs)
        kinds = self.meta(KIND_RV_META)
        if kinds is None:
            kinds = {}
        kinds[kind] = rv
        self._meta_changed(KIND_RV_META, kinds)  # (changed in place, or new)
        return str(rv)

    def committed_kind_resource_versions(self) -> dict[str, int]:
        """kind -> the resourceVersion of its last write, as the last committed transaction
        left it (before this one's writes)."""
        return {k: int(v) for k, v in (self.committed_meta(KIND_RV_META) or {}).items()}

    def kind_resource_version(self, kind: str) -> int:
        """The resourceVersion of the last write (create, update or delete) of any ``kind``
        object: what a watch on that kind would have seen last (0: none recorded)."""
        return int((self.meta(KIND_RV_META) or {}).get(kind, 0))

    def put(self, obj: dict) -> dict:
        """Write (create or replace) an object, bumping its resourceVersion."""
        k = key_of(obj)
        if self.write_hook is not None:
            self.write_hook(k, obj)
        obj["metadata"]["resourceVersion"] = self._next_write(k[0])
        by = self._cache.setdefault(k[0], {})
        if by.get((k[1], k[2])) is not obj:
            self._sorted.pop(k[0], None)  # a new object, or a new body for one: list again
        by[(k[1], k[2])] = obj
        self._dirty[k] = obj
        self._dirty_kinds.add(k[0])
        self._writes.append(k)
        for listener in self._listeners.get(k[0], ()):
            listener(k, obj, None)
        return obj

    def delete(self, kind: str, namespace: str, name: str) -> dict | None:
        k = (kind, namespace or "", name)
        old = self.get(kind, namespace, name)
        if old is None:
            return None
        self._cache.setdefault(kind, {})[(k[1], name)] = None
        self._sorted.pop(kind, None)
        self._dirty[k] = None
        self._dirty_kinds.add(k[0])
        rv = self._next_write(kind)
        self._gone[k] = (int(rv), old)
        self._writes.append(k)
        for listener in self._listeners.get(kind, ()):
            listener(k, None, old)
        return old

    def delete_unread(self, kind: str, namespace: str, name: str) -> bool:
        """``delete`` of a stored object this command has not read, without decoding it (bulk
        removals: expired Events); its last body is read back only if asked for (``deleted``).
        False, doing nothing, when the object was read or written here: the caller looks at
        it and calls ``delete``."""
        k = (kind, namespace or "", name)
        by = self._cache.setdefault(kind, {})
        if (k[1], name) in by or kind in self._listed:
            return False
        if self._listeners.get(kind):  # a watch needs the old body now
            return self.delete(kind, namespace, name) is not None
        by[(k[1], name)] = None
        self._sorted.pop(kind, None)
        self._dirty[k] = None
        self._dirty_kinds.add(k[0])
        rv = self._next_write(kind)
        self._gone[k] = (int(rv), None)
        self._writes.append(k)
        return True

    def listen(self, kind: str, listener) -> None:
        """Call ``listener(key, obj, old)`` on every later write of a ``kind`` object, as it is
        made: ``obj`` the object written (the cache's own dict: copy what must be kept), or None
        for a delete, with ``old`` the object as it was last."""
        self._listeners.setdefault(kind, []).append(listener)

    def unlisten(self, kind: str, listener) -> None:
        listeners = self._listeners.get(kind) or []
        if listener in listeners:
            listeners.remove(listener)

    def wipe(self) -> None:
        """Delete every object and all metadata, in this transaction."""
        conn = self._require()
        conn.execute("DELETE FROM objects")
        conn.execute("DELETE FROM meta")
        conn.execute("DELETE FROM event_index")
        conn.execute("DELETE FROM event_written")
        conn.execute("DELETE FROM derived")
        conn.execute("DELETE FROM derived_sums")
        conn.execute("DELETE FROM object_index")
        conn.execute("DELETE FROM projected")
        self._derived_synced.clear()
        self._orphaned.clear()
        self.wiped = True
        self._compact_at_commit = True
        self._events.clear()
        self._events_dirty.clear()
        self._events_migrated = True
        self._cache.clear()
        self._sorted.clear()
        self._gone.clear()
        self._committed.clear()
        self._texts.clear()
        self._event_names.clear()
        self._omitted.clear()
        self._writes.clear()
        self._dirty.clear()
        self._dirty_kinds.clear()
        self._meta.clear()
        self._meta_dirty.clear()
        self._meta_gone.clear()
        self._prefixes_held.clear()
        self._listed = set()
        self._listed_ns = set()
        self.set_meta(DERIVED_SUMS_META, {"*": True})  # (both tables empty: the sums hold)

    # -- object_index: objects by label, annotation, owner, deletion, involved object ---------
    def _index_ready(self) -> bool:
        """Whether ``object_index`` is complete, filling it first (once, in SQL) for a state
        written before it existed; False on a snapshot that cannot be written."""
        if self._index_built:
            return True
        if self.wiped or self.meta(OBJECT_INDEX_META) == OBJECT_INDEX_VERSION:
            self._index_built = True
            return True
        if self.read_only:
            return False
        conn = self._require()
        if self.meta(OBJECT_INDEX_META) in (1, 2):
            if self.meta(OBJECT_INDEX_META) == 1:
                conn.execute(_INDEX_CONTROLLER_BACKFILL)
            conn.execute(_INDEX_RETIRE)
        else:
            for stmt in _INDEX_BACKFILL:
                conn.execute(stmt)
        self.set_meta(OBJECT_INDEX_META, OBJECT_INDEX_VERSION)
        self._index_built = True
        return True

    def keys_indexed(self, kind: str, facet: str, value: str | None = None,
                     namespace: str | None = None) -> list[Key] | None:
        """Keys of the ``kind`` objects with an ``object_index`` entry ``facet`` (of ``value``
        when given; in ``namespace`` when given), this transaction's writes included, sorted;
        None when the index cannot be used (an older state opened read-only): callers scan."""
        if not self._index_ready():
            return None
        sql = "SELECT namespace, name FROM object_index WHERE kind=? AND facet=?"
        args: list = [kind, facet]
        if value is not None:
            sql += " AND value=?"
            args.append(value)
        if namespace is not None:
            sql += " AND namespace=?"
            args.append(namespace)
        keys = {(kind, ns, name) for ns, name in self._require().execute(sql, args)}
        for k, o in self._dirty.items():
            if k[0] != kind:
                continue
            if o is not None and (namespace is None or k[1] == namespace) and _has_index_entry(kind, o, facet, value):
                keys.add(k)
            else:
                keys.discard(k)
        return sorted(keys)

    def keys_indexed_any(self, kind: str, facet: str, values: set[str]) -> set[Key] | None:
        """Keys of the ``kind`` objects with an ``object_index`` entry ``facet`` of any of
        ``values``, this transaction's writes included: keys_indexed for many values in one
        pass over those writes (None: scan, see keys_indexed)."""
        if not self._index_ready():
            return None
        keys: set[Key] = set()
        conn = self._require()
        vals = sorted(values)
        for part, marks in _in_batches(vals):
            sql = (f"SELECT namespace, name FROM object_index WHERE kind=? AND facet=? "
                   f"AND value IN ({marks})")
            keys.update((kind, ns, name) for ns, name in conn.execute(sql, [kind, facet, *part]))
        for k, o in self._dirty.items():
            if k[0] != kind:
                continue
            if o is not None and any(f == facet and v in values for f, v in index_entries(kind, o)):
                keys.add(k)
            else:
                keys.discard(k)
        return keys

    def keys_annotated(self, kind: str, annotation: str) -> list[Key] | None:
        """Keys of the ``kind`` objects carrying the annotation (None: scan, see keys_indexed)."""
        return self.keys_indexed(kind, FACET_ANNOTATION, annotation)

    def keys_deleting(self, kind: str) -> list[Key] | None:
        """Keys of the ``kind`` objects with a deletionTimestamp (None: scan)."""
        return self.keys_indexed(kind, FACET_DELETING, "")

    def keys_labelled(self, kind: str, key: str, value: str | None = None,
                      namespace: str | None = None) -> list[Key] | None:
        """Keys of the ``kind`` objects with the label ``key`` (= ``value`` when given)."""
        return self.keys_indexed(kind, FACET_LABEL + key, value, namespace)

    def keys_owned_by(self, kind: str, uid: str, namespace: str | None = None) -> list[Key] | None:
        """Keys of the ``kind`` objects with an owner reference to ``uid``."""
        return self.keys_indexed(kind, FACET_OWNER, uid, namespace)

    def keys_owned_by_any(self, kind: str, uids: set[str]) -> set[Key] | None:
        """Keys of the ``kind`` objects with an owner reference to any of ``uids``."""
        return self.keys_indexed_any(kind, FACET_OWNER, uids)

    def keys_controlled_by(self, kind: str, uid: str) -> list[Key] | None:
        """Keys of the ``kind`` objects whose ControllerRef names ``uid`` (None: scan)."""
        return self.keys_indexed(kind, FACET_CONTROLLER, uid)

    def keys_orphaned(self, kind: str, namespace: str) -> list[Key] | None:
        """Keys of the ``kind`` objects in ``namespace`` without a ControllerRef, this
        transaction's writes included, sorted (None: scan, see keys_indexed)."""
        if not self._index_ready():
            return None
        names = self._orphaned.get((kind, namespace))
        if names is None:
            conn = self._require()
            # keys alone: the node index covers them (the table's rows hold the bodies)
            names = {name for (name,) in conn.execute(
                "SELECT name FROM objects INDEXED BY objects_node WHERE kind=? AND namespace=?", (kind, namespace))}
            names.difference_update(name for (name,) in conn.execute(
                "SELECT name FROM object_index WHERE kind=? AND facet=? AND namespace=?",
                (kind, FACET_CONTROLLER, namespace)))
            self._orphaned[(kind, namespace)] = names
        keys = {(kind, namespace, name) for name in names}
        for k, o in self._dirty.items():
            if k[0] != kind or k[1] != namespace:
                continue
            if o is not None and not any(f == FACET_CONTROLLER for f, _ in index_entries(kind, o)):
                keys.add(k)
            else:
                keys.discard(k)
        return sorted(keys)

    def keys_of_events_involving(self, name: str) -> list[Key] | None:
        """Keys of the Events whose involvedObject has this name."""
        return self.keys_indexed("Event", FACET_INVOLVED_NAME, name)

    def _write_index(self, conn: sqlite3.Connection) -> None:
        if not self._dirty:
            if self.wiped or self.created_fresh:
                self.set_meta(OBJECT_INDEX_META, OBJECT_INDEX_VERSION)
            return
        # An object whose committed body this transaction decoded (``committed``: the field
        # manager reads it before each first write) has its rows compared with what they were:
        # a new one has none to delete, one whose labels, annotations, owners, deletion and
        # involved object stayed (a status update) keeps them. The others' rows are replaced.
        dels = []
        rows = []
        committed = self._committed
        for k, o in self._dirty.items():
            new = index_entries(k[0], o) if o is not None else set()
            if not self.wiped and k in committed:
                before = committed[k]
                old = index_entries(k[0], before) if before is not None else set()
                if old == new:
                    continue
                if old:
                    dels.append(k)
            elif not self.wiped:  # (wipe emptied the table)
                dels.append(k)
            rows.extend((k[0], f, v, k[1], k[2]) for f, v in new)
        if dels:
            conn.executemany("DELETE FROM object_index WHERE kind=? AND namespace=? AND name=?", dels)
        if rows:
            rows.sort()
            conn.executemany("INSERT OR IGNORE INTO object_index VALUES (?,?,?,?,?)", rows)
        if self.wiped or self.created_fresh:
            self.set_meta(OBJECT_INDEX_META, OBJECT_INDEX_VERSION)

    # -- derived rows: a digest per object, kept with it (the scheduler's cache) --------------
    def derive(self, kind: str, fn, fold=None) -> None:
        """Keep ``fn(obj)`` (JSON-able) beside every ``kind`` object: written at commit for
        each object this transaction wrote, removed with it; rows a writer without ``fn``
        left stale (their resourceVersion differs from the object's) are recomputed when read.
        ``fold(acc, key, digest, sign)``: also keep, per node, the sum of the digests of the
        objects bound to it (``derived_sums``), changed by each digest added (sign 1) or taken
        away (sign -1) and returned (None: nothing left); ``acc`` is the node's sum (None for
        none yet), which ``fold`` may change in place."""
        self._derivers[kind] = fn
        if fold is not None:
            self._folds[kind] = fold

    def derived(self, kind: str, bound: bool = False) -> list[tuple[Key, object]]:
        """(key, digest) of every ``kind`` object, this transaction's writes included, sorted
        by key; ``bound``: only pods bound to a node. Reads the ``derived`` table alone (no
        object is decoded) once it is complete; a state some writer left it incomplete in (a
        writer without ``derive``, an older state) has it completed first, in this
        transaction. Needs ``derive(kind, fn)`` first."""
        fn = self._derivers[kind]
        conn = self._require()
        if not self._ensure_derived(kind):
            return self._derived_slow(kind, bound)
        where = "WHERE kind=?" + (" AND node != ''" if bound else "")
        # The digests as one JSON text, decoded in one call (a row at a time costs more than
        # the decoding itself at 10,000 pods).
        text = conn.execute(
            "SELECT '[' || coalesce(group_concat('[' || json_quote(namespace) || ',' || "
            "json_quote(name) || ',' || data || ']', ','), '') || ']' FROM derived " + where,
            (kind,)).fetchone()[0]
        return self._overlaid(kind, _loads_frozen(text), fn, lambda obj: not bound or _node_of(obj))

    def derived_on_node(self, kind: str, node: str) -> list[tuple[Key, object]]:
        """``derived(kind, bound=True)`` of the objects bound to ``node`` alone (sorted by key)."""
        fn = self._derivers[kind]
        if not self._ensure_derived(kind):
            return [e for e in self._derived_slow(kind, True) if _node_of(self.get(*e[0]) or {}) == node]
        # The node's keys from the (covering) derived_node index, then each row by its key: asked
        # for in one statement, SQLite's planner (no statistics) would pass over every row of
        # the kind instead (~900 pages for 15,000 pods, 8 ms, for a node's few pods)
        rows = self._require().execute(
            "SELECT d.namespace, d.name, d.data FROM derived k CROSS JOIN derived d ON d.kind=k.kind "
            "AND d.namespace=k.namespace AND d.name=k.name WHERE k.kind=? AND k.node=? "
            "ORDER BY k.namespace, k.name", (kind, node)).fetchall()
        return self._overlaid(kind, [(ns, name, json.loads(data)) for ns, name, data in rows], fn,
                              lambda obj: _node_of(obj) == node)

    def derived_since(self, kind: str, rv: int, known: Iterable[str] = ()
                      ) -> tuple[set[str], list[tuple[Key, object]]] | None:
        """What changed in the ``kind`` digests since resourceVersion ``rv`` of the committed
        state: the names of all the objects (namespace ""), and (key, digest) of those written
        after ``rv``, sorted. None on a snapshot whose rows cannot be completed. Only for
        cluster-scoped kinds read without this transaction's writes of them. ``known``: the
        names the caller knows were there at ``rv``; when none of them is gone (the rows count
        as many as those and the ones written since) the names are not read one by one."""
        if not self._ensure_derived(kind):
            return None
        conn = self._require()
        rows = conn.execute("SELECT namespace, name, data FROM derived WHERE kind=? AND rv > ? "
                            "ORDER BY namespace, name", (kind, rv)).fetchall()
        changed = [((kind, ns, name), json.loads(data)) for ns, name, data in rows]
        if known:
            names = set(known)
            names.update(k[2] for k, _ in changed)
            (count,) = conn.execute("SELECT count(*) FROM derived WHERE kind=?", (kind,)).fetchone()
            if count == len(names):
                return names, changed
        return {n for (n,) in conn.execute("SELECT name FROM derived WHERE kind=?", (kind,))}, changed

    def derived_sums(self, kind: str) -> dict[str, object]:
        """node -> the fold of the digests of the ``kind`` objects bound to it (``derive``'s
        ``fold``), this transaction's writes included; nodes with nothing are left out. Reads
        the ``derived_sums`` table alone once it is complete (one row per node: no digest of
        an object is decoded). Nodes whose rows are the same text share one sum (many nodes
        hold alike pods: at 5,000 nodes a handful of distinct rows), read-only: each distinct
        text is decoded once, all of them in one call."""
        fn, fold = self._derivers[kind], self._folds[kind]
        if not self._ensure_derived(kind) or not self._ensure_sums(kind):
            return self._fold_rows(fold, [(k[1], k[2], _node_of(self.get(*k) or {}), d)
                                          for k, d in self._derived_slow(kind, True)])
        conn = self._require()
        texts: dict[str, str] = dict(conn.execute("SELECT node, data FROM derived_sums WHERE kind=?", (kind,)))
        distinct = dict.fromkeys(texts.values())
        decoded = dict(zip(distinct, _loads_frozen("[" + ",".join(distinct) + "]"), strict=True))
        sums = {node: decoded[text] for node, text in texts.items()}
        dirty = [k for k in self._dirty if k[0] == kind]
        if dirty:
            old = self._derived_rows(kind, dirty)
            for node in {row[0] for row in old.values()} | {_node_of(obj) for k in dirty
                                                            if (obj := self._dirty[k]) is not None}:
                if node in texts:  # (its own copy, to fold this transaction's writes into)
                    sums[node] = json.loads(texts[node])
            for k in dirty:
                row = old.get(k)
                if row is not None and row[0]:
                    _fold_into(sums, fold, row[0], k, row[1], -1)
                obj = self._dirty[k]
                if obj is not None and (node := _node_of(obj)):
                    _fold_into(sums, fold, node, k, fn(obj), 1)
        return sums

    def _ensure_derived(self, kind: str) -> bool:
        """Complete the ``derived`` rows of ``kind`` in this transaction when some writer left
        them incomplete; False on a snapshot that cannot be completed."""
        if kind not in self._derived_synced and not self._derived_complete(kind):
            if self.read_only:
                return False
            self._complete_derived(kind)
        return True

    def _overlaid(self, kind: str, rows: list, fn, keep) -> list[tuple[Key, object]]:
        """(namespace, name, digest) rows read from ``derived`` with this transaction's writes
        of ``kind`` in their place (``keep(obj)``: whether a written object belongs)."""
        dirty = self._dirty
        if any(k[0] == kind for k in dirty):
            out = [((kind, ns, name), data) for ns, name, data in rows
                   if (kind, ns, name) not in dirty]
            out.extend((k, fn(obj)) for k, obj in dirty.items()
                       if k[0] == kind and obj is not None and keep(obj))
            out.sort(key=lambda e: e[0])
            return out
        return [((kind, ns, name), data) for ns, name, data in rows]

    def _derived_rows(self, kind: str, keys: list[Key]) -> dict[Key, tuple[str, object]]:
        """The ``derived`` rows (node, digest) of ``keys`` as the table holds them."""
        conn = self._require()
        by_ns: dict[str, list[str]] = {}
        for k in keys:
            by_ns.setdefault(k[1], []).append(k[2])
        found: dict[Key, tuple[str, str]] = {}
        for ns, names in by_ns.items():  # a few hundred names to a statement, not one each
            names = list(dict.fromkeys(names))
            for part, marks in _in_batches(names):
                for name, node, data in conn.execute(
                        f"SELECT name, node, data FROM derived WHERE kind=? AND namespace=? "
                        f"AND name IN ({marks})", (kind, ns, *part)):
                    found[(kind, ns, name)] = (node, data)
        out = {}
        for k in keys:  # (in the order of ``keys``, as before)
            row = found.get(k)
            if row is not None and k not in out:
                out[k] = (row[0], json.loads(row[1]))
        return out

    @staticmethod
    def _fold_rows(fold, rows) -> dict[str, object]:
        """The sums of (namespace, name, node, digest) rows of one kind."""
        sums: dict[str, object] = {}
        for ns, name, node, d in rows:
            if node:
                _fold_into(sums, fold, node, (None, ns, name), d, 1)
        return sums

    def _sums_valid(self, kind: str) -> bool:
        m = self.meta(DERIVED_SUMS_META) or {}
        return bool(m.get(kind, m.get("*", False)))

    def _set_sums_valid(self, kind: str, valid: bool) -> None:
        m = dict(self.meta(DERIVED_SUMS_META) or {})
        if m.get(kind, m.get("*", False)) != valid:
            m[kind] = valid
            self.set_meta(DERIVED_SUMS_META, m)

    def _ensure_sums(self, kind: str) -> bool:
        """Rebuild the ``derived_sums`` rows of ``kind`` from its (complete) ``derived`` rows
        when they are not known to be their fold; False on a snapshot that cannot be written."""
        if self._sums_valid(kind):
            return True
        if self.read_only:
            return False
        conn = self._require()
        fold = self._folds[kind]
        rows = conn.execute("SELECT namespace, name, node, data FROM derived WHERE kind=? AND node != ''",
                            (kind,)).fetchall()
        sums = self._fold_rows(fold, ((ns, name, node, json.loads(d)) for ns, name, node, d in rows))
        conn.execute("DELETE FROM derived_sums WHERE kind=?", (kind,))
        conn.executemany("INSERT INTO derived_sums VALUES (?,?,?)",
                         [(kind, node, _dumps(acc))
                          for node, acc in sorted(sums.items())])
        self._set_sums_valid(kind, True)
        return True

    def _change_sums(self, kind: str, changes: list[tuple[Key, str, object, int]]) -> None:
        """Apply (key, node, digest, sign) to the ``derived_sums`` rows of ``kind``, in the
        same transaction as the ``derived`` rows they follow; a kind without a fold has its
        sums dropped instead (rebuilt when next read)."""
        changes = [c for c in changes if c[1]]
        if not changes:
            return
        conn = self._require()
        fold = self._folds.get(kind)
        if fold is None or not self._sums_valid(kind):
            if self._sums_valid(kind):
                conn.execute("DELETE FROM derived_sums WHERE kind=?", (kind,))
                self._set_sums_valid(kind, False)
            return
        sums: dict[str, object] = {}
        nodes = sorted({c[1] for c in changes})
        found: dict[str, str] = {}
        for part, marks in _in_batches(nodes):
            found.update(conn.execute(f"SELECT node, data FROM derived_sums WHERE kind=? "
                                      f"AND node IN ({marks})", (kind, *part)))
        for node in nodes:
            if node in found:
                sums[node] = json.loads(found[node])
        touched = set()
        for k, node, d, sign in changes:
            _fold_into(sums, fold, node, k, d, sign)
            touched.add(node)
        dels = [(kind, n) for n in sorted(touched) if n not in sums]
        # (a node whose sum comes out as it was, a status write's digest taken away and added
        # back, keeps its row: the same text)
        puts = [(kind, n, text) for n in sorted(touched) if n in sums
                and (text := _dumps(sums[n])) != found.get(n)]
        if dels:
            conn.executemany("DELETE FROM derived_sums WHERE kind=? AND node=?", dels)
        if puts:
            conn.executemany("INSERT OR REPLACE INTO derived_sums VALUES (?,?,?)", puts)

    def _derived_complete(self, kind: str) -> bool:
        """Whether the last commit left every ``kind`` object's derived row current."""
        if self.wiped:
            return False
        synced = (self.committed_meta(DERIVED_SYNCED_META) or {}).get(kind)
        return synced is not None and synced == self.committed_kind_resource_versions().get(kind, 0)

    def _stale_derived(self, kind: str) -> list[tuple[str, str, str | None, str | None]]:
        """(namespace, name, the row's node, its data) of the objects whose derived row is
        missing (node and data None) or stale."""
        return self._require().execute(
            "SELECT o.namespace, o.name, d.node, d.data FROM objects o LEFT JOIN derived d ON "
            "d.kind=o.kind AND d.namespace=o.namespace AND d.name=o.name WHERE o.kind=? AND "
            "(d.rv IS NULL OR d.rv != o.rv) ORDER BY o.namespace, o.name", (kind,)).fetchall()

    def _complete_derived(self, kind: str) -> None:
        """Rewrite the missing and stale derived rows of ``kind`` and drop the orphans."""
        conn = self._require()
        fn = self._derivers[kind]
        puts = []
        changes = []
        for ns, name, old_node, old_data in self._stale_derived(kind):
            row = conn.execute("SELECT body FROM objects WHERE kind=? AND namespace=? AND name=?",
                               (kind, ns, name)).fetchone()
            obj = json.loads(row[0])
            new = self._derived_row((kind, ns, name), obj, fn)
            puts.append(new)
            if old_data is not None:
                changes.append(((kind, ns, name), old_node, json.loads(old_data), -1))
            changes.append(((kind, ns, name), new[4], json.loads(new[5]), 1))
        orphans = conn.execute(
            "SELECT namespace, name, node, data FROM derived WHERE kind=? AND NOT EXISTS (SELECT 1 "
            "FROM objects o WHERE o.kind=derived.kind AND o.namespace=derived.namespace AND "
            "o.name=derived.name)", (kind,)).fetchall()
        changes.extend(((kind, ns, name), node, json.loads(data), -1) for ns, name, node, data in orphans)
        if puts:
            conn.executemany("INSERT OR REPLACE INTO derived VALUES (?,?,?,?,?,?)", puts)
        if orphans:
            conn.executemany("DELETE FROM derived WHERE kind=? AND namespace=? AND name=?",
                             [(kind, ns, name) for ns, name, _, _ in orphans])
        self._change_sums(kind, changes)
        self._derived_synced.add(kind)

    def _derived_slow(self, kind: str, bound: bool) -> list[tuple[Key, object]]:
        """``derived`` on a snapshot that cannot be completed: every object decoded."""
        fn = self._derivers[kind]
        return [(key_of(o), fn(o)) for o in self.list(kind) if not bound or _node_of(o)]

    @staticmethod
    def _derived_row(k: Key, obj: dict, fn) -> tuple:
        return (k[0], k[1], k[2], int(obj["metadata"].get("resourceVersion", 0)), _node_of(obj),
                _dumps(fn(obj)))

    def _write_derived(self, conn: sqlite3.Connection) -> None:
        if not self._derivers:
            return
        puts = []
        dels = []
        by_kind: dict[str, list[Key]] = {}
        for k, obj in self._dirty.items():
            fn = self._derivers.get(k[0])
            if fn is None:
                continue
            by_kind.setdefault(k[0], []).append(k)
            if obj is None:
                dels.append(k)
            else:
                puts.append(self._derived_row(k, obj, fn))
        changes: dict[str, list] = {}
        for kind, keys in by_kind.items():  # the rows as they were, taken out of the sums
            # (another kind's rows all have node "" (_node_of), which no sum counts: _change_sums
            # would drop their changes, and the old rows, each a seek, go unread)
            if kind == _NODE_BOUND_KIND and (kind in self._folds or self._sums_valid(kind)):
                # (after a wipe the table holds no row from before)
                old = {} if self.wiped else self._derived_rows(kind, keys)
                changes[kind] = [(k, node, d, -1) for k, (node, d) in old.items()]
        if dels:
            conn.executemany("DELETE FROM derived WHERE kind=? AND namespace=? AND name=?", dels)
        if puts:
            puts.sort(key=_row_key)
            conn.executemany("INSERT OR REPLACE INTO derived VALUES (?,?,?,?,?,?)", puts)
            for row in puts:
                if row[0] in changes:
                    changes[row[0]].append(((row[0], row[1], row[2]), row[4], json.loads(row[5]), 1))
        for kind, ch in changes.items():
            self._change_sums(kind, ch)
        synced = dict(self.committed_meta(DERIVED_SYNCED_META) or {}) if not self.wiped else {}
        before = synced.copy()
        fresh = self.wiped or self.created_fresh  # every object of the state written here
        for kind in self._derivers:
            if fresh or kind in self._derived_synced or self._derived_complete(kind):
                synced[kind] = self.kind_resource_version(kind)
        if synced != before:
            self.set_meta(DERIVED_SYNCED_META, synced)

    def changed_keys(self) -> Iterable[Key]:
        return self._dirty.keys()

    def changed_kinds(self) -> set[str]:
        """The kinds of the objects this transaction wrote or deleted (``changed_keys``'), without
        a scan of them."""
        return self._dirty_kinds

    def writes_since(self, position: int) -> tuple[list[Key], int]:
        """The keys written (put or deleted) by this transaction since ``position`` (a value
        this method returned before; 0: since it began), each once, and the position now. A
        wipe starts the count again."""
        n = len(self._writes)
        if position > n:
            position = 0
        return list(dict.fromkeys(self._writes[position:])), n

    # -- projected rows: the part of each object a kind's table reads, kept with it ----------
    def project(self, kind: str, fn, version: str) -> None:
        """Keep ``fn(obj)`` (JSON-able: what a reader such as the kind's table printer needs
        of the object) beside every ``kind`` object, in the ``projected`` table: written at
        commit with each write of the object, removed with it, and completed at commit when an
        older state (or a writer without ``fn``) left rows missing or stale; all rewritten
        when ``version`` (what ``fn`` computes) differs from the rows'. Rows are read alone
        only when the last commit left them all current; else each is checked against its
        object's resourceVersion, so a stale row is never served."""
        self._projectors[kind] = (fn, version)

    def projects(self, kind: str) -> bool:
        return kind in self._projectors

    def projected_pieces(self, kind: str, namespace: str | None = None, keys: list[Key] | None = None,
                         size: int = 500) -> Iterator[list]:
        """``fn(obj)`` (``project``) of every ``kind`` object (in ``namespace``), or of the
        objects of ``keys`` that exist (in that order), in pieces of at most ``size`` in
        ``list``'s order, each read and decoded when reached: from the projected rows where
        they are current, from the object where not. Objects this transaction read or wrote
        are projected as it has them (then the pieces are made once all are read)."""
        fn = self._projectors[kind][0]
        if kind in self._listed or self.wiped:
            objs = self.list(kind, namespace) if keys is None else self.objects(keys)
            for i in range(0, len(objs), size):
                yield [fn(o) for o in objs[i:i + size]]
            return
        cached = self._cache.get(kind)
        if cached:  # this transaction's reads and writes win, as in ``get``
            found = {}
            for piece in self._projected_rows(kind, namespace, keys, size, skip=cached):
                found.update(piece)
            found.update(((ns, name), fn(o)) for (ns, name), o in cached.items() if o is not None
                         and (keys is not None or namespace is None or ns == namespace))
            order = sorted(found) if keys is None else [(k[1], k[2]) for k in keys if (k[1], k[2]) in found]
            for i in range(0, len(order), size):
                yield [found[k] for k in order[i:i + size]]
            return
        for piece in self._projected_rows(kind, namespace, keys, size):
            yield list(piece.values())

    def _projected_rows(self, kind: str, namespace: str | None, keys: list[Key] | None, size: int,
                        skip: dict | None = None) -> Iterator[dict]:
        """``projected_pieces`` from the database alone (as the last commit left it), each
        piece as {(namespace, name): projection}, without the keys in ``skip``."""
        fn = self._projectors[kind][0]
        conn = self._require()
        synced = (self.committed_meta(PROJECTED_SYNCED_META) or {}).get(kind)
        if self._projected_complete(kind):  # (the rows alone: no object read)
            select = "SELECT namespace, name, data, NULL FROM projected o "
        elif not self._has_projected() or not isinstance(synced, list) or synced[1:] != [self._projectors[kind][1]]:
            # rows of another version of the projection, or none: the objects, projected here
            select = "SELECT namespace, name, NULL, json_remove(body, '$.metadata.managedFields') FROM objects o "
        else:
            select = ("SELECT o.namespace, o.name, CASE WHEN p.rv = o.rv THEN p.data END, CASE WHEN p.rv = o.rv "
                      "THEN NULL ELSE json_remove(o.body, '$.metadata.managedFields') END FROM objects o LEFT JOIN "
                      "projected p ON p.kind = o.kind AND p.namespace = o.namespace AND p.name = o.name ")
        if keys is None:
            cursor = conn.execute(select + "WHERE o.kind=?" + (" AND o.namespace=?" if namespace is not None else "")
                                  + " ORDER BY o.namespace, o.name",
                                  (kind,) if namespace is None else (kind, namespace))
            chunks: Iterator[list] = iter(lambda: cursor.fetchmany(size), [])
        else:
            one = select + "WHERE o.kind=? AND o.namespace=? AND o.name=?"
            chunks = ([row for k in keys[i:i + size] if (row := conn.execute(one, k).fetchone()) is not None]
                      for i in range(0, len(keys), size))
        for rows in chunks:
            if skip:
                rows = [r for r in rows if (r[0], r[1]) not in skip]
            if not rows:
                continue
            with collector_paused():  # (containers without cycles: see _decode_into)
                piece = json.loads("[" + ",".join(d if d is not None else body for _, _, d, body in rows) + "]")
            for i, row in enumerate(rows):
                if row[2] is None:  # a row missing or stale: the object itself, projected here
                    piece[i] = fn(piece[i])
            yield {(row[0], row[1]): o for row, o in zip(rows, piece)}

    def _projected_complete(self, kind: str) -> bool:
        """Whether the last commit left every ``kind`` object's projected row current (and
        this transaction wrote none of them)."""
        return kind not in self._dirty_kinds and self._projected_current(kind)

    def _projected_current(self, kind: str) -> bool:
        """Whether the last commit (or checkpoint) left every ``kind`` object's projected row
        current: a row for each, none for anything else, each at its object's resourceVersion
        (the tables, which this transaction's writes reach only at commit)."""
        if self.wiped or kind not in self._projectors:
            return False
        synced = (self.committed_meta(PROJECTED_SYNCED_META) or {}).get(kind)
        return synced == [self.committed_kind_resource_versions().get(kind, 0), self._projectors[kind][1]]

    def _has_projected(self) -> bool:
        """Whether the state has the ``projected`` table (an older state read from a snapshot
        may not: it is created by the first write transaction)."""
        has = self._projected_table
        if has is None:
            has = self._projected_table = self._require().execute(
                "SELECT 1 FROM sqlite_master WHERE name='projected'").fetchone() is not None
        return has

    def _write_projected(self, conn: sqlite3.Connection) -> None:
        if not self._projectors:
            return
        puts, dels = [], []
        for k, obj in self._dirty.items():
            fn = self._projectors.get(k[0])
            if fn is None:
                continue
            fn = fn[0]
            if obj is None:
                dels.append(k)
            else:
                puts.append((k[0], k[1], k[2], int(obj["metadata"].get("resourceVersion", 0)),
                             _dumps(fn(obj))))
        if dels:
            conn.executemany("DELETE FROM projected WHERE kind=? AND namespace=? AND name=?", dels)
        if puts:
            puts.sort(key=_row_key)
            conn.executemany("INSERT OR REPLACE INTO projected VALUES (?,?,?,?,?)", puts)
        synced = dict(self.committed_meta(PROJECTED_SYNCED_META) or {}) if not self.wiped else {}
        before = synced.copy()
        fresh = self.wiped or self.created_fresh  # every object of the state written here
        committed = None
        for kind, (_, version) in self._projectors.items():
            if not fresh:
                if committed is None:
                    committed = self.committed_kind_resource_versions()
                was = synced.get(kind)
                if was != [committed.get(kind, 0), version]:  # (as _projected_complete)
                    self._complete_projected(conn, kind, every=not isinstance(was, list) or was[1:] != [version])
            synced[kind] = [self.kind_resource_version(kind), version]
        if synced != before:
            self.set_meta(PROJECTED_SYNCED_META, synced)

    def _complete_projected(self, conn: sqlite3.Connection, kind: str, every: bool = False,
                            size: int = 500) -> None:
        """Rewrite the missing and stale projected rows of ``kind`` (``every``: all, written
        by another version of its function), a few hundred objects decoded at a time, and drop
        the orphans."""
        fn = self._projectors[kind][0]
        if every:  # (the objects' rows hold this transaction's writes already)
            conn.execute("DELETE FROM projected WHERE kind=?", (kind,))
        stale = conn.execute(
            "SELECT o.namespace, o.name FROM objects o LEFT JOIN projected p ON p.kind=o.kind AND "
            "p.namespace=o.namespace AND p.name=o.name WHERE o.kind=? AND (p.rv IS NULL OR p.rv != o.rv) "
            "ORDER BY o.namespace, o.name", (kind,)).fetchall()
        by_ns: dict[str, list[str]] = {}
        for ns, name in stale:
            by_ns.setdefault(ns, []).append(name)
        for ns, names in by_ns.items():
            for part, marks in _in_batches(names, size):  # (one statement a piece, as get_many reads)
                rows = conn.execute(
                    "SELECT name, rv, json_remove(body, '$.metadata.managedFields') FROM objects "
                    f"WHERE kind=? AND namespace=? AND name IN ({marks}) ORDER BY name",
                    (kind, ns, *part)).fetchall()
                conn.executemany("INSERT OR REPLACE INTO projected VALUES (?,?,?,?,?)", [
                    (kind, ns, name, rv, _dumps(fn(json.loads(body))))
                    for name, rv, body in rows])
        conn.execute("DELETE FROM projected WHERE kind=? AND NOT EXISTS (SELECT 1 FROM objects o "
                     "WHERE o.kind=projected.kind AND o.namespace=projected.namespace AND "
                     "o.name=projected.name)", (kind,))


def snapshot(obj: dict) -> dict:
    return copy.deepcopy(obj)
