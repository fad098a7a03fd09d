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

/** The document's Markdown as sanitised HTML (a string), safe to set as innerHTML. */
export function renderMarkdown(text) {
  parser = parser || markdownParser();
  hookSanitizer();
  const html = parser.render(text || "");
  return DOMPurify.sanitize(html, { ADD_ATTR: ["target"], FORBID_TAGS: ["style", "form", "input"] });
}
