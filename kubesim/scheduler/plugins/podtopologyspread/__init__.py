"""PodTopologySpread, as upstream's plugins/podtopologyspread/: common.py, filtering.py,
scoring.py and plugin.py (the plugin class; plugins/registry.py imports it from there)."""
