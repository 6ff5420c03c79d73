"""The default scheduler plugins, one module (or package) each, named as upstream's
pkg/scheduler/framework/plugins/<name>; ``registry.py`` is the one place that imports them all,
with their legacy predicate/priority names."""
