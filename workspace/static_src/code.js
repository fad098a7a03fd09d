// Code blocks highlighted: a fenced block that names its language (```python)
// is coloured by highlight.js, loaded from panel-highlight.js beside this
// library only when a block first needs it (most documents have none), as
// each block comes near the view. The
// highlighter sets only text and <span class="hljs-…"> (panel.css colours
// them; the page's CSP refuses style attributes); a block of a language it
// does not know is left as plain text.
const NAMED = "pre > code[class*='language-']";
const NEAR = "1000px 0px";  // how far outside the view a block is highlighted ahead of the scroll
let highlighter = null;
let watcher = null;

/**
 * Highlights the named code blocks inside `elements` (just rendered), once
 * the highlighter is loaded and each block comes near the view: a 1 MB
 * document of a thousand blocks costs only those a person scrolls to.
 */
export function highlightCode(elements) {
  const blocks = [];
  for (const element of elements) blocks.push(...element.querySelectorAll(NAMED));
  if (!blocks.length) return;
  highlighter = highlighter || import("./panel-highlight.js");
  highlighter.then(
    ({ highlightBlock }) => {
      watcher = watcher || new IntersectionObserver((entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting && entry.target.isConnected) continue;
          watcher.unobserve(entry.target);  // highlighted now, or gone from the page
          highlightBlock(entry.target);
        }
      }, { rootMargin: NEAR });
      blocks.forEach((block) => watcher.observe(block));
    },
    (error) => console.error("code is shown without highlighting:", error),
  );
}
