"""Where the process's kind registry reads the stored CustomResourceDefinitions from
(kubesim.apiserver.context._stored_crds): only the thread that opened a command's store reads
it. ``kubesim serve`` resolves a request's path on its own thread before it takes the server's
lock; reading the store of the request being served meanwhile used one SQLite connection from
two threads, and the server crashed (a segmentation fault, about one run in four of sixteen
clients at once)."""

from __future__ import annotations

import threading

from kubesim.apiserver.context import _stored_crds
from kubesim.errors import StateError

CRD = {"metadata": {"name": "widgets.example.com"}}


class Store:
    def __init__(self):
        self.readers: list[int] = []
        self.open = True

    def list(self, kind):
        if not self.open:
            raise StateError("state is not open")
        self.readers.append(threading.get_ident())
        return [CRD]


def elsewhere(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_another_thread_gets_the_previous_source_until_the_owner_has_read():
    store = Store()
    source = _stored_crds(store, lambda: ["before"])
    assert elsewhere(source) == ["before"]
    assert store.readers == []


def test_another_thread_gets_what_the_owner_read_last_without_reading():
    store = Store()
    source = _stored_crds(store, None)
    assert source() == [CRD]
    assert elsewhere(source) == [CRD]
    assert store.readers == [threading.get_ident()]


def test_the_owner_reads_while_open_then_keeps_what_it_read():
    store = Store()
    source = _stored_crds(store, lambda: ["before"])
    assert source() == [CRD]
    store.open = False
    assert source() == [CRD]


def test_a_store_closed_before_any_read_gives_the_previous_source():
    store = Store()
    store.open = False
    assert _stored_crds(store, lambda: ["before"])() == ["before"]
    assert _stored_crds(store, None)() == []
