"""A plain-text grid that is measured before it is drawn, so a view can try layouts until one
fits the terminal: columns are never wrapped or cut, a cell stays on one line.

kubectl's own tables (``k8s.io/cli-runtime/pkg/printers/tabwriter.go``) pad columns the same
way: the widest cell decides, three spaces between columns. Here a header may have several
lines and a rule line under it (the look of Rich's SIMPLE_HEAD box that explain-schedule used
before), and cells may carry a Rich style that is applied after padding, so the width of a
coloured line is that of its plain text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SEP = "   "
INDENT = " "


@dataclass
class Column:
    head: list[str]
    right: bool = False


@dataclass
class Grid:
    columns: list[Column]
    rows: list[list[tuple[str, str]]] = field(default_factory=list)
    keyed: bool = False  # the view's own flag: cells show keys to a list of long texts

    def add(self, *cells: str | tuple[str, str]) -> None:
        self.rows.append([c if isinstance(c, tuple) else (c, "") for c in cells])

    def widths(self) -> list[int]:
        out = [max((len(h) for h in c.head), default=0) for c in self.columns]
        for row in self.rows:
            for i, (text, _) in enumerate(row):
                out[i] = max(out[i], len(text))
        return out

    def width(self) -> int:
        w = self.widths()
        return len(INDENT) + sum(w) + len(SEP) * (len(w) - 1)

    def lines(self, color: bool) -> list[str]:
        """The drawn grid, as Rich markup (escaped) when ``color``, else plain text."""
        from rich.markup import escape

        w = self.widths()
        depth = max(len(c.head) for c in self.columns)
        out = []
        for k in range(depth):
            cells = []
            for i, c in enumerate(self.columns):
                text = c.head[k] if k < len(c.head) else ""
                cells.append(_pad(escape(text) if color else text, len(text), w[i], c.right))
            line = INDENT + SEP.join(cells)
            out.append(f"[bold]{line}[/bold]" if color else line)
        out.append(INDENT + "─" * (sum(w) + len(SEP) * (len(w) - 1)))
        for row in self.rows:
            cells = []
            for i, (text, style) in enumerate(row):
                shown = escape(text) if color else text
                if color and style and text:
                    shown = f"[{style}]{shown}[/{style}]"
                cells.append(_pad(shown, len(text), w[i], self.columns[i].right))
            out.append(INDENT + SEP.join(cells))
        return [line.rstrip() for line in out]


def _pad(shown: str, length: int, width: int, right: bool) -> str:
    fill = " " * (width - length)
    return fill + shown if right else shown + fill


def wrap_items(prefix: str, items: list[str], width: int, sep: str = ", ", indent: str = "  ") -> list[str]:
    """``prefix`` then the items, broken into lines between items (never inside one) so that a
    line fits ``width`` when its items do."""
    lines: list[str] = []
    line = prefix
    fresh = True
    for i, item in enumerate(items):
        piece = item + (sep.rstrip() if i < len(items) - 1 else "")
        glue = "" if fresh else " "
        if len(line) + len(glue) + len(piece) > width and (not fresh or (not lines and line.strip())):
            lines.append(line.rstrip())
            line, glue = indent, ""
        line += glue + piece
        fresh = False
    lines.append(line)
    return lines


def thousands(n: int) -> str:
    return f"{n:,}"
