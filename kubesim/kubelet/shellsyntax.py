"""The shell-script reader's grammar: a script's words and operators, parsed into a tree.

kubesim reads ``sh -c`` / ``bash -c`` scripts to predict what a container does
(kubesim.kubelet.shell runs the tree in simulated time). The grammar is the subset of the POSIX
Shell Command Language (IEEE Std 1003.1, XCU chapter 2.9, "Shell Commands") that container
commands use; anything else is read as words of a simple command. The tree is nested tuples:

- ``("list", [node, ...])``: commands separated by ``;``, ``&`` or newlines;
- ``("&&", left, right)``, ``("||", left, right)``: AND and OR lists;
- ``("pipe", [node, ...])``: a pipeline;
- ``("while" | "until", condition, body)``, ``("for", name, words, body)``;
- ``("if", [(condition, body), ...], else_body or None)``;
- ``("group", body)``: ``{ ...; }`` or ``( ... )``;
- ``("cmd", words, redirect)``: a simple command, ``redirect`` None or (``>``|``>>``, target).
"""

from __future__ import annotations

import re
import shlex


def tokenize(script: str) -> list[str]:
    """Words and operators of a script, as shlex splits them: redirections to /dev/null and
    between descriptors are dropped, newlines end commands, comments are skipped."""
    script = re.sub(r"\d?>&\d", " ", script)
    script = re.sub(r"\d?>\s*/dev/null", " ", script)
    script = script.replace("\r", "")
    # a command substitution is part of its word: its blanks and operators do not split it
    script = re.sub(r"\$\(([^()]*)\)", lambda m: "$(" + m.group(1).translate(_HIDE) + ")", script)
    lex = shlex.shlex(script.replace("\n", " ; "), posix=True, punctuation_chars=";&|<>")
    lex.whitespace_split = True
    lex.commenters = "#"
    try:
        tokens = list(lex)
    except ValueError:
        tokens = script.replace("\n", " ; ").split()
    return [t.translate(_SHOW) for t in tokens]


_HIDDEN = " \t;&|<>"
_HIDE = str.maketrans(_HIDDEN, "".join(chr(0xE000 + i) for i in range(len(_HIDDEN))))
_SHOW = str.maketrans("".join(chr(0xE000 + i) for i in range(len(_HIDDEN))), _HIDDEN)


def parse_script(script: str) -> tuple:
    """The tree of ``script``."""
    return _Parser(tokenize(script)).parse_list(())


class _Parser:
    """Recursive descent over the tokens; ``stops`` are the reserved words that end the
    construct being read."""

    def __init__(self, tokens: list[str]):
        self.tokens, self.position = tokens, 0

    def peek(self):
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self):
        tok = self.peek()
        self.position += 1
        return tok

    def parse_list(self, stops):
        items = []
        while True:
            while self.peek() in (";", "&", ";;"):
                self.take()
            tok = self.peek()
            if tok is None or tok in stops:
                break
            items.append(self.parse_and_or(stops))
        return ("list", items)

    def parse_and_or(self, stops):
        left = self.parse_pipeline(stops)
        while self.peek() in ("&&", "||"):
            op = self.take()
            right = self.parse_pipeline(stops)
            left = (op, left, right)
        return left

    def parse_pipeline(self, stops):
        cmds = [self.parse_command(stops)]
        while self.peek() == "|":
            self.take()
            cmds.append(self.parse_command(stops))
        return cmds[0] if len(cmds) == 1 else ("pipe", cmds)

    def parse_command(self, stops):
        tok = self.peek()
        if tok in ("while", "until"):
            self.take()
            cond = self.parse_list(("do",))
            self.take()
            body = self.parse_list(("done",))
            self.take()
            return (tok, cond, body)
        if tok == "for":
            self.take()
            var = self.take()
            words = []
            if self.peek() == "in":
                self.take()
                while self.peek() not in (";", "do", None):
                    words.append(self.take())
            while self.peek() == ";":
                self.take()
            self.take()  # do
            body = self.parse_list(("done",))
            self.take()
            return ("for", var, words, body)
        if tok == "if":
            self.take()
            branches = []
            cond = self.parse_list(("then",))
            self.take()
            body = self.parse_list(("elif", "else", "fi"))
            branches.append((cond, body))
            other = None
            while True:
                keyword = self.take()
                if keyword == "elif":
                    elif_cond = self.parse_list(("then",))
                    self.take()
                    elif_body = self.parse_list(("elif", "else", "fi"))
                    branches.append((elif_cond, elif_body))
                elif keyword == "else":
                    other = self.parse_list(("fi",))
                else:
                    break
            return ("if", branches, other)
        if tok in ("{", "("):
            self.take()
            body = self.parse_list(("}", ")"))
            self.take()
            return ("group", body)
        words, redirect = [], None
        while True:
            tok = self.peek()
            if tok is None or tok in (";", "&", "&&", "||", "|", ";;") or (tok in stops and not words):
                break
            if tok in stops and tok in ("done", "fi", "then", "do", "else", "elif", "}", ")"):
                break
            self.take()
            if tok in (">", ">>"):
                redirect = (tok, self.take())
                continue
            if tok == "<":
                self.take()
                continue
            words.append(tok)
        return ("cmd", words, redirect)

