// workspace/static/workspace/panel.js: the panel's ES module client library.
//
//   openDocument({documentUrl, eventsUrl, revisionsUrl, proposalsUrl, csrfToken}) -> client
//     client.state            {content, title, version, length, review, status}
//     client.activity         the latest changes, newest first
//     client.drafts           the open drafts by call id
//     client.proposals        the open proposals by id, with their hunks
//     client.on(name, fn)     "change" (state, event), "activity" (items, item),
//                             "status" (status), "draft" (callId, draft),
//                             "draft-end" (callId, event, draft), "review" (on),
//                             "proposals" (proposals), "proposal-decided" (event,
//                             proposal); returns an unsubscribe
//     client.turnReview(on)   -> the document
//     client.decide(id, "all" | "none" | [indexes], {note})
//                             -> {proposal} | {conflicts, currentVersion}
//     client.save(content, {baseVersion, title, reason})
//                             -> {merged, document, mergedWith} | {conflicts, currentVersion}
//     client.restore(version, {ifMatch, reason}) -> the document
//     client.revision(version), client.revisions({after, limit}),
//     client.loadOlderActivity(), client.close()
//   renderMarkdown(text)      sanitised HTML of the document's Markdown
//   diffElement(before, after, options), lineChanges(before, after, limits),
//   boundedLineChanges(before, after, limits), DIFF_LIMITS
//   mergeParts(base, current, yours, limits), resolvedText(parts, choices), RESOLUTIONS
//   mountPanel(root)          the whole panel on the page's markup
// docs/panel.md documents them.
export { DocumentClient, WorkspaceError, activityItem, csrfFromCookie, openDocument } from "./client.js";
export { DIFF_LIMITS, boundedLineChanges, diffElement, lineChanges } from "./diff.js";
export { RESOLUTIONS, mergeParts, resolvedText } from "./merge3.js";
export { isSafeLink, isSameOriginImage, renderMarkdown } from "./render.js";
export { mountPanel } from "./panel.js";
