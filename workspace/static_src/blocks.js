// The document's Markdown cut into top-level blocks, so that the panel can
// render each block on its own and re-render only the blocks a change touches
// (see incremental.js).
//
// A block ends at a blank line outside a fenced code block, unless the next
// line is indented (a list item's continuation, an indented code block): those
// stay with the block before them. A blank line between list items or quote
// lines does separate blocks; incremental.js renumbers an ordered list that
// continues in the next block. Reference-style link definitions are collected
// for the whole document, since a block may use a label defined in another.

const FENCE = /^( *)(`{3,}|~{3,})(.*)$/;
const BLANK = /^[ \t]*$/;
const INDENTED = /^(?: {2}|\t)/;
// `[label]: destination` (optionally a title) on one line; a definition whose
// title is on the next line is not collected (docs/panel.md says so).
const DEFINITION = /^ {0,3}\[(?:[^\\\]\n]|\\.){1,999}\]:[ \t]*\S.*$/gm;
const ORDERED_ITEM = /^ {0,3}\d{1,9}([.)])(?:[ \t]|$)/;

/** The fence `line` opens (its character, length and indent), or null. */
function fenceOpening(line) {
  const match = FENCE.exec(line);
  if (!match || match[1].length > 3) return null;
  // A backtick fence's info string may not hold a backtick (CommonMark 4.5).
  if (match[2][0] === "`" && match[3].includes("`")) return null;
  return { char: match[2][0], size: match[2].length, indent: match[1].length };
}

/** True when `line` closes the fence `open`. */
function closesFence(line, open) {
  const match = FENCE.exec(line);
  return Boolean(match) && match[2][0] === open.char && match[2].length >= open.size &&
    match[1].length <= open.indent + 3 && BLANK.test(match[3]);
}

const SPACE = 32;
const TAB = 9;
const BACKTICK = 96;
const TILDE = 126;

/** True when text[from, to) holds only spaces and tabs. */
function blankBetween(text, from, to) {
  for (let at = from; at < to; at += 1) {
    const code = text.charCodeAt(at);
    if (code !== SPACE && code !== TAB) return false;
  }
  return true;
}

/** True when the line at `at` is indented (a continuation that stays with the block before it). */
function indentedAt(text, at) {
  const code = text.charCodeAt(at);
  return code === TAB || (code === SPACE && text.charCodeAt(at + 1) === SPACE);
}

/**
 * The top-level blocks of `text` (lines ending in "\n"), from `offset` (the
 * start of a line outside any fence) on, in order: each {source, start}, the
 * block's text without the blank lines around it and where it starts in
 * `text`. Joined with blank lines they give back the document's Markdown,
 * rendered the same (within the rules above).
 */
export function splitBlocks(text, offset = 0) {
  const blocks = [];
  let start = -1;  // of the block being read
  let end = -1;  // of its last line so far
  let fence = null;
  let blank = false;
  for (let at = offset; at <= text.length;) {
    let lineEnd = text.indexOf("\n", at);
    if (lineEnd < 0) lineEnd = text.length;
    const first = text.charCodeAt(at);
    const mayFence = first === SPACE || first === BACKTICK || first === TILDE;
    if (fence) {
      if (mayFence && closesFence(text.slice(at, lineEnd), fence)) fence = null;
      end = lineEnd;
    } else if (blankBetween(text, at, lineEnd)) {
      blank = start >= 0;
    } else {
      if (start < 0) start = at;
      else if (blank && !indentedAt(text, at)) {
        blocks.push({ source: text.slice(start, end), start });
        start = at;
      }
      blank = false;
      end = lineEnd;
      fence = mayFence ? fenceOpening(text.slice(at, lineEnd)) : null;
    }
    at = lineEnd + 1;
  }
  if (start >= 0) blocks.push({ source: text.slice(start, end), start });
  return blocks;
}

/** The document's one-line reference-style link definitions, one a line (an empty string: none). */
export function referenceDefinitions(text) {
  const found = (text || "").match(DEFINITION);
  return found ? found.join("\n") : "";
}

/** The delimiter ("." or ")") of the ordered list item `block` starts with, or null. */
export function orderedListDelimiter(block) {
  const match = ORDERED_ITEM.exec(block);
  return match ? match[1] : null;
}

/** The delimiter of the last top-level ordered list item in `block`, or null. */
export function lastOrderedDelimiter(block) {
  const lines = block.split("\n");
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const line = lines[index];
    if (INDENTED.test(line) || BLANK.test(line)) continue;
    const match = ORDERED_ITEM.exec(line);
    if (match) return match[1];
  }
  return null;
}
