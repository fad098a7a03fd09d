// workspace/static/workspace/panel-highlight.js: highlight.js with the
// languages documents use most, loaded by code.js when a block needs it.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

for (const [name, language] of Object.entries({ bash, css, diff, javascript, json, python, sql, typescript, xml,
  yaml })) {
  hljs.registerLanguage(name, language);
}
// Each name's aliases (js, py, sh, html, yml…) come with its language.
hljs.configure({ ignoreUnescapedHTML: true, throwUnescapedHTML: false });

const MAX_CHARS = 100_000;  // a longer block stays plain: highlighting is not worth a stalled page

/** Colours one <code class="language-…"> block (from its text) if its language is one of these. */
export function highlightBlock(code) {
  if (!code.isConnected || code.dataset.highlighted || code.textContent.length > MAX_CHARS) return;
  const name = [...code.classList].find((cls) => cls.startsWith("language-"))?.slice("language-".length);
  if (!name || !hljs.getLanguage(name)) return;
  const { value } = hljs.highlight(code.textContent, { language: name, ignoreIllegals: true });
  code.innerHTML = value;  // highlight.js escapes the text; it adds only <span class="hljs-…">
  code.classList.add("hljs");
  code.dataset.highlighted = "yes";
}
