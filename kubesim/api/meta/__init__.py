"""meta/v1: what every object has — ObjectMeta's validation, accessors and conditions."""
