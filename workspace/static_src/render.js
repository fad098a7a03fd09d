// Markdown to safe HTML for the panel (SPEC 8.1).
//
// Documents are written by agents and untrusted. markdown-it runs with raw
// HTML off (it shows as text); a link is a link only for http:, https: and
// mailto: (anything else stays as its source text); links open in a new tab
// with rel="noopener noreferrer nofollow"; an image is loaded only from the
// page's own origin, any other is shown as a link to it and never requested.
// DOMPurify then sanitises the HTML markdown-it produced, as a second wall.
import MarkdownIt from "markdown-it";
import DOMPurify from "dompurify";

const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
const LINK_REL = "noopener noreferrer nofollow";

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

function markdownParser() {
  const md = new MarkdownIt({ html: false, linkify: true });
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

const SANITIZE = { ADD_ATTR: ["target"], FORBID_TAGS: ["style", "form", "input"] };

function environment(references) {
  return references ? { references: { ...references } } : {};
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
  const html = parser.render(text || "", environment(references));
  return DOMPurify.sanitize(html, SANITIZE);
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
  const html = sources.map((source) => `<div class="md-block">${parser.render(source, environment(references))}</div>`);
  const blocks = [...DOMPurify.sanitize(html.join(""), { ...SANITIZE, RETURN_DOM_FRAGMENT: true }).children];
  const intact = blocks.length === sources.length &&
    blocks.every((block) => block.tagName === "DIV" && block.className === "md-block");
  // markdown-it escapes raw HTML, so a part cannot close its <div>; were it ever to, each is sanitised alone.
  return intact ? blocks : sources.map((source) => blockElement(renderMarkdown(source, references)));
}
