// Markdown to safe HTML for the panel (docs/panel.md).
//
// Documents are written by agents and untrusted. markdown-it runs with raw
// HTML off (it shows as text); a link is a link only for http:, https: and
// mailto: (anything else stays as its source text); links open in a new tab
// with rel="noopener noreferrer nofollow"; an image is loaded only from the
// page's own origin, any other is shown as a link to it and never requested.
// A table column's alignment is a class (align-left, -center, -right, styled
// by panel.css), never a style attribute, which the page's CSP refuses.
// Text nested deeper than markdown-it's maxNesting, which it would drop, is
// shown as its source, with a notice. Task list items show a checkbox that
// cannot be changed (tasklists.js). DOMPurify then sanitises the HTML
// markdown-it produced, as a second wall (and drops any style attribute).
import MarkdownIt from "markdown-it";
import DOMPurify from "dompurify";
import { taskLists } from "./tasklists.js";

const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
const LINK_REL = "noopener noreferrer nofollow";
const ALIGNMENT = /^text-align:(left|center|right)$/;

function pageOrigin() {
  return globalThis.location ? globalThis.location.origin : "null";
}

function parseUrl(url) {
  try {
    return new URL(url, globalThis.location ? globalThis.location.href : undefined);
  } catch {
    return null;
  }
}

/** True when `url` may be a link: http:, https: or mailto: (relative URLs resolve to the page's). */
export function isSafeLink(url) {
  const parsed = parseUrl(url);
  return parsed !== null && LINK_PROTOCOLS.has(parsed.protocol);
}

/** True when the image at `url` may be loaded: it is on the page's own origin. */
export function isSameOriginImage(url) {
  const parsed = parseUrl(url);
  return parsed !== null && (parsed.protocol === "http:" || parsed.protocol === "https:") &&
    parsed.origin === pageOrigin();
}

/** Table cells' alignment as a class instead of markdown-it's style attribute. */
function alignCellsByClass(md) {
  for (const name of ["th_open", "td_open"]) {
    md.renderer.rules[name] = (tokens, index, options, env, self) => {
      const token = tokens[index];
      const alignment = ALIGNMENT.exec(token.attrGet("style") || "");
      if (token.attrs) token.attrs = token.attrs.filter(([attribute]) => attribute !== "style");
      if (alignment) token.attrJoin("class", `align-${alignment[1]}`);
      return self.renderToken(tokens, index, options);
    };
  }
}

/**
 * Sets env.nestedTooDeep when a block holds text nested deeper than
 * maxNesting: markdown-it's block parser skips such text without a word
 * (its tokenize stops at that level), so the caller shows the source instead.
 */
function noticeTooDeep(md) {
  const tokenize = md.block.tokenize.bind(md.block);
  md.block.tokenize = (state, startLine, endLine) => {
    if (state.level >= md.options.maxNesting) {
      const line = state.skipEmptyLines(startLine);
      if (line < endLine && state.sCount[line] >= state.blkIndent) state.env.nestedTooDeep = true;
    }
    tokenize(state, startLine, endLine);
  };
}

function markdownParser() {
  const md = new MarkdownIt({ html: false, linkify: true });
  alignCellsByClass(md);
  noticeTooDeep(md);
  taskLists(md);
  // Also used for images: an image that may not be a link is text, as a bad link is.
  md.validateLink = isSafeLink;
  const renderToken = (tokens, index, options, env, self) => self.renderToken(tokens, index, options);
  const linkOpen = md.renderer.rules.link_open || renderToken;
  md.renderer.rules.link_open = (tokens, index, options, env, self) => {
    tokens[index].attrSet("rel", LINK_REL);
    tokens[index].attrSet("target", "_blank");
    return linkOpen(tokens, index, options, env, self);
  };
  const image = md.renderer.rules.image;
  md.renderer.rules.image = (tokens, index, options, env, self) => {
    const token = tokens[index];
    const src = token.attrGet("src") || "";
    if (isSameOriginImage(src)) return image(tokens, index, options, env, self);
    const alt = self.renderInlineAsText(token.children || [], options, env) || src;
    const href = md.utils.escapeHtml(src);
    return `<a href="${href}" rel="${LINK_REL}" target="_blank" class="external-image">${md.utils.escapeHtml(alt)}</a>`;
  };
  return md;
}

let parser = null;
let hooked = false;

function hookSanitizer() {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      if (!isSafeLink(node.getAttribute("href") || "")) node.removeAttribute("href");
      node.setAttribute("rel", LINK_REL);
      node.setAttribute("target", "_blank");
    }
    if (node.tagName === "IMG" && !isSameOriginImage(node.getAttribute("src") || "")) {
      node.removeAttribute("src");
    }
    if (node.tagName === "INPUT") {  // only a task list's box (tasklists.js), which cannot be changed
      if (node.getAttribute("type") !== "checkbox") node.remove();
      else for (const name of [...node.getAttributeNames()]) {
        if (!["type", "checked", "disabled"].includes(name)) node.removeAttribute(name);
      }
      node.setAttribute("disabled", "");
    }
  });
}

/**
 * The reference-style link definitions in `definitions` (Markdown holding
 * them, as blocks.js's referenceDefinitions gives), parsed by markdown-it
 * with its own rules (a destination that may not be a link is dropped), as
 * renderMarkdown's `references` takes them.
 */
export function markdownReferences(definitions) {
  parser = parser || markdownParser();
  const env = {};
  if (definitions) parser.parse(definitions, env);
  return env.references || {};
}

const SANITIZE = { ADD_ATTR: ["target"], FORBID_TAGS: ["style", "form", "button", "select", "textarea"],
  FORBID_ATTR: ["style"] };

function environment(references) {
  return references ? { references: { ...references } } : {};
}

/** `source` as HTML, before sanitising: rendered, or (nested too deep to render) its source text with a notice. */
function renderSource(source, references) {
  const env = environment(references);
  const tokens = parser.parse(source, env);
  if (!env.nestedTooDeep) return parser.renderer.render(tokens, parser.options, env);
  const escape = parser.utils.escapeHtml;
  const notice = `Not rendered: this part is nested more than ${parser.options.maxNesting} levels deep, ` +
    "deeper than the panel renders. Its source is shown instead.";
  return `<p class="unrendered-notice" role="note">${escape(notice)}</p><pre class="unrendered">${escape(source)}</pre>`;
}

/**
 * The document's Markdown as sanitised HTML (a string), safe to set as
 * innerHTML. `references` (from markdownReferences) resolves reference-style
 * links whose definition is not in `text`: a part of a document rendered on
 * its own still finds the definitions made elsewhere in it.
 */
export function renderMarkdown(text, references = null) {
  parser = parser || markdownParser();
  hookSanitizer();
  return DOMPurify.sanitize(renderSource(text || "", references), SANITIZE);
}

function blockElement(html) {
  const element = document.createElement("div");
  element.className = "md-block";
  element.innerHTML = html;
  return element;
}

/**
 * Each of `sources` (parts of one document) rendered as renderMarkdown
 * renders it, into its own <div class="md-block">, all sanitised in one pass
 * (sanitising is most of the cost of a small part). Returns the elements, in
 * order, not yet in the page.
 */
export function renderMarkdownBlocks(sources, references = null) {
  parser = parser || markdownParser();
  hookSanitizer();
  const html = sources.map((source) => `<div class="md-block">${renderSource(source, references)}</div>`);
  const blocks = [...DOMPurify.sanitize(html.join(""), { ...SANITIZE, RETURN_DOM_FRAGMENT: true }).children];
  const intact = blocks.length === sources.length &&
    blocks.every((block) => block.tagName === "DIV" && block.className === "md-block");
  // markdown-it escapes raw HTML, so a part cannot close its <div>; were it ever to, each is sanitised alone.
  return intact ? blocks : sources.map((source) => blockElement(renderMarkdown(source, references)));
}
