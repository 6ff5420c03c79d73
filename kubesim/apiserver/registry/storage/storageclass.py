"""StorageClasses: stored as written, with their scheme defaults.

Upstream: pkg/registry/storage/storageclass/strategy.go (``storageClassStrategy``: no status;
``Validate``/``ValidateUpdate`` are ``kubesim.api.storage.validation``'s). Which class is the
default is read by the DefaultStorageClass admission plugin.
"""

from __future__ import annotations

from kubesim.api.storage.defaults import set_defaults_storage_class
from kubesim.apiserver.registry.rest import Strategy


class StorageClassStrategy(Strategy):
    kind = "StorageClass"

    def set_defaults(self, obj: dict) -> None:
        set_defaults_storage_class(obj)

    def validate(self, obj: dict) -> list:
        from kubesim.api.storage.validation import validate_storage_class

        return validate_storage_class(obj)

    def validate_update(self, new: dict, old: dict) -> list:
        from kubesim.api.storage.validation import validate_storage_class_update

        return validate_storage_class_update(new, old)


strategy = StorageClassStrategy()
