"""explain-schedule -o html: one self-contained page, checked as written and as a real headless
browser renders it (Debian's chromium, driven by subprocess: --dump-dom after the inline script
has run, and --screenshot).

The browser is found as KUBESIM_CHROMIUM names it, else as ``chromium``, ``chromium-browser``,
``google-chrome`` or ``google-chrome-stable`` on PATH; without one the browser tests skip and
say so.
"""

import os
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    named = os.environ.get("KUBESIM_CHROMIUM")
    if named:
        return shutil.which(named) or (named if os.access(named, os.X_OK) else None)
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


BROWSER = find_browser()
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no headless browser: install Debian's chromium "
    "(apt-get install chromium) or set KUBESIM_CHROMIUM to one")


class Heatmap(HTMLParser):
    """The heat map as a browser (or the raw page) has it: the table's attributes, its column
    headers, its rows in order, and every external reference."""

    def __init__(self):
        super().__init__()
        self.table: dict = {}
        self.columns: list[str] = []
        self.rows: list[dict] = []
        self.cells: list[list[dict]] = []
        self.external: list[str] = []
        self._in = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href"):
            if a.get(k) and not a[k].startswith("#"):
                self.external.append(a[k])
        if tag == "table" and a.get("id") == "heatmap":
            self.table, self._in = a, "table"
        elif self._in and tag == "th":
            self.columns.append(a.get("data-col"))
        elif self._in and tag == "tr" and "data-node" in a:
            self.rows.append(a)
            self.cells.append([])
        elif self._in and tag == "td" and self.rows:
            self.cells[-1].append(a)

    def handle_endtag(self, tag):
        if tag == "table":
            self._in = None


def parse(text: str) -> Heatmap:
    h = Heatmap()
    h.feed(text)
    return h


def browse(page, *args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", *args], capture_output=True, text=True,
                          timeout=timeout)


HOG = """apiVersion: v1
kind: Pod
metadata: {name: hog}
spec:
  nodeName: node01
  containers:
  - {name: c, image: nginx, resources: {requests: {cpu: 2, memory: 1Gi}}}
"""
WEB = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - {name: c, image: nginx, resources: {requests: {cpu: 100m, memory: 128Mi}}}
"""


@pytest.fixture
def page(kubesim, tmp_path):
    kubesim.apply(HOG)
    kubesim.apply(WEB)
    path = tmp_path / "web.html"
    path.write_text(kubesim.ok("explain-schedule web -o html"))
    return path


def test_the_page_is_self_contained_with_one_row_per_node_winner_first(kubesim, page):
    h = parse(page.read_text())
    assert h.external == []
    assert [r["data-node"] for r in h.rows] == ["node02", "node01", "controlplane"]
    assert (h.rows[0].get("id"), h.rows[0].get("class")) == ("winner", "winner")
    assert h.columns == ["node", "total", "filter:TaintToleration", "TaintToleration",
                         "NodeAffinity", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread",
                         "InterPodAffinity", "DynamicResources",
                         "NodeResourcesBalancedAllocation", "ImageLocality"]
    cp = dict(zip(h.columns, h.cells[2]))
    assert cp["filter:TaintToleration"] == {"class": "f", "data-v": "1",
                                            "title": "node(s) had untolerated taint(s)"}
    fit = dict(zip(h.columns, h.cells[1]))["NodeResourcesFit"]
    # node01, with its CoreDNS pod (100m, 70Mi) and kube-proxy (the scheduler's non-zero 100m,
    # 200Mi): cpu (4000-2300)*100//4000 = 42, memory
    # (8485076992-1491075072)*100//8485076992 = 82 -> (42+82)//2 = 62
    assert fit["data-v"] == "62" and fit["title"] == "raw 62 → 62 × 1 = 62"


def test_html_does_not_combine_with_trace_or_compare(kubesim):
    kubesim.apply(WEB)
    r = kubesim("explain-schedule web -o html --trace")
    assert (r.code, r.out) == (1, "")
    assert r.err == ("error: -o html shows the heat map of every node: it does not combine "
                     "with --trace or --compare\n")


@needs_browser
def test_a_browser_renders_the_heat_map_and_sorts_it_by_a_plugin(page, tmp_path):
    r = browse(page, "--dump-dom", f"{page.as_uri()}#sort=NodeResourcesFit:asc")
    assert r.returncode == 0, r.stderr[-2000:]
    h = parse(r.stdout)
    assert len(h.rows) == 3
    assert h.table.get("data-sorted") == "NodeResourcesFit:asc"  # the inline script ran
    # ascending NodeResourcesFit: controlplane (not scored, -1), node01 (62), node02 (the winner)
    assert [r["data-node"] for r in h.rows] == ["controlplane", "node01", "node02"]
    assert h.rows[-1].get("id") == "winner"
    shot = tmp_path / "heatmap.png"
    r = browse(page, f"--screenshot={shot}", "--window-size=1400,600", page.as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@needs_browser
def test_a_browser_renders_every_node_of_a_larger_cluster(kubesim, tmp_path):
    kubesim.ok("cluster init --nodes 300 --cpu 4 --memory 8Gi")
    kubesim.apply(WEB)
    path = tmp_path / "big.html"
    path.write_text(kubesim.ok("explain-schedule web -o html"))
    r = browse(path, "--dump-dom", f"{path.as_uri()}#sort=node:desc")
    assert r.returncode == 0, r.stderr[-2000:]
    h = parse(r.stdout)
    names = [r["data-node"] for r in h.rows]
    assert len(names) == 301 and names == sorted(names, reverse=True)
    winner = [r for r in h.rows if r.get("id") == "winner"]
    assert len(winner) == 1 and winner[0]["data-node"] == kubesim.ok(
        "get pod web -o jsonpath={.spec.nodeName}")
    r = browse(path, f"--screenshot={tmp_path / 'big.png'}", "--window-size=1400,900",
               path.as_uri())
    assert r.returncode == 0 and (tmp_path / "big.png").stat().st_size > 0
