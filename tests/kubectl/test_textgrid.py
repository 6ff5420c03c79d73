"""The measured grid explain-schedule lays out its tables with, and the terminal's width."""

from __future__ import annotations

import io

import pytest

from kubesim.cli.main import Environment
from kubesim.kubectl.cmd.explain_schedule import terminal_width
from kubesim.kubectl.textgrid import Column, Grid, thousands, wrap_items


def test_a_grid_pads_to_its_widest_cell_and_right_aligns_numbers():
    g = Grid([Column(["NODE"]), Column(["TOTAL"], right=True), Column([""])])
    g.add("node01", "495", "← chosen")
    g.add("controlplane", "7", "")
    assert g.lines(color=False) == [
        " NODE           TOTAL",
        " " + "─" * (12 + 3 + 5 + 3 + 8),  # the columns and the spaces between them
        " node01           495   ← chosen",
        " controlplane       7",
    ]
    assert g.width() == len(g.lines(color=False)[1])


def test_a_header_may_have_several_lines():
    g = Grid([Column(["TaintToleration", "(PodToleratesNodeTaints)"]), Column(["FEASIBLE"])])
    g.add("✓", "yes")
    assert g.lines(color=False)[:2] == [" TaintToleration            FEASIBLE",
                                        " (PodToleratesNodeTaints)"]


def test_colour_is_applied_after_padding_and_text_is_escaped():
    g = Grid([Column(["A"]), Column(["B"])])
    g.add(("[x]", "red"), "y")
    line = g.lines(color=True)[2]
    assert line == r" [red]\[x][/red]   y"


@pytest.mark.parametrize("prefix,items,width,expected", [
    pytest.param("P: ", ["a", "b", "c"], 80, ["P: a, b, c"], id="items that fit stay on one line"),
    pytest.param("P: ", ["aaaa", "bbbb", "cccc"], 11, ["P: aaaa,", "  bbbb,", "  cccc"],
                 id="lines break between items, never inside one"),
    pytest.param("A long prefix: ", ["x" * 70], 80, ["A long prefix:", "  " + "x" * 70],
                 id="a first item that does not fit after the prefix goes to the next line"),
])
def test_wrap_items(prefix, items, width, expected):
    assert wrap_items(prefix, items, width) == expected


def test_thousands():
    assert [thousands(n) for n in (7, 4812, 1234567)] == ["7", "4,812", "1,234,567"]


@pytest.mark.parametrize("columns,expected", [
    pytest.param("120", 120, id="COLUMNS wins"),
    pytest.param("", 80, id="piped and no COLUMNS: 80"),
    pytest.param("0", 80, id="a zero COLUMNS is ignored"),
    pytest.param("wide", 80, id="a COLUMNS that is not a number is ignored"),
])
def test_terminal_width(columns, expected):
    env = Environment(stdout=io.StringIO(), vars={"COLUMNS": columns} if columns else {})
    assert terminal_width(env) == expected
