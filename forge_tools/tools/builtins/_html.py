"""HTML to readable text or markdown for webfetch, through one BeautifulSoup parse.

Kept apart so listing tools imports neither bs4 nor markdownify; both load when a page is fetched.
The page is parsed by a real HTML parser (comments, `<script>` inside comments, unclosed tags and
stray `</p>` are the parser's business), invisible parts are removed from the tree, and the text or
markdown is produced from what is left.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, Comment, Doctype, ProcessingInstruction

#: elements whose content is never reading text
DROP_TAGS = ("script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "head")
#: elements that start a new line in text mode
BLOCK_TAGS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section",
                        "article", "header", "footer", "pre", "blockquote", "table", "ul", "ol", "hr",
                        "dl", "dt", "dd", "main", "nav", "aside", "figure", "figcaption", "form"})


def readable_soup(html: str) -> BeautifulSoup:
    """The parsed page without invisible elements, comments, doctypes or processing instructions."""
    soup = BeautifulSoup(html, "html.parser")
    for element in soup.find_all(DROP_TAGS):
        element.decompose()
    for node in soup.find_all(string=lambda s: isinstance(s, Comment | Doctype | ProcessingInstruction)):
        node.extract()
    return soup


def _collapse(text: str, *, squeeze_spaces: bool) -> str:
    """Strip each line (squeezing inner whitespace in text mode); runs of blank lines become one."""
    out: list[str] = []
    for raw in text.split("\n"):
        line = " ".join(raw.split()) if squeeze_spaces else raw.rstrip()
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def html_to_text(html: str) -> str:
    """The page's reading text, one line per block element."""
    soup = readable_soup(html)
    for element in soup.find_all(BLOCK_TAGS):
        element.insert_before("\n")
        element.insert_after("\n")
    return _collapse(soup.get_text(), squeeze_spaces=True)


def html_to_markdown(html: str) -> str:
    """Markdown (ATX headings) of the page, runs of blank lines collapsed."""
    from markdownify import MarkdownConverter

    markdown: str = MarkdownConverter(heading_style="ATX").convert_soup(readable_soup(html))
    return _collapse(markdown, squeeze_spaces=False)
