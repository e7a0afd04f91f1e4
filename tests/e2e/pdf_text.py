"""The text of a PDF that Chromium printed (``page.pdf()``), page by page, with no dependency.

Chromium's PDFs (Skia) are simple: uncompressed object dictionaries, each page's content one
Flate stream, each font a Type0 font with a ``ToUnicode`` map. Every text run (``BT`` ... ``ET``)
becomes a line; a run may stop inside a word (Skia splits runs at kerning), so compare text
with :func:`squeeze`, which drops all white space. This reads Chromium's output and nothing
else: a PDF from another producer (object streams, other encodings) raises ``ValueError``.
"""

from __future__ import annotations

import re
import unicodedata
import zlib

PAGE = re.compile(rb"/Type\s*/Page(?!s)")


def _objects(pdf: bytes) -> dict[int, bytes]:
    return {int(m[1]): m[2] for m in re.finditer(rb"(\d+) 0 obj\s*(.*?)\s*endobj", pdf, re.S)}


def _stream(obj: bytes) -> bytes:
    found = re.search(rb"stream\r?\n(.*?)\r?\nendstream", obj, re.S)
    if found is None:
        raise ValueError("an object without the stream it should have")
    return zlib.decompress(found[1]) if b"/FlateDecode" in obj else found[1]


def _unicode_map(cmap: bytes) -> dict[int, str]:
    """A font's glyph codes to text, from its ToUnicode CMap (bfchar and bfrange)."""
    out: dict[int, str] = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
        for code, text in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            out[int(code, 16)] = bytes.fromhex(text.decode()).decode("utf-16-be")
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
        ranges = re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block)
        for low, high, first in ranges:
            for offset, code in enumerate(range(int(low, 16), int(high, 16) + 1)):
                out[code] = chr(int(first, 16) + offset)
    return out


def pdf_pages(pdf: bytes) -> list[str]:
    """Each page's text, in the order the pages are stored (Chromium stores them in order)."""
    if not pdf.startswith(b"%PDF-"):
        raise ValueError("not a PDF")
    objects = _objects(pdf)
    pages = []
    for obj in objects.values():
        if not PAGE.search(obj):
            continue
        fonts = {}
        table = re.search(rb"/Font\s*<<(.*?)>>", obj, re.S)
        for name, ref in re.findall(rb"/(\w+)\s+(\d+) 0 R", table[1] if table else b""):
            to_unicode = re.search(rb"/ToUnicode\s+(\d+) 0 R", objects[int(ref)])
            if to_unicode is None:
                raise ValueError("a font without a ToUnicode map")
            fonts[name] = _unicode_map(_stream(objects[int(to_unicode[1])]))
        contents = re.search(rb"/Contents\s+(\d+) 0 R", obj)
        if contents is None:
            raise ValueError("a page without one content stream")
        lines: list[str] = []
        for run in re.findall(rb"BT(.*?)ET", _stream(objects[int(contents[1])]), re.S):
            font: dict[int, str] = {}
            text = []
            for token in re.finditer(rb"/(\w+)\s+[\d.]+\s+Tf|<([0-9A-Fa-f]*)>", run):
                if token[1]:
                    font = fonts[token[1]]
                    continue
                codes = bytes.fromhex(token[2].decode())
                for i in range(0, len(codes), 2):
                    text.append(font.get(int.from_bytes(codes[i : i + 2], "big"), "\ufffd"))
            lines.append("".join(text))
        pages.append("\n".join(lines))
    if not pages:
        raise ValueError("no page found: not a PDF as Chromium writes it")
    return pages


def squeeze(text: str) -> str:
    """Text to compare: ligatures as letters (NFKC), no white space at all."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))
