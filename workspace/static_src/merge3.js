// A three-way merge by lines, in the browser, for resolving a conflict: the
// text at the version a person's edit started from (`base`), the document
// now (`current`) and the person's text (`yours`), cut into the parts of the
// merge. A stretch that only one side changed takes that side; one both
// changed alike is taken once; one both changed differently is a conflict,
// given as its three sides, for the person to choose.
//
// Line endings are compared as LF (a text box sends nothing else); the
// server keeps each unchanged line's own ending when the resolved text is
// saved from the current version. The line diffs are jsdiff's, bounded as
// the history's are (diff.js): past the bounds, the whole text is one
// conflict.
import { diffArrays } from "diff";
import { DIFF_LIMITS } from "./diff.js";

/** `text` with every CR LF and lone CR as LF. */
export function asLf(text) {
  return (text || "").replace(/\r\n?/g, "\n");
}

/** `text` cut after each LF; a last line without one is a line too. */
function linesOf(text) {
  const lines = text.split("\n");
  const last = lines.pop();
  return [...lines.map((line) => `${line}\n`), ...(last ? [last] : [])];
}

/** The runs of `base` lines kept in `other`: [baseStart, otherStart, n], in order, or null past `limits`. */
function keptRuns(base, other, limits) {
  const changes = diffArrays(base, other, { maxEditLength: limits.maxEditLength, timeout: limits.timeoutMs });
  if (!changes) return null;
  const runs = [];
  let [baseAt, otherAt] = [0, 0];
  for (const change of changes) {
    const n = change.count ?? change.value.length;
    if (!change.added && !change.removed) runs.push([baseAt, otherAt, n]);
    if (!change.added) baseAt += n;
    if (!change.removed) otherAt += n;
  }
  return runs;
}

/**
 * Where the base lines kept by both sides overlap: [base, current, yours, n]
 * for each overlap, then the three ends with n 0.
 */
function keptByBoth(toCurrent, toYours, ends) {
  const overlaps = [];
  let [i, j] = [0, 0];
  while (i < toCurrent.length && j < toYours.length) {
    const [baseC, currentStart, nC] = toCurrent[i];
    const [baseY, yourStart, nY] = toYours[j];
    const start = Math.max(baseC, baseY);
    const end = Math.min(baseC + nC, baseY + nY);
    if (start < end) overlaps.push([start, currentStart + start - baseC, yourStart + start - baseY, end - start]);
    if (baseC + nC <= baseY + nY) i += 1;
    else j += 1;
  }
  overlaps.push([...ends, 0]);
  return overlaps;
}

const joined = (lines) => lines.join("");
const same = (a, b) => a.length === b.length && a.every((line, index) => line === b[index]);

function pushText(parts, text) {
  if (!text) return;
  const last = parts[parts.length - 1];
  if (last && last.text !== undefined) last.text += text;
  else parts.push({ text });
}

/**
 * The merge of `yours` and `current`, both changed from `base`: a list of
 * parts, each {text} (merged cleanly) or {conflict: {base, current, yours}};
 * `limits` bound the line diffs (DIFF_LIMITS's names).
 */
export function mergeParts(base, current, yours, limits = {}) {
  const bounds = { ...DIFF_LIMITS, ...limits };
  const [b, c, y] = [linesOf(asLf(base)), linesOf(asLf(current)), linesOf(asLf(yours))];
  const toCurrent = keptRuns(b, c, bounds);
  const toYours = toCurrent && keptRuns(b, y, bounds);
  if (!toYours) {
    return same(c, y) ? [{ text: joined(c) }] : [{ conflict: { base: joined(b), current: joined(c), yours: joined(y) } }];
  }
  const parts = [];
  let [baseAt, currentAt, yourAt] = [0, 0, 0];
  for (const [baseStart, currentStart, yourStart, n] of keptByBoth(toCurrent, toYours, [b.length, c.length, y.length])) {
    const was = b.slice(baseAt, baseStart);
    const now = c.slice(currentAt, currentStart);
    const theirs = y.slice(yourAt, yourStart);
    if (same(now, theirs) || same(theirs, was)) pushText(parts, joined(now));
    else if (same(now, was)) pushText(parts, joined(theirs));
    else parts.push({ conflict: { base: joined(was), current: joined(now), yours: joined(theirs) } });
    pushText(parts, joined(c.slice(currentStart, currentStart + n)));
    [baseAt, currentAt, yourAt] = [baseStart + n, currentStart + n, yourStart + n];
  }
  return parts;
}

/** The ways to resolve one conflict: the text each gives (`handText`: what the person wrote by hand). */
export const RESOLUTIONS = Object.freeze({
  mine: (conflict) => conflict.yours,
  theirs: (conflict) => conflict.current,
  both: (conflict) => {
    const mine = conflict.yours;
    return mine && !mine.endsWith("\n") && conflict.current ? `${mine}\n${conflict.current}` : mine + conflict.current;
  },
  hand: (conflict, handText) => handText ?? conflict.yours,
});

/**
 * The text of `parts` with each conflict resolved by `choices[k]` (for the
 * k-th conflict: {way: a RESOLUTIONS name, text: for "hand"}); null while a
 * conflict has no choice.
 */
export function resolvedText(parts, choices) {
  let text = "";
  let k = 0;
  for (const part of parts) {
    if (part.text !== undefined) {
      text += part.text;
      continue;
    }
    const choice = choices[k++];
    if (!choice || !RESOLUTIONS[choice.way]) return null;
    text += RESOLUTIONS[choice.way](part.conflict, choice.text);
  }
  return text;
}
