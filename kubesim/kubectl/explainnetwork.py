"""explain-network's views: a NetworkExplanation (kubesim.network.path's hops) as a Rich table
on a terminal, plain text when piped, or JSON.
"""

from __future__ import annotations

MARK = {"pass": "✓", "fail": "✗", "info": "·"}
OUTCOME = {
    "connected": "connected", "refused": "connection refused", "timeout": "timed out (packets dropped)",
    "unresolved": "name does not resolve (NXDOMAIN)", "dns-timeout": "DNS query timed out",
    "dns-refused": "DNS query refused (no DNS endpoints)",
}


def target(exp: dict) -> str:
    d = exp.get("destination") or {}
    return f"{d.get('host')}:{d.get('port')}/{d.get('protocol')}"


def render(exp: dict, *, color: bool, width: int = 100) -> str:
    import io

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, color_system="standard" if color else None,
                      width=width, no_color=not color, highlight=False, soft_wrap=True)
    s, d = exp.get("source") or {}, exp.get("destination") or {}
    outcome = exp.get("outcome", "")
    style = "bold green" if outcome == "connected" else "bold red"
    word = OUTCOME.get(outcome, outcome)
    console.print(f"From pod {s.get('namespace')}/{s.get('name')} ({s.get('ip') or 'no IP'}) to {escape(target(exp))}   "
                  + (f"outcome: [{style}]{word}[/{style}]" if color else f"outcome: {word}"))
    if d.get("address") and d.get("address") != d.get("host"):
        console.print(f"Address: {d['address']}" + (f"   backend: {d['backend']}" if d.get("backend") else ""))
    elif d.get("backend") and d.get("backend") != f"{d.get('address')}:{d.get('port')}":
        console.print(f"Backend: {d['backend']}")
    table = Table(show_header=True, header_style="bold" if color else None, box=None, pad_edge=False)
    table.add_column("HOP")
    table.add_column("")
    table.add_column("POLICY")
    table.add_column("DETAIL", overflow="fold")
    for h in exp.get("hops") or ():
        mark = MARK.get(h.get("verdict"), "")
        if color:
            mark = {"pass": "[green]✓[/green]", "fail": "[red]✗[/red]"}.get(h.get("verdict"), mark)
        table.add_row(h.get("step", ""), mark, escape(h.get("policy", "") or "-"), escape(h.get("detail", "")))
    console.print(table)
    text = buf.getvalue()
    if color:
        return text
    return "\n".join(line.rstrip() for line in text.split("\n"))
