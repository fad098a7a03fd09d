// The rendered document, kept block by block: a 1 MB document is shown fast
// and a live change re-renders only the blocks it touches.
//
// The Markdown is cut into top-level blocks (blocks.js); each block is
// rendered by render.js (markdown-it and the sanitiser, the same rules as a
// whole document) into its own element, remembered by its source text. On a
// change the blocks whose text is unchanged keep their element; only new
// blocks are rendered (an append: the last block or two). The first blocks
// (FIRST_CHARS of source) and the blocks a change brings are rendered at once;
// the rest (a large document's first showing) in slices of SLICE_MS, between
// which the page handles input. A change arriving meanwhile starts again from
// what is already rendered. A block not yet rendered has no element yet.
import { lastOrderedDelimiter, orderedListDelimiter, referenceDefinitions, splitBlocks } from "./blocks.js";
import { highlightCode } from "./code.js";
import { markdownReferences, renderMarkdownBlocks } from "./render.js";

const FIRST_CHARS = 8 * 1024;
const SLICE_MS = 10;
const BATCH_CHARS = 4 * 1024;  // the blocks rendered (and sanitised) together in a slice

function joinLines(first, second) {
  return first && second ? `${first}\n${second}` : first || second;
}

function blockEntry(source) {
  return {
    source,
    element: null,  // until rendered
    usesLinks: source.includes("["),  // may need the document's reference definitions
    definitions: null,  // those it was rendered with
    listDelimiter: orderedListDelimiter(source),
    ownStart: 1,
  };
}

/** The ordered list `element` starts (or ends) with, or null. */
function listAt(element, last) {
  const child = last ? element.lastElementChild : element.firstElementChild;
  return child && child.tagName === "OL" ? child : null;
}

export class BlockView {
  /**
   * Renders into `container` (its children are the view's own).
   * `outerDefinitions`, when given, returns reference definitions made
   * elsewhere (as referenceDefinitions gives them) that come before the text
   * shown: an addition to a document finds the document's links.
   */
  constructor(container, { firstChars = FIRST_CHARS, sliceMs = SLICE_MS, onComplete = null,
    outerDefinitions = null } = {}) {
    this.container = container;
    this.firstChars = firstChars;
    this.sliceMs = sliceMs;
    this.onComplete = onComplete;
    this.outerDefinitions = outerDefinitions;
    this.entries = [];
    this.definitions = "";
    this.references = {};
    this.previous = { text: "", blocks: [], headDefinitions: "" };
    this.cursor = 0;
    this.timer = null;
    renderMarkdownBlocks(["*ready*"]);  // builds the parser and the sanitiser now, before a document arrives
  }

  /** True when the block rendered (or to render) as `entry` shows `source` with the current definitions. */
  matches(entry, source) {
    return entry.source === source &&
      (!entry.element || !entry.usesLinks || entry.definitions === this.definitions);
  }

  /**
   * Shows the Markdown `text`. When it returns, the first blocks and those
   * the change brought are in the DOM; any others follow in slices.
   * Returns {blocks, rendered, pending}: how many blocks, how many were
   * rendered now, how many are left for later.
   */
  show(text) {
    const source = text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
    const definitions = this.definitions;
    const blocks = this.split(source);
    if (this.outerDefinitions) this.definitions = joinLines(this.outerDefinitions(), this.definitions);
    if (this.definitions !== definitions) this.references = markdownReferences(this.definitions);
    const { head, count } = this.reconcile(blocks.map((block) => block.source));
    let rendered = this.renderPending(0, this.entries.length, this.firstChars);
    // The blocks this change brought, however far down, while they are small.
    rendered += this.renderPending(head, head + count, this.firstChars);
    let pending = 0;
    for (const entry of this.entries) if (!entry.element) pending += 1;
    this.cursor = 0;
    if (pending) this.schedule();
    else this.complete();
    return { blocks: this.entries.length, rendered, pending };
  }

  /**
   * The blocks of `text`, and its reference definitions in this.definitions.
   * When `text` extends the text shown before (an append), only its last
   * block and what follows are cut again: the blocks before it cannot change.
   */
  split(text) {
    const before = this.previous;
    const last = before.blocks.length ? before.blocks[before.blocks.length - 1] : null;
    const appended = last !== null && text.length >= before.text.length && text.startsWith(before.text);
    const from = appended ? last.start : 0;
    const blocks = appended ? before.blocks.slice(0, -1).concat(splitBlocks(text, from)) : splitBlocks(text);
    const lastStart = blocks.length ? blocks[blocks.length - 1].start : text.length;
    // The definitions before the last block are kept, to read only the rest of an appended text again.
    const head = joinLines(appended ? before.headDefinitions : "", referenceDefinitions(text.slice(from, lastStart)));
    this.previous = { text, blocks, headDefinitions: head };
    this.definitions = joinLines(head, referenceDefinitions(text.slice(lastStart)));
    return blocks;
  }

  /**
   * Puts the elements of `sources` in the container, reusing those unchanged;
   * returns where the changed run starts (`head`) and its length (`count`).
   */
  reconcile(sources) {
    const old = this.entries;
    let head = 0;
    while (head < old.length && head < sources.length && this.matches(old[head], sources[head])) head += 1;
    let tail = 0;
    while (tail < old.length - head && tail < sources.length - head &&
      this.matches(old[old.length - 1 - tail], sources[sources.length - 1 - tail])) tail += 1;
    const spare = new Map();  // the entries of the changed run, by source, to reuse a block that moved
    for (const entry of old.slice(head, old.length - tail)) {
      if (!spare.has(entry.source)) spare.set(entry.source, []);
      spare.get(entry.source).push(entry);
    }
    const middle = [];
    for (const source of sources.slice(head, sources.length - tail)) {
      const candidates = spare.size ? spare.get(source) || [] : [];
      const index = candidates.findIndex((entry) => this.matches(entry, source));
      middle.push(index >= 0 ? candidates.splice(index, 1)[0] : blockEntry(source));
    }
    for (const unused of spare.values()) for (const entry of unused) if (entry.element) entry.element.remove();
    const fragment = document.createDocumentFragment();
    for (const entry of middle) if (entry.element) fragment.append(entry.element);
    this.entries = [...old.slice(0, head), ...middle, ...old.slice(old.length - tail)];
    this.container.insertBefore(fragment, this.elementFrom(head + middle.length));
    this.continueLists(head, head);
    return { head, count: middle.length };
  }

  /** The element of the first rendered block from `index` on (null: none, the end). */
  elementFrom(index) {
    for (let at = index; at < this.entries.length; at += 1) {
      if (this.entries[at].element) return this.entries[at].element;
    }
    return null;
  }

  /** Renders the blocks not yet rendered among [from, to) while `budget` characters last; returns how many. */
  renderPending(from, to, budget) {
    let rendered = 0;
    let at = from;
    while (at < to && budget > 0) {
      if (this.entries[at].element) {
        budget -= this.entries[at].source.length;
        at += 1;
        continue;
      }
      let end = at;
      let size = 0;
      while (end < to && !this.entries[end].element && size < budget) {
        size += this.entries[end].source.length;
        end += 1;
      }
      this.renderRun(at, end);
      rendered += end - at;
      budget -= size;
      at = end;
    }
    return rendered;
  }

  /** Renders the blocks [from, to), none rendered yet, and puts them in place. */
  renderRun(from, to) {
    const run = this.entries.slice(from, to);
    const elements = renderMarkdownBlocks(run.map((entry) => entry.source), this.references);
    const fragment = document.createDocumentFragment();
    run.forEach((entry, index) => {
      entry.element = elements[index];
      entry.definitions = this.definitions;
      const list = listAt(entry.element, false);
      entry.ownStart = list ? list.start : 1;
      fragment.append(entry.element);
    });
    this.container.insertBefore(fragment, this.elementFrom(to));
    this.continueLists(from, to);
    highlightCode(elements);
  }

  /**
   * Numbers the ordered lists of the blocks [from, to), then on down while a
   * number changes: a list a block starts with continues the one the block
   * before ends with (one list that a blank line cut in two).
   */
  continueLists(from, to) {
    for (let at = from; at < this.entries.length; at += 1) {
      if (!this.numberList(at) && at >= to) return;
    }
  }

  /** Numbers the ordered list the block at `at` starts with; true when its number changed. */
  numberList(at) {
    const entry = this.entries[at];
    const list = entry.element && entry.listDelimiter ? listAt(entry.element, false) : null;
    if (!list) return false;
    const before = at > 0 ? this.entries[at - 1] : null;
    const previous = before && before.element ? listAt(before.element, true) : null;
    const continues = previous && lastOrderedDelimiter(before.source) === entry.listDelimiter;
    const start = continues ? previous.start + previous.children.length : entry.ownStart;
    if (list.start === start) return false;
    list.start = start;
    return true;
  }

  schedule() {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.renderSlice();
    }, 0);
  }

  /** Renders pending blocks, in order, for SLICE_MS; schedules the next slice if some are left. */
  renderSlice() {
    const end = performance.now() + this.sliceMs;
    while (this.cursor < this.entries.length && performance.now() < end) {
      if (this.entries[this.cursor].element) {
        this.cursor += 1;
        continue;
      }
      this.renderPending(this.cursor, this.entries.length, BATCH_CHARS);
    }
    if (this.cursor < this.entries.length) this.schedule();
    else this.complete();
  }

  /** Stops rendering the blocks still pending (the view is no longer shown). */
  stop() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  complete() {
    if (this.onComplete) this.onComplete(this.entries.length);
  }
}
