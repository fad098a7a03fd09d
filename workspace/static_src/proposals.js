// The document client's part of review: the open proposals of the thread,
// kept current from its `proposal` and `proposal-decided` events (and read
// again from proposals/ whenever the stream opens: those events are not
// replayed), the document's review mode, and a person's decision.

/** A proposal as the panel keeps it: the event's or the API's fields, with its hunks (null: not loaded). */
export function proposalItem(record) {
  return {
    id: record.id,
    baseVersion: record.base_version,
    tool: record.tool,
    op: record.op,
    actor: record.actor ?? null,
    reason: record.action_and_reasoning ?? "",
    time: record.created_at || new Date().toISOString(),
    hunks: Array.isArray(record.hunks) ? record.hunks : null,
    title: record.title_change ?? (record.title && typeof record.title === "object" ? record.title : null),
  };
}

/** Keeps `client.proposals` (id -> proposal, open ones only) and emits "proposals" on each change. */
export class ProposalList {
  constructor(client, request) {
    this.client = client;
    this.request = request;
    this.open = new Map();
  }

  changed() {
    this.client.emit("proposals", this.open);
  }

  /** A `proposal` event: shown at once; its hunks read when the event left them out (too long to carry). */
  async arrived(event) {
    const item = proposalItem(event);
    this.open.set(item.id, item);
    this.changed();
    if (item.hunks === null) await this.load(item.id);
  }

  /** A `proposal-decided` event, or this client's own decision: the proposal leaves the list. */
  decided(event) {
    const known = this.open.get(event.id);
    if (!known) return;
    this.open.delete(event.id);
    this.client.emit("proposal-decided", event, known);
    this.changed();
  }

  /** Reads one proposal with its hunks (GET proposals/<id>/); an open one is kept. */
  async load(id) {
    const answer = await this.request(`${this.client.urls.proposals}${id}/`);
    if (!answer.ok) return;
    if (answer.data.status === "open") this.open.set(id, proposalItem(answer.data));
    else this.open.delete(id);
    this.changed();
  }

  /** Reads every open proposal afresh (GET proposals/, then each with its hunks). */
  async reload() {
    const answer = await this.request(`${this.client.urls.proposals}?status=open`);
    if (!answer.ok) return;
    const ids = answer.data.results.map((record) => record.id);
    for (const id of [...this.open.keys()]) if (!ids.includes(id)) this.open.delete(id);
    await Promise.all(ids.map((id) => this.load(id)));
    this.changed();
  }
}
