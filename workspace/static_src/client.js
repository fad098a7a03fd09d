// The document client: opens one thread's working document and
// keeps it current over the thread's event stream, keeps its activity list,
// and saves a person's edit (merged or in conflict) and restores.
//
// Each `document` event carries a version. The next version is applied
// (append its text, or replace the content); an older one is ignored; a gap,
// a `stream-reset` or an event whose text was too large to carry (`omitted`)
// means the document is fetched again.
//
// Drafts: a `draft` event grows a tool call's text argument at its
// offset; `draft-end` ends it. A stream that opens again (`stream-open`)
// drops the drafts known so far: the server sends the open ones afresh.
//
// Review: `review` events set the document's mode; `proposal` and
// `proposal-decided` events keep the open proposals (proposals.js), read
// afresh each time the stream opens.
import { ProposalList } from "./proposals.js";

const RECONNECT_DELAY_MS = 3000;
const ACTIVITY_PAGE = 50;

function emptyDocument() {
  return { version: 0, title: "", length: 0, content: "", review: false };
}

/** An error answered by the server: `status` and its failure envelope as `body`. */
export class WorkspaceError extends Error {
  constructor(status, body) {
    super((body && body.error) || `request failed: ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** The activity item of a revision or of a `document` event. */
export function activityItem(record, receivedAt) {
  return {
    version: record.version,
    // A revision's op; an event's op says only how to apply it ("update" for an edit or a restore).
    op: record.revision_op ?? record.op,
    time: record.created_at || receivedAt || new Date().toISOString(),
    actor: record.actor ?? null,
    source: record.source ?? null,
    tool: record.tool ?? null,
    reviewedBy: record.reviewed_by ?? null,
    proposal: record.proposal ?? null,
    reason: record.action_and_reasoning ?? "",
    reasonTruncated: Boolean(record.reason_truncated),
    title: record.title,
    length: record.length,
  };
}

async function requestJson(url, { method = "GET", body, headers = {}, csrfToken } = {}) {
  const sent = { Accept: "application/json", ...headers };
  if (body !== undefined) sent["Content-Type"] = "application/json";
  if (method !== "GET" && csrfToken) sent["X-CSRFToken"] = csrfToken;
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: sent,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { status: response.status, ok: response.ok, data };
}

/** The csrftoken cookie's value, if the page has one (Django's default cookie name). */
export function csrfFromCookie(doc = globalThis.document) {
  const match = (doc && doc.cookie ? doc.cookie : "").match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

class DocumentClient {
  constructor({ documentUrl, eventsUrl, revisionsUrl, proposalsUrl, csrfToken }) {
    const proposals = proposalsUrl || documentUrl.replace(/document\/?$/, "proposals/");
    this.urls = { document: documentUrl, events: eventsUrl, revisions: revisionsUrl, proposals };
    this.csrfToken = csrfToken || csrfFromCookie();
    this.state = { ...emptyDocument(), status: "connecting" };
    this.activity = [];  // newest first
    this.drafts = new Map();  // call_id -> {tool, actor, field, text, title, baseVersion, omitted}
    this.listeners = new Map();
    this.proposalList = new ProposalList(this, requestJson);
    this.proposals = this.proposalList.open;  // id -> {id, baseVersion, tool, op, actor, reason, time, hunks, title}
    this.source = null;
    this.fetching = false;
    this.fetchAgain = false;
    this.closed = false;
    this.activityStarted = false;
  }

  /** Calls `listener` on each `name` event; returns a function that stops it. */
  on(name, listener) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set());
    this.listeners.get(name).add(listener);
    return () => this.listeners.get(name).delete(listener);
  }

  emit(name, ...args) {
    for (const listener of this.listeners.get(name) || []) {
      try {
        listener(...args);
      } catch (error) {
        console.error(error);
      }
    }
  }

  setStatus(status) {
    if (this.state.status === status) return;
    this.state = { ...this.state, status };
    this.emit("status", status);
  }

  setDocument(fetched, event = null) {
    const { version, title, length, content } = fetched;
    const review = typeof fetched.review === "boolean" ? fetched.review : this.state.review;
    if (review !== this.state.review) this.setReview(review);
    this.state = { ...this.state, version, title, length, content };
    this.emit("change", this.state, event);
    if (!this.activityStarted && version > 0) {
      this.activityStarted = true;  // the latest page, once the current version is known
      this.loadOlderActivity().catch((error) => console.error(error));
    } else if (this.activityStarted) {
      this.fillActivity().catch((error) => console.error(error));
    }
  }

  /** Reads the changes up to the current version that the activity lacks (missed or unnamed events). */
  async fillActivity() {
    if (this.filling) return;
    this.filling = true;
    const newest = () => (this.activity.length ? this.activity[0].version : 0);
    try {
      // Again while it finds some: the document may have moved on meanwhile.
      for (let found = 1; found && this.state.version > newest();) {
        const after = Math.max(newest(), this.state.version - ACTIVITY_PAGE);
        const revisions = await this.revisions({ after, limit: ACTIVITY_PAGE });
        for (const revision of revisions) this.addActivity(activityItem(revision));
        found = revisions.length;
      }
    } finally {
      this.filling = false;
    }
  }

  async refetch() {
    if (this.fetching) {
      this.fetchAgain = true;
      return;
    }
    this.fetching = true;
    try {
      const answer = await requestJson(this.urls.document);
      if (answer.status !== 404 && !answer.ok) throw new WorkspaceError(answer.status, answer.data);
      const fetched = answer.status === 404 ? emptyDocument() : answer.data;
      if (this.source && this.source.readyState === EventSource.OPEN) this.setStatus("live");
      if (fetched.version >= this.state.version) this.setDocument(fetched);
    } catch (error) {
      console.error(error);
      this.setStatus("offline");
      this.fetchAgain = true;  // try again shortly: what is shown may be stale
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
    } finally {
      this.fetching = false;
      if (this.fetchAgain && !this.closed) {
        this.fetchAgain = false;
        this.refetch();
      }
    }
  }

  setReview(review) {
    if (this.state.review === review) return;
    this.state = { ...this.state, review };
    this.emit("review", review);
  }

  addActivity(item) {
    if (this.activity.some((known) => known.version === item.version)) return;
    this.activity.push(item);
    this.activity.sort((a, b) => b.version - a.version);
    this.emit("activity", this.activity, item);
  }

  applyEvent(event) {
    // An event from a server that does not name the change's reason: its revision does.
    if ("action_and_reasoning" in event) this.addActivity(activityItem(event));
    if (event.version <= this.state.version) return;  // already shown
    if (event.version !== this.state.version + 1 || event.omitted) {
      this.refetch();  // missed one, or too large to carry: read the document
      return;
    }
    const content = event.op === "append" ? this.state.content + event.text : event.content;
    this.setDocument({ ...event, content }, event);
  }

  /**
   * Grows a draft by the event's `delta` at its `offset`. A delta beyond the
   * text known (the start was too long for its event, `omitted`) cannot be
   * placed: the draft keeps the text it has and stays marked `omitted`.
   */
  applyDraft(event) {
    const known = this.drafts.get(event.call_id);
    const draft = known || { tool: event.tool, actor: event.actor ?? null, text: "", title: null, omitted: false };
    draft.field = event.field;
    draft.baseVersion = event.base_version;
    if (typeof event.title === "string") draft.title = event.title;
    const offset = Number.isInteger(event.offset) && event.offset >= 0 ? event.offset : draft.text.length;
    if (offset === 0) draft.omitted = false;  // the text so far, afresh
    const delta = event.delta || "";
    if (offset === draft.text.length) draft.text += delta;
    else if (offset < draft.text.length) draft.text = draft.text.slice(0, offset) + delta;
    else draft.omitted = true;
    if (event.omitted) draft.omitted = true;
    this.drafts.set(event.call_id, draft);
    this.emit("draft", event.call_id, draft);
  }

  /** Ends a draft; listeners get the `draft-end` event and the draft as it last was (or undefined). */
  endDraft(event) {
    const draft = this.drafts.get(event.call_id);
    this.drafts.delete(event.call_id);
    this.emit("draft-end", event.call_id, event, draft);
  }

  /** A stream opened (again): the drafts known may have ended meanwhile; the server sends the open ones. */
  clearDrafts() {
    for (const callId of [...this.drafts.keys()]) {
      this.endDraft({ call_id: callId, outcome: "reset", version: null });
    }
  }

  connect() {
    if (this.closed) return;
    const stream = new EventSource(this.urls.events);
    this.source = stream;
    const json = (handler) => (message) => handler.call(this, JSON.parse(message.data));
    stream.addEventListener("open", () => {
      this.setStatus("live");
      this.refetch();
      this.proposalList.reload().catch((error) => console.error(error));
    });
    stream.addEventListener("document", json(this.applyEvent));
    stream.addEventListener("draft", json(this.applyDraft));
    stream.addEventListener("draft-end", json(this.endDraft));
    stream.addEventListener("review", json((event) => this.setReview(event.review)));
    stream.addEventListener("proposal", json((event) => this.proposalList.arrived(event)));
    stream.addEventListener("proposal-decided", json((event) => this.proposalList.decided(event)));
    stream.addEventListener("stream-open", () => this.clearDrafts());
    stream.addEventListener("stream-reset", () => this.refetch());
    stream.addEventListener("error", () => {
      this.setStatus("offline");
      // EventSource retries by itself unless the server refused the stream.
      if (stream.readyState === EventSource.CLOSED) setTimeout(() => this.connect(), RECONNECT_DELAY_MS);
    });
    stream.addEventListener("stream-error", () => {
      stream.close();  // django-eventstream refuses to resume after one
      this.setStatus("offline");
      setTimeout(() => this.connect(), RECONNECT_DELAY_MS);
    });
  }

  /** Revisions with `after` < version, at most `limit`, ascending (GET revisions/). */
  async revisions({ after = 0, limit = ACTIVITY_PAGE } = {}) {
    const answer = await requestJson(`${this.urls.revisions}?after=${after}&limit=${limit}`);
    if (answer.status === 404) return [];
    if (!answer.ok) throw new WorkspaceError(answer.status, answer.data);
    return answer.data.results;
  }

  /** Loads the activity before the oldest one known (or the latest page); false when none is left. */
  async loadOlderActivity() {
    const oldest = this.activity.length ? this.activity[this.activity.length - 1].version : this.state.version + 1;
    if (oldest <= 1) return false;
    const after = Math.max(0, oldest - 1 - ACTIVITY_PAGE);
    const found = (await this.revisions({ after, limit: ACTIVITY_PAGE })).filter((item) => item.version < oldest);
    for (const revision of found) this.addActivity(activityItem(revision));
    return after > 0;
  }

  /** One kept version, with its `content` (GET revisions/<v>/). */
  async revision(version) {
    const answer = await requestJson(`${this.urls.revisions}${version}/`);
    if (!answer.ok) throw new WorkspaceError(answer.status, answer.data);
    return answer.data;
  }

  /**
   * Saves a person's edit: PUT document/ with If-Match of `baseVersion`, the
   * version the edit started from. Resolves to {merged, document, mergedWith}
   * (mergedWith: who made the changes it was merged with) or, on a conflict,
   * to {conflicts, currentVersion} with nothing saved. Other failures throw a
   * WorkspaceError (412 carries `body.current_version`).
   */
  async save(content, { baseVersion = this.state.version, title, reason } = {}) {
    const body = { content };
    if (title !== undefined && title !== null) body.title = title;
    if (reason) body.action_and_reasoning = reason;
    const answer = await requestJson(this.urls.document, {
      method: "PUT",
      body,
      headers: { "If-Match": `"${baseVersion}"` },
      csrfToken: this.csrfToken,
    });
    if (answer.status === 409 && answer.data && answer.data.conflicts) {
      return { conflicts: answer.data.conflicts, currentVersion: answer.data.current_version };
    }
    if (!answer.ok) throw new WorkspaceError(answer.status, answer.data);
    const saved = answer.data;
    if (saved.version > this.state.version) this.setDocument(saved);
    const mergedWith = saved.merged ? await this.authorsBetween(baseVersion, saved.version) : [];
    return { merged: Boolean(saved.merged), document: saved, mergedWith };
  }

  /** Who made the changes after `base` and before `version`: names, once each, in order. */
  async authorsBetween(base, version) {
    let found;
    try {
      found = await this.revisions({ after: base, limit: Math.min(1000, Math.max(1, version - base)) });
    } catch (error) {
      console.error(error);
      return [];
    }
    const names = [];
    for (const revision of found) {
      if (revision.version >= version) continue;
      const name = revision.actor || (revision.source === "agent" ? "an agent" : "someone");
      if (!names.includes(name)) names.push(name);
    }
    return names;
  }

  /**
   * Restores a kept version as a new one (POST revisions/<v>/restore/), with
   * `reason` as its action_and_reasoning if given; resolves to the document.
   */
  async restore(version, { ifMatch, reason } = {}) {
    const headers = ifMatch === undefined ? {} : { "If-Match": `"${ifMatch}"` };
    const answer = await requestJson(`${this.urls.revisions}${version}/restore/`, {
      method: "POST",
      body: reason ? { action_and_reasoning: reason } : {},
      headers,
      csrfToken: this.csrfToken,
    });
    if (!answer.ok) throw new WorkspaceError(answer.status, answer.data);
    if (answer.data.version > this.state.version) this.setDocument(answer.data);
    return answer.data;
  }

  /** Turns the review of agents' changes on or off (PATCH document/); resolves to the document. */
  async turnReview(on) {
    const answer = await requestJson(this.urls.document, {
      method: "PATCH",
      body: { review: Boolean(on) },
      csrfToken: this.csrfToken,
    });
    if (!answer.ok) throw new WorkspaceError(answer.status, answer.data);
    this.setReview(answer.data.review);
    if (answer.data.version > this.state.version) this.setDocument(answer.data);
    return answer.data;
  }

  /**
   * Decides proposal `id`: `accept` is "all", "none" or a list of hunk
   * indexes (POST proposals/<id>/decision/). Resolves to {proposal} (decided:
   * it leaves `proposals`) or, when the accepted hunks and the changes since
   * changed the same lines, to {conflicts, currentVersion} with nothing
   * changed. Other failures throw a WorkspaceError.
   */
  async decide(id, accept, { note } = {}) {
    const answer = await requestJson(`${this.urls.proposals}${id}/decision/`, {
      method: "POST",
      body: note ? { accept, note } : { accept },
      csrfToken: this.csrfToken,
    });
    if (answer.status === 409 && answer.data && answer.data.conflicts) {
      return { conflicts: answer.data.conflicts, currentVersion: answer.data.current_version };
    }
    if (!answer.ok) throw new WorkspaceError(answer.status, answer.data);
    this.proposalList.decided(answer.data);
    return { proposal: answer.data };
  }

  /** Stops following the document. */
  close() {
    this.closed = true;
    if (this.source) this.source.close();
    this.setStatus("closed");
  }
}

/**
 * Opens a thread's document and keeps it current: `documentUrl`, `eventsUrl`
 * and `revisionsUrl` are the thread's API URLs; `csrfToken` (else the
 * csrftoken cookie) signs saves and restores. Returns the client at once; it
 * connects, reads the document and the latest activity in the background.
 */
export function openDocument(options) {
  const client = new DocumentClient(options);
  client.connect();
  return client;
}

export { DocumentClient };
