"""Go's text/tabwriter (and liggitt's fork, with ``RememberWidths``), the one tabwriter of kubesim.

Upstream: Go's ``src/text/tabwriter/tabwriter.go`` and ``github.com/liggitt/tabwriter``;
``staging/src/k8s.io/cli-runtime/pkg/printers/tabwriter.go`` (``GetNewTabWriter``): the table (and
``-o custom-columns``) goes through it with minwidth 6 (not 0: it shows with ``--no-headers``,
where a column of one-character cells is still 6 wide), tabwidth 4, padding 3, pad char
``' '``. :func:`tabwrite` re-implements the column-block algorithm (a column's width is set per
run of consecutive lines that have a cell in it; the text after a line's last tab is not part
of any column and is never padded; a form feed or a one-cell line flushes). ``describe`` uses it
with kubectl's describe settings (plain ``text/tabwriter``, minwidth 0, tabwidth 8, padding 2).
"""

from __future__ import annotations

import re

# kubectl's get tabwriter (cli-runtime/pkg/printers/tabwriter.go)
TABLE_MINWIDTH, TABLE_TABWIDTH, TABLE_PADDING = 6, 4, 3

# kubectl's get tabwriter (cli-runtime/pkg/printers/tabwriter.go)


_LINE_END = re.compile("[\f\n\r]")


def _cut_cell(cell: str) -> str:
    """tableprinter's appendCellValue: a cell stops at its first newline, marked with ``...``."""
    m = _LINE_END.search(cell)
    return cell if m is None else cell[:m.start()] + "..."


_CELL_END = re.compile("([\t\v\n\f])")


def tabwrite(text: str, minwidth: int = 0, tabwidth: int = 8, padding: int = 1,
             remember_widths: bool = False, remembered: list[int] | None = None) -> str:
    """Lay out ``text`` exactly as Go's ``text/tabwriter`` does with pad char ``' '`` and flags 0
    (kubectl describe), or, with ``remember_widths``, as ``github.com/liggitt/tabwriter`` with its
    ``RememberWidths`` flag (kubectl get: see :func:`table_tabwrite`).

    A tab or vertical tab ends a cell, a newline or form feed ends a line (a form feed prints as a
    newline). A column is as wide as its widest cell plus ``padding``, at least ``minwidth``, and
    only for the run of consecutive lines that have a cell in it; the text after a line's last
    tab is never padded; widths count code points. A form feed, or a line of one cell, flushes:
    later lines start new column blocks, which with ``remember_widths`` keep the widest width each
    column had before. ``remembered`` carries those widths from one call to the next, as one
    writer flushed several times does (``kubectl get -w`` flushes after each event).
    """
    del tabwidth  # only used by Go when padding with tabs
    out: list[str] = []
    if remembered is None and remember_widths:
        remembered = []
    lines: list[list[str]] = [[]]
    parts = _CELL_END.split(text)
    for i in range(1, len(parts), 2):
        line = lines[-1]
        line.append(parts[i - 1])
        end = parts[i]
        if end == "\n" or end == "\f":
            lines.append([])
            if end == "\f" or len(line) == 1:
                _tab_format(lines, 0, len(lines), [], remembered, minwidth, padding, out)
                lines = [[]]
    if parts[-1]:  # Flush terminates a last cell only if it is not empty
        lines[-1].append(parts[-1])
    _tab_format(lines, 0, len(lines), [], remembered, minwidth, padding, out)
    return "".join(out)


def _tab_format(lines: list[list[str]], line0: int, line1: int, widths: list[int],
                remembered: list[int] | None, minwidth: int, padding: int, out: list[str]) -> None:
    """Writer.format: find the column blocks of ``lines[line0:line1]`` and write them."""
    column = len(widths)
    this = line0
    while this < line1:
        if column >= len(lines[this]) - 1:
            this += 1
            continue
        # a column block starts here: the lines below that also have a cell in this column
        _tab_write_lines(lines, line0, this, widths, out)
        line0 = this
        width = minwidth
        while this < line1 and column < len(lines[this]) - 1:
            width = max(width, len(lines[this][column]) + padding)
            this += 1
        if remembered is not None:
            width = _remember_width(remembered, column, width, widths)
        _tab_format(lines, line0, this, widths + [width], remembered, minwidth, padding, out)
        line0 = this
    _tab_write_lines(lines, line0, line1, widths, out)


def _remember_width(remembered: list[int], column: int, width: int, widths: list[int]) -> int:
    """RememberWidths: a column keeps its widest earlier width (``remembered``, across calls,
    filled from ``widths`` where it is shorter); the width to use now."""
    if len(remembered) < column:
        remembered.extend(widths[len(remembered):])
    if len(remembered) == column:
        remembered.append(width)
    elif remembered[column] > width:
        width = remembered[column]
    else:
        remembered[column] = width
    return width


def _tab_write_lines(lines: list[list[str]], line0: int, line1: int, widths: list[int],
                     out: list[str]) -> None:
    last = len(lines) - 1
    for i in range(line0, line1):
        for j, cell in enumerate(lines[i]):
            out.append(cell)
            if j < len(widths):
                out.append(" " * (widths[j] - len(cell)))
        if i < last:
            out.append("\n")


def table_tabwrite(text: str, remembered: list[int] | None = None) -> str:
    """The writer kubectl get prints tables and custom columns through: cli-runtime's
    ``printers.GetNewTabWriter``, liggitt/tabwriter(6, 4, 3, ' ', RememberWidths); pass the same
    ``remembered`` list to each flush of one writer."""
    return tabwrite(text, TABLE_MINWIDTH, TABLE_TABWIDTH, TABLE_PADDING, remember_widths=True,
                    remembered=remembered)


def format_cells(rows: list[list[str]], remembered: list[int] | None = None) -> str:
    """kubectl get's layout of header + rows (:func:`table_tabwrite`), one newline per row."""
    if not rows:
        return ""
    try:
        text = "\t".join(["\t".join(r) for r in rows])
    except TypeError:  # a cell that is not a string yet
        text = None
    if text is not None and _LINE_END.search(text) is None:
        lines = rows  # (no cell to cut: the usual table, laid out without copying it)
    else:
        cut = _cut_cell
        lines = [[cut(c if type(c) is str else str(c)) for c in row] for row in rows]
        text = None
    return _uniform(lines, remembered, text) or \
        table_tabwrite("".join("\t".join(r) + "\n" for r in lines), remembered)


def _uniform(lines: list[list[str]], remembered: list[int] | None, text: str | None = None) -> str:
    """:func:`table_tabwrite` of rows that all have the same number of cells (two or more),
    none holding a tab or vertical tab (a table's usual shape), in one pass per column: then
    every column but the last is one block over all the lines, as wide as its widest cell
    plus the padding (at least the minimum width, and what ``remembered`` kept), and the last
    cells are never padded. "" when the rows have another shape (the general writer lays
    them out). ``text``: the cells joined by tabs, when the caller has it already."""
    n = len(lines[0])
    if n < 2 or any(len(r) != n for r in lines):
        return ""
    if text is None:
        text = "\t".join("\t".join(r) for r in lines)
    if "\v" in text or text.count("\t") != len(lines) * n - 1:
        return ""
    widths = []
    for j, column in enumerate(zip(*lines)):
        if j == n - 1:
            break
        width = max(TABLE_MINWIDTH, max(map(len, column)) + TABLE_PADDING)
        if remembered is not None:
            width = _remember_width(remembered, j, width, widths)
        widths.append(width)
    return "".join("".join([*(c.ljust(w) for c, w in zip(r, widths)), r[-1], "\n"]) for r in lines)
