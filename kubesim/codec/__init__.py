"""Manifests in and out: YAML and JSON documents (the only place PyYAML is imported),
multi-document and List handling with kubectl's error texts and limits (``load.py``), and
structural validation against the upstream v1.35 OpenAPI schemas (``schema.py``)."""
