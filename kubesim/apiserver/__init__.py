"""The API server: the only writer of the store. Object operations with their REST semantics
(``objects``: create, update, delete with grace and propagation, list with selectors), one
strategy per resource (``registry/<group>/<resource>.py``, as pkg/registry), the admission
chain (``admission/``, one module per plugin, in upstream's order), events, the eviction
subresource, patches, and opening a state (``storage``)."""
