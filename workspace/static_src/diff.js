// Line diffs for the panel's history, built as DOM nodes: text is only ever
// set as text, inserted lines in <ins>, deleted ones in <del>.
//
// A line diff is bounded as the admin's revision page bounds it (docs/history.md):
// no diff is attempted past `maxLines` lines on either side (each side, not
// their product: an empty side would make a product bound useless). jsdiff's
// work grows with the lines of both sides times the lines changed, so it is also
// given up past `maxEditLength` lines added and removed, or after `timeoutMs`.
// Two versions that get no line diff are shown whole, with a sentence saying why.
import { diffLines } from "diff";

/** The bounds of a line diff; the panel's page is given the server's line bound. */
export const DIFF_LIMITS = Object.freeze({ maxLines: 1000, maxEditLength: 1000, timeoutMs: 250 });

const WHOLE = "both versions are shown whole instead.";

/** True when `text` has more than `max` lines (a last line without "\n" counts), counted without splitting. */
function moreLinesThan(text, max) {
  let lines = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) {
    lines += 1;
    if (lines > max) return true;
  }
  return lines + (text.length > 0 && !text.endsWith("\n") ? 1 : 0) > max;
}

/**
 * The changes from `before` to `after` by lines, within `limits` (DIFF_LIMITS
 * by default): {changes} ([{added, removed, value}], as jsdiff gives them;
 * [] when the two are the same), or {changes: null, refused}: the sentence
 * saying why there is no line diff.
 */
export function boundedLineChanges(before, after, limits = {}) {
  const { maxLines, maxEditLength, timeoutMs } = { ...DIFF_LIMITS, ...limits };
  const [old, changed] = [before || "", after || ""];
  if (old === changed) return { changes: [] };
  if (moreLinesThan(old, maxLines) || moreLinesThan(changed, maxLines)) {
    return { changes: null, refused: `Too many lines to compare (more than ${maxLines} on a side): ${WHOLE}` };
  }
  const started = Date.now();
  const changes = diffLines(old, changed, { maxEditLength, timeout: timeoutMs });
  if (changes) return { changes };
  const refused = Date.now() - started > timeoutMs
    ? `Comparing took too long (more than ${timeoutMs} ms): ${WHOLE}`
    : `Too many changed lines to compare (more than ${maxEditLength} lines added and removed): ${WHOLE}`;
  return { changes: null, refused };
}

/** The changes from `before` to `after` by lines (jsdiff's), or null past `limits` (see boundedLineChanges). */
export function lineChanges(before, after, limits = {}) {
  return boundedLineChanges(before, after, limits).changes;
}

function diffPre(changes, doc) {
  const pre = doc.createElement("pre");
  pre.className = "diff";
  let changed = 0;
  for (const part of changes) {
    const tag = part.added ? "ins" : part.removed ? "del" : "span";
    if (part.added || part.removed) changed += 1;
    const node = doc.createElement(tag);
    node.textContent = part.value;
    pre.appendChild(node);
  }
  if (changed === 0) {
    pre.textContent = "";
    const same = doc.createElement("em");
    same.textContent = "No difference.";
    pre.appendChild(same);
  }
  return pre;
}

function wholeVersions(refused, sides, doc) {
  const whole = doc.createElement("div");
  whole.className = "diff-refused";
  const why = doc.createElement("p");
  why.className = "diff-why";
  why.textContent = refused;
  whole.appendChild(why);
  for (const [label, text] of sides) {
    const heading = doc.createElement("h5");
    heading.textContent = label;
    const pre = doc.createElement("pre");
    pre.className = "version-text";
    pre.tabIndex = 0;  // it scrolls: reachable from the keyboard
    pre.textContent = text;
    whole.append(heading, pre);
  }
  return whole;
}

/**
 * A <pre class="diff"> showing `before` → `after`, with <ins> and <del>
 * marking the changes; past the bounds (`options`: DIFF_LIMITS's names), a
 * <div class="diff-refused"> saying why, then both texts whole, headed
 * `options.beforeLabel` and `options.afterLabel`.
 */
export function diffElement(before, after, options = {}, doc = globalThis.document) {
  const { beforeLabel = "Before", afterLabel = "After", ...limits } = options;
  const { changes, refused } = boundedLineChanges(before, after, limits);
  if (changes) return diffPre(changes, doc);
  return wholeVersions(refused, [[beforeLabel, before || ""], [afterLabel, after || ""]], doc);
}
