// Code blocks highlighted: a fenced block that names its language (```python)
// is coloured by highlight.js, loaded from panel-highlight.js beside this
// library only when a block first needs it (most documents have none). The
// highlighter sets only text and <span class="hljs-…"> (panel.css colours
// them; the page's CSP refuses style attributes); a block of a language it
// does not know is left as plain text.
const NAMED = "pre > code[class*='language-']";
let highlighter = null;

/** Highlights the named code blocks inside `elements` (just rendered), once the highlighter is loaded. */
export function highlightCode(elements) {
  const blocks = [];
  for (const element of elements) blocks.push(...element.querySelectorAll(NAMED));
  if (!blocks.length) return;
  highlighter = highlighter || import("./panel-highlight.js");
  highlighter.then(
    ({ highlightBlock }) => blocks.forEach(highlightBlock),
    (error) => console.error("code is shown without highlighting:", error),
  );
}
