"""explain-schedule ``-o html``: one self-contained page (no network: inline CSS and a few lines of
inline JavaScript) with a nodes × plugins heat map of the attempt (DESIGN §3.5's data).

Rows are nodes: the winner first (highlighted, ``id="winner"``), then the scored nodes by total,
then the feasible nodes kube-scheduler did not score (it stops filtering once it has enough,
schedule_one.go ``numFeasibleNodesToFind``), then the rejected ones by name. Columns are the
node, its total, every filter plugin that rejected at least one node (a red cell carries the
plugin's reason in its ``title``: hover to read it), and every score plugin (its normalized
score, 0–100, shaded; the ``title`` spells raw → normalized × weight = final). Clicking a
column header sorts by it (again: reversed); ``#sort=<column>[:asc|:desc]`` in the URL sorts
on load (columns: ``node``, ``total``, a score plugin's name, ``filter:<plugin>``).

The table is written out in full by the server side, so the page reads without JavaScript and
stays usable at 5,000 nodes (one short cell per plugin, 11 shade classes instead of inline
colours).
"""

from __future__ import annotations

from html import escape

SHADES = 11  # classes h0..h10 for normalized scores 0-9, 10-19, ..., 100

_CSS = """
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px;margin:0 0 4px}
.meta{margin:0 0 10px}.meta b{font-weight:600}
.legend span{display:inline-block;padding:1px 6px;margin-right:4px;border:1px solid #ccc}
table{border-collapse:collapse;margin-top:10px}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:right;white-space:nowrap}
th{position:sticky;top:0;background:#f4f4f4;cursor:pointer;user-select:none}
th.sorted-asc::after{content:" \\25B2"}th.sorted-desc::after{content:" \\25BC"}
td.node,th.node{text-align:left}
tr.winner td{font-weight:700;outline:2px solid #1b7a1b}
tr.winner td.node::before{content:"\\2605 "}
.f{background:#e34a33;color:#fff}td.f{text-align:center}
.p{color:#1b7a1b}td.p{text-align:center}
.s{background:#eee;color:#888}.n{background:#fafafa;color:#aaa}
.x{background:#fdd}th small{display:block;font-weight:400;color:#777}
""" + "".join(
    f".h{i}{{background:hsl(210,80%,{96 - 4 * i}%)}}"
    for i in range(SHADES))

_JS = """
(function(){
  function setup(table){
    var heads=table.tHead.rows[0].cells,body=table.tBodies[0];
    function key(row,i){var c=row.cells[i],v=c.getAttribute('data-v');
      if(v===null)return c.textContent;var n=parseFloat(v);return isNaN(n)?v:n;}
    function sortBy(i,desc){
      var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){var x=key(a,i),y=key(b,i);
        if(x===y)return a.getAttribute('data-i')-b.getAttribute('data-i');
        var r=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y));
        return desc?-r:r;});
      var frag=document.createDocumentFragment();
      rows.forEach(function(r){frag.appendChild(r);});
      body.appendChild(frag);
      for(var j=0;j<heads.length;j++)heads[j].className=heads[j].className.replace(/ ?sorted-(asc|desc)/,'');
      heads[i].className+=(desc?' sorted-desc':' sorted-asc');
      table.setAttribute('data-sorted',heads[i].getAttribute('data-col')+(desc?':desc':':asc'));
    }
    function firstDesc(h){return h.getAttribute('data-num')==='1';}
    Array.prototype.forEach.call(heads,function(h,i){h.addEventListener('click',function(){
      var c=h.className;
      sortBy(i,c.indexOf('sorted-asc')>=0?true:c.indexOf('sorted-desc')>=0?false:firstDesc(h));});});
    var m=/[#&]sort=([^&:]+)(?::(asc|desc))?/.exec(location.hash);
    if(m)Array.prototype.forEach.call(heads,function(h,i){
      if(h.getAttribute('data-col')===decodeURIComponent(m[1]))sortBy(i,m[2]?m[2]==='desc':firstDesc(h));});
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.heatmap'),setup);
})();
"""


def _shade(normalized: int) -> int:
    return max(0, min(SHADES - 1, normalized * (SHADES - 1) // 100))


def _order(nodes: dict, winner: str | None) -> list[str]:
    def key(name: str):
        e = nodes[name]
        if name == winner:
            return (0, 0, name)
        if e.get("feasible") and e.get("total") is not None:
            return (1, -e["total"], name)
        if e.get("feasible"):
            return (2, 0, name)
        return (3, 0, name)
    return sorted(nodes, key=key)


def _section(expl: dict, first_section: bool) -> list[str]:
    nodes: dict = expl.get("nodes") or {}
    winner = expl.get("node") if expl.get("outcome") == "Scheduled" else None
    pod = expl.get("pod") or {}
    out = [f"<section><h1>Pod {escape(pod.get('namespace', ''))}/{escape(pod.get('name', ''))}</h1>",
           f'<p class="meta">outcome: <b class="outcome">{escape(str(expl.get("outcome")))}</b>']
    if expl.get("profile"):
        out.append(f" &middot; profile: {escape(expl['profile'])}")
    if winner:
        out.append(f' &middot; winner: <b class="winner-name">{escape(winner)}</b>')
    feasible = sum(1 for e in nodes.values() if e.get("feasible"))
    out.append(f" &middot; {len(nodes)} nodes, {feasible} feasible</p>")
    if expl.get("message"):
        out.append(f'<p class="meta message">{escape(expl["message"])}</p>')
    if not nodes:
        out.append("<p>No per-node verdicts: the scheduler did not evaluate nodes for this pod.</p>"
                   "</section>")
        return out
    failing: list[str] = []
    scoring: list[str] = []
    for e in nodes.values():
        for p, v in (e.get("filter") or {}).items():
            if v not in ("passed", "skipped") and p not in failing:
                failing.append(p)
        for p in e.get("score") or {}:
            if p not in scoring:
                scoring.append(p)
    rank: dict[str, int] = {}
    for e in nodes.values():  # the profile's filter order
        for p in e.get("filter") or {}:
            rank.setdefault(p, len(rank))
    failing.sort(key=lambda p: rank.get(p, len(rank)))
    ids = first_section
    out.append('<p class="legend">normalized score: <span class="h0">0</span><span class="h5">50'
               '</span><span class="h10">100</span> <span class="s">skipped</span>'
               '<span class="n">not scored</span> filter: <span class="p">&#10003;</span>'
               '<span class="f">&#10007; rejected (hover for the reason)</span></p>')
    table_id = ' id="heatmap"' if ids else ""
    out.append(f'<table class="heatmap"{table_id}><thead><tr><th class="node" data-col="node">'
               'node</th><th data-col="total" data-num="1">total</th>')
    for p in failing:
        out.append(f'<th data-col="filter:{escape(p)}" data-num="1">{escape(p)}'
                   '<small>filter</small></th>')
    for p in scoring:
        out.append(f'<th data-col="{escape(p)}" data-num="1">{escape(p)}<small>score</small></th>')
    out.append("</tr></thead><tbody>")
    for i, name in enumerate(_order(nodes, winner)):
        e = nodes[name]
        cls = (' class="winner"' + (' id="winner"' if ids else "")) if name == winner else ""
        cells = [f'<tr{cls} data-i="{i}" data-node="{escape(name)}"><td class="node">{escape(name)}</td>']
        total = e.get("total")
        if total is not None:
            cells.append(f'<td data-v="{total}">{total}</td>')
        elif e.get("feasible"):
            cells.append('<td class="n" data-v="-1">-</td>')
        else:
            cells.append('<td class="x" data-v="-2">&#10007;</td>')
        filt = e.get("filter") or {}
        for p in failing:
            v = filt.get(p, "passed")
            if v in ("passed", "skipped"):
                cells.append('<td class="p" data-v="0">&#10003;</td>')
            else:
                cells.append(f'<td class="f" data-v="1" title="{escape(v)}">&#10007;</td>')
        score = e.get("score") or {}
        for p in scoring:
            s = score.get(p)
            if s is None:
                cells.append('<td class="n" data-v="-1"></td>')
            elif s.get("skipped"):
                cells.append('<td class="s" data-v="-1" title="PreScore returned Skip">skip</td>')
            else:
                n = s["normalized"]
                cells.append(f'<td class="h{_shade(n)}" data-v="{n}" title="raw {s["raw"]} &#8594; '
                             f'{n} &#215; {s["weight"]} = {s["final"]}">{n}</td>')
        cells.append("</tr>")
        out.append("".join(cells))
    out.append("</tbody></table></section>")
    return out


def render(explanations: list[dict]) -> str:
    """The page for one or more explanations (several pods of ``-f``: one section each)."""
    pods = ", ".join(f"{(e.get('pod') or {}).get('namespace')}/{(e.get('pod') or {}).get('name')}"
                     for e in explanations)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>explain-schedule {escape(pods)}</title>", f"<style>{_CSS}</style></head><body>"]
    for i, e in enumerate(explanations):
        parts.extend(_section(e, first_section=i == 0))  # ids (heatmap, winner) are the first's
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts) + "\n"
